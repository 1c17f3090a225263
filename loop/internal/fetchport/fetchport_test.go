package fetchport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// ReadAll returns what io.ReadAll returns: the bytes read and the first error but EOF.
func TestReadAll_AsIOReadAll(t *testing.T) {
	long := strings.Repeat("0123456789", 300) // past the first 512 bytes' growth
	failed := errors.New("the connection was reset")
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"empty", func() io.Reader { return strings.NewReader("") }},
		{"short", func() io.Reader { return strings.NewReader("short") }},
		{"longer than its first buffer", func() io.Reader { return strings.NewReader(long) }},
		{"a byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(long)) }},
		{"EOF with the last bytes", func() io.Reader { return iotest.DataErrReader(strings.NewReader(long)) }},
		{"an error midway", func() io.Reader {
			return io.MultiReader(strings.NewReader(long), iotest.ErrReader(failed))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := io.ReadAll(tc.r())
			got, err := ReadAll(tc.r())
			require.Equal(t, string(want), string(got))
			require.Equal(t, wantErr, err)
		})
	}
}

// Where keeps a URL's origin and path and drops whatever may hold a credential.
func TestWhere(t *testing.T) {
	for _, tc := range []struct{ name, url, want string }{
		{"origin and path as they are", "https://mcp.example:8443/v1/mcp", "https://mcp.example:8443/v1/mcp"},
		{"the query dropped", "https://mcp.example/mcp?api_key=sk-secret&x=1", "https://mcp.example/mcp"},
		{"the fragment dropped", "https://mcp.example/mcp#token=sk-secret", "https://mcp.example/mcp"},
		{"user-info dropped", "https://user:pa@ss@mcp.example/mcp", "https://mcp.example/mcp"},
		{"a query with no path", "http://127.0.0.1:9?key=sk-secret", "http://127.0.0.1:9"},
		{"an @ in the query is not user-info", "https://mcp.example?to=a@b", "https://mcp.example"},
		{"an @ in the path is not user-info", "https://mcp.example/users/@me", "https://mcp.example/users/@me"},
		{"a backslash ends the host, as http URLs read it", `http://evil.example\@mcp.example/`, `http://evil.example\@mcp.example/`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Where(tc.url))
		})
	}
}
