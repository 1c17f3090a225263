package mcp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A tool's source.origin, which approve shows and a remembered approval keeps, is the
// server's scheme and host alone: never its user-info, path or query.
func TestOrigin(t *testing.T) {
	for url, want := range map[string]string{
		"https://h.example/mcp?api_key=x":    "https://h.example",
		"http://alice:pw@127.0.0.1:8080/mcp": "http://127.0.0.1:8080",
		"https://tok@h.example":              "https://h.example",
		"/mcp":                               "",
		"https://h.example#frag":             "https://h.example",
	} {
		require.Equal(t, want, origin(url), url)
	}
}
