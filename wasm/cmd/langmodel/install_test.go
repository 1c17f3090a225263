//go:build !js

package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

// TestBrowser_InstallStreaming: install() compiles the module as it streams when the
// server sends it as application/wasm (V8 then caches the compiled code for a repeat
// visit), and downloads then compiles it otherwise, with download progress either way.
func TestBrowser_InstallStreaming(t *testing.T) {
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/langmodel.wasm": browsertest.File(moduleWasm),
		"/octet/langmodel.wasm": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			http.ServeFile(w, r, moduleWasm)
		}),
		"/wasm_exec.js":       browsertest.File(browsertest.WasmExecJS(t)),
		"/octet/wasm_exec.js": browsertest.File(browsertest.WasmExecJS(t)),
		"/js/":                http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js"))),
	})
	b := browsertest.Shared(t)
	for _, tc := range []struct{ name, wasm, want string }{
		{"application/wasm", "/langmodel.wasm", `{"calls":["instantiateStreaming"],"first":0,"last":1,"answer":"ok"}`},
		{"another type", "/octet/langmodel.wasm", `{"calls":["instantiate"],"first":0,"last":1,"answer":"ok"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.Open(t, base+"/")
			var got any
			require.NoError(t, p.Eval(t.Context(), `
				const calls = [];
				for (const name of ["instantiate", "instantiateStreaming"]) {
					const real = WebAssembly[name];
					WebAssembly[name] = function (...args) { calls.push(name); return real.apply(this, args); };
				}
				const lm = await import("/js/language-model.js");
				const installing = lm.install({ wasm: "`+tc.wasm+`" });
				const events = [];
				await lm.LanguageModel.create({ monitor(m) { m.addEventListener("downloadprogress", (e) => events.push(e.loaded)); } });
				await installing;
				const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }] } });
				return { calls, first: events[0], last: events.at(-1), answer: await s.prompt("x") };`, &got))
			requireJSON(t, tc.want, got)
		})
	}
}
