package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/toygguf"
)

// TestHandler_InPageModel: the demo server serves the toy model it was given, and
// wllama's files from internal/npm (installed by make deps).
func TestHandler_InPageModel(t *testing.T) {
	toy, err := toygguf.Bytes(toygguf.Clock)
	require.NoError(t, err)
	srv := httptest.NewServer(handler("../..", toy))
	defer srv.Close()
	for _, tc := range []struct {
		name, path, contentType string
		first                   string
	}{
		{"the toy model", "/models/toy.gguf", "application/octet-stream", "GGUF"},
		{"wllama's entry", "/wllama/index.js", "text/javascript; charset=utf-8", ""},
		{"wllama's default build", "/wllama/wasm/wllama.wasm", "application/wasm", "\x00asm"},
		{"wllama's compat build", "/wllama-compat/wllama.wasm", "application/wasm", "\x00asm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := http.Get(srv.URL + tc.path)
			require.NoError(t, err)
			defer r.Body.Close()
			require.Equal(t, http.StatusOK, r.StatusCode)
			require.Equal(t, tc.contentType, r.Header.Get("Content-Type"))
			b, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			require.True(t, len(b) > len(tc.first) && string(b[:len(tc.first)]) == tc.first, "%s starts with %q", tc.path, b[:min(len(b), 8)])
			if tc.path == "/models/toy.gguf" {
				require.Equal(t, toy, b)
			}
		})
	}
}
