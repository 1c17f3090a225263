package browsertest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/toygguf"
)

// TestWllamaHandlers: wllama's files, its compat build, the harness and a
// generated model, each with the type a page needs.
func TestWllamaHandlers(t *testing.T) {
	h := browsertest.WllamaHandlers(t)
	h["/weather.gguf"] = browsertest.GGUF(t, toygguf.Weather)
	base := browsertest.Serve(t, "", h)
	model, err := toygguf.Bytes(toygguf.Weather)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, path, rangeHeader string
		status                  int
		contentType, prefix     string
	}{
		{"wllama's module", "/wllama/index.js", "", 200, "text/javascript; charset=utf-8", ""},
		{"wllama's default build", "/wllama/wasm/wllama.wasm", "", 200, "application/wasm", "\x00asm"},
		{"the compat build's worker", "/wllama-compat/wllama.js", "", 200, "text/javascript; charset=utf-8", ""},
		{"the compat build", "/wllama-compat/wllama.wasm", "", 200, "application/wasm", "\x00asm"},
		{"the harness", "/wllama-harness.js", "", 200, "text/javascript; charset=utf-8", "// The page side"},
		{"a model", "/weather.gguf", "", 200, "application/octet-stream", string(model)},
		{"a model's first bytes", "/weather.gguf", "bytes=0-3", 206, "application/octet-stream", "GGUF"},
		{"nothing else", "/wllama/nothing.js", "", 404, "text/plain; charset=utf-8", "404 page not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), "GET", base+tc.path, nil)
			require.NoError(t, err)
			if tc.rangeHeader != "" {
				req.Header.Set("Range", tc.rangeHeader)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tc.status, resp.StatusCode)
			require.Equal(t, tc.contentType, resp.Header.Get("Content-Type"))
			require.True(t, len(body) >= len(tc.prefix) && string(body[:len(tc.prefix)]) == tc.prefix, "%s starts with %q", tc.path, tc.prefix)
			if tc.path == "/weather.gguf" && tc.rangeHeader == "" {
				require.Equal(t, len(model), len(body))
			}
		})
	}
}

// TestGGUFCut: the download declares the whole model and ends early.
func TestGGUFCut(t *testing.T) {
	model, err := toygguf.Bytes(toygguf.Weather)
	require.NoError(t, err)
	base := browsertest.Serve(t, "", map[string]http.Handler{"/cut.gguf": browsertest.GGUFCut(t, toygguf.Weather, 1000)})
	resp, err := http.Get(base + "/cut.gguf")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, int64(len(model)), resp.ContentLength)
	body, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, model[:1000], body)
}
