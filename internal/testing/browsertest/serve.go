package browsertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"testing"
)

// contentTypes are set from the URL's extension, so that they do not depend on
// the machine's mime.types: instantiateStreaming needs application/wasm, and
// module scripts need a JavaScript type.
var contentTypes = map[string]string{
	".wasm": "application/wasm",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".map":  "application/json",
}

// Serve serves root (a directory; "" for none) and the extra handlers on
// http://127.0.0.1:<free port>, until the test ends, and returns the base URL
// (no trailing slash). The keys of extra are http.ServeMux patterns
// ("/wasm_exec.js", "POST /v1/chat/completions", "/api/"); they win over files in
// root. Responses carry Cache-Control: no-store and a content type chosen by the
// URL's extension (.wasm → application/wasm, .js/.mjs → text/javascript), which a
// handler may override. With root "", GET / answers an empty HTML page, so that
// a test can Open the base URL and load everything else from Eval. A missing
// /favicon.ico is a 204, not a 404 in every page's Console.
func Serve(tb testing.TB, root string, extra map[string]http.Handler) (baseURL string) {
	tb.Helper()
	mux := http.NewServeMux()
	for pattern, h := range extra {
		mux.Handle(pattern, h)
	}
	if _, ok := extra["/favicon.ico"]; !ok {
		// Chromium asks every page for one; a 404 would be noise in Console.
		mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
			if root != "" {
				if _, err := os.Stat(filepath.Join(root, "favicon.ico")); err == nil {
					http.ServeFile(w, r, filepath.Join(root, "favicon.ico"))
					return
				}
			}
			w.WriteHeader(http.StatusNoContent)
		})
	}
	if _, ok := extra["/"]; !ok {
		if root != "" {
			mux.Handle("/", http.FileServer(http.Dir(root)))
		} else {
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", contentTypes[".html"])
				io.WriteString(w, "<!doctype html><meta charset=utf-8><title>browsertest</title>\n")
			})
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		if ct, ok := contentTypes[path.Ext(r.URL.Path)]; ok {
			h.Set("Content-Type", ct)
		}
		mux.ServeHTTP(w, r)
	}))
	tb.Cleanup(func() {
		// A page may still hold a connection (a stream, a keep-alive); do not wait
		// for it.
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// File is a handler that serves the file at path, for Serve's extra handlers,
// e.g. {"/wasm_exec.js": File(WasmExecJS(t))}.
func File(path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, path)
	})
}
