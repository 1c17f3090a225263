// Command serve serves the demo page for `make demo`: demo/ under /demo/, the JS face
// js/ under /js/, and the build output (build/langmodel.wasm, build/wasm_exec.js) under
// /build/, on 127.0.0.1. The page imports ../js/language-model.js and loads
// ../build/langmodel.wasm, so any static server started at the repository's root serves
// it the same way; this one only adds what the page needs: content types that do not
// depend on the machine's mime.types (application/wasm for the module, text/javascript
// for module scripts), no caching (a rebuilt module is picked up on reload), and
// nothing else of the repository.
//
// For the in-page model (llama.cpp, wllama) it also serves, when `make deps` has
// installed them (internal/npm), wllama's ES module and default build under /wllama/
// and its compat build (WebKit) under /wllama-compat/, and the project's toy GGUF
// (internal/testing/toygguf's Clock, written at start, never committed) at /models/toy.gguf.
//
// It is a separate program, not part of the module: net/http never reaches the .wasm.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"langmodel/internal/testing/toygguf"
)

var contentTypes = map[string]string{
	".wasm": "application/wasm",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".ts":   "text/plain; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".gguf": "application/octet-stream",
}

// handler serves the three folders of root (the repository) that the page uses, wllama
// and the toy model.
func handler(root string, toy []byte) http.Handler {
	mux := http.NewServeMux()
	for _, dir := range []string{"demo", "js", "build"} {
		prefix := "/" + dir + "/"
		mux.Handle(prefix, http.StripPrefix(prefix, http.FileServer(http.Dir(filepath.Join(root, dir)))))
	}
	wllama := filepath.Join(root, "internal", "npm", "node_modules", "@wllama")
	mux.Handle("/wllama/", http.StripPrefix("/wllama/", http.FileServer(http.Dir(filepath.Join(wllama, "wllama", "esm")))))
	mux.Handle("/wllama-compat/", http.StripPrefix("/wllama-compat/", http.FileServer(http.Dir(filepath.Join(wllama, "wllama-compat", "wasm")))))
	mux.HandleFunc("/models/toy.gguf", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "toy.gguf", time.Time{}, bytes.NewReader(toy))
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/demo/", http.StatusFound) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		if ct, ok := contentTypes[path.Ext(r.URL.Path)]; ok {
			h.Set("Content-Type", ct)
		}
		mux.ServeHTTP(w, r)
	})
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	root := flag.String("root", ".", "the repository's root (holds demo/, js/ and build/)")
	flag.Parse()

	for _, f := range []string{"demo/index.html", "js/language-model.js", "build/langmodel.wasm", "build/wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(*root, f)); err != nil {
			fmt.Fprintf(os.Stderr, "demo/serve: %s is missing under %s (run `make demo`, which builds the module first)\n", f, *root)
			os.Exit(1)
		}
	}
	if _, err := os.Stat(filepath.Join(*root, "internal/npm/node_modules/@wllama/wllama/esm/index.js")); err != nil {
		fmt.Fprintln(os.Stderr, "demo/serve: wllama is not installed (run `make deps`): the in-page model will not load")
	}
	toy, err := toygguf.Bytes(toygguf.Clock)
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo/serve: %v\n", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(os.Stderr, "demo/serve: %s is already in use; pick another address: make demo ADDR=127.0.0.1:8081 (or -addr)\n", *addr)
		} else {
			fmt.Fprintf(os.Stderr, "demo/serve: %v\n", err)
		}
		os.Exit(1)
	}
	fmt.Printf("langmodel demo: http://%s/demo/  (Ctrl-C to stop)\n", ln.Addr())
	if err := http.Serve(ln, handler(*root, toy)); err != nil {
		fmt.Fprintf(os.Stderr, "demo/serve: %v\n", err)
		os.Exit(1)
	}
}
