package browsertest

import (
	"bytes"
	_ "embed"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"langmodel/internal/testing/toygguf"
)

// wllamaHarness is the page-side helper WllamaHandlers serves at
// /wllama-harness.js.
//
//go:embed wllama-harness.js
var wllamaHarness []byte

// WllamaHandlers returns Serve's extra handlers for llama.cpp in the page:
// wllama's ES module and files (@wllama/wllama, pinned in internal/npm) under
// /wllama/ (its entry is /wllama/index.js, its default build
// /wllama/wasm/wllama.wasm), its compat build for engines without JSPI or
// Memory64 (WebKit; @wllama/wllama-compat) under /wllama-compat/ (wllama.js,
// wllama.wasm), and /wllama-harness.js, whose newWllama(model) makes a loaded
// engine in any of the three engines:
//
//	const { newWllama } = await import("/wllama-harness.js");
//	const w = await newWllama("/model.gguf"); // a URL or a Blob
//	const r = await w.createChatCompletion({messages, tools});
//
// newWllama(model, {load, config}) passes load to loadModel (over
// {n_ctx: 2048, n_threads: 1, n_gpu_layers: 0, jinja: true}) and config to new
// Wllama (over {suppressNativeLog: true}: set it false to see llama.cpp's own
// log, e.g. why a model does not load). Where new Wllama() finds no storage
// (WebKit has no OPFS) the harness gives it a cache in memory, and it names the
// compat build served here with setCompat (wllama fetches it from a CDN by
// default); Chromium and Firefox keep the default build. wllama 3.13.0 does
// not run under Node 20 (no storage backend, then "navigator is not defined").
//
// It fails the test, naming make deps, when the packages are not installed.
func WllamaHandlers(tb testing.TB) map[string]http.Handler {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	modules := filepath.Join(filepath.Dir(here), "..", "..", "npm", "node_modules", "@wllama")
	esm := filepath.Join(modules, "wllama", "esm")
	compat := filepath.Join(modules, "wllama-compat", "wasm")
	for _, f := range []string{filepath.Join(esm, "index.js"), filepath.Join(esm, "wasm", "wllama.wasm"),
		filepath.Join(compat, "wllama.js"), filepath.Join(compat, "wllama.wasm")} {
		if _, err := os.Stat(f); err != nil {
			tb.Fatalf("browsertest: wllama is not installed (%v): run make deps", err)
		}
	}
	return map[string]http.Handler{
		"/wllama/":        http.StripPrefix("/wllama/", http.FileServer(http.Dir(esm))),
		"/wllama-compat/": http.StripPrefix("/wllama-compat/", http.FileServer(http.Dir(compat))),
		"/wllama-harness.js": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write(wllamaHarness)
		}),
	}
}

// GGUF returns a handler that serves the toy model for s (internal/testing/toygguf),
// written once, as application/octet-stream with Content-Length and Range
// support, e.g. {"/weather.gguf": GGUF(t, toygguf.Weather)}.
func GGUF(tb testing.TB, s toygguf.Script) http.Handler {
	tb.Helper()
	model, err := toygguf.Bytes(s)
	if err != nil {
		tb.Fatalf("browsertest: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(model))
	})
}

// GGUFCut returns a handler that starts serving the toy model for s, with the
// whole model's Content-Length, and drops the connection after the first n
// bytes: a download that fails midway.
func GGUFCut(tb testing.TB, s toygguf.Script, n int) http.Handler {
	tb.Helper()
	model, err := toygguf.Bytes(s)
	if err != nil {
		tb.Fatalf("browsertest: %v", err)
	}
	if n < 0 || n >= len(model) {
		tb.Fatalf("browsertest: GGUFCut after %d bytes of a %d-byte model", n, len(model))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(model)))
		w.WriteHeader(http.StatusOK)
		w.Write(model[:n])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // net/http drops the connection without logging
	})
}

// SkipCompat skips t in WebKit, whose llama.cpp is wllama's compat build (Asyncify,
// 32-bit memory, one thread): each model it loads costs seconds of CPU (about 3 s before
// the first answer on a quiet machine, where Chromium takes 0.3 s), and WebKit's rows
// over llama.cpp were the suite's longest wait. why names the row's subject, which no
// browser changes: the module's own logic (a chain, the text protocol, the loop's
// limits, the reasoning split, tool search) or a toy model's script. Chromium and
// Firefox play every row; WebKit plays those the page takes part in (a download and the
// cache, a File, streams, worker mode, abort, the weights' memory) and one model's
// tool loop, which shows the compat build reads and writes calls as the others do.
func SkipCompat(t *testing.T, b *Browser, why string) {
	t.Helper()
	if b.Engine == WebKit && why != "" {
		t.Skip("WebKit runs llama.cpp's compat build; this row's subject is " + why + ", the same in every engine")
	}
}
