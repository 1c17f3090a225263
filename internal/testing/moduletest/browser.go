//go:build !js

package moduletest

// The browser pages the suites serve: the module, Go's wasm_exec.js and the face beside
// a page, a replay server on the page's origin, and the two modes a page runs the module in.

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/replay"
	"langmodel/internal/testing/toygguf"
)

// Serve serves the module, Go's wasm_exec.js and js/ under /js/ (the module and
// wasm_exec.js also beside it, where install() looks by default), beside root, and a
// replay server of recorded model streams under /r/ (internal/testing/replay), which the
// page reaches with its real fetch. Bodies go out in flushed pieces of 64 bytes, 1 ms
// apart, so that fetch sees many chunks, cut anywhere.
func Serve(t testing.TB, root string) string {
	return browsertest.Serve(t, root, ModuleHandlers(t))
}

// ModuleHandlers are Serve's handlers.
func ModuleHandlers(t testing.TB) map[string]http.Handler {
	return map[string]http.Handler{
		"/langmodel.wasm": browsertest.File(ModuleWasm),
		"/wasm_exec.js":   browsertest.File(browsertest.WasmExecJS(t)),
		"/js/":            http.StripPrefix("/js/", http.FileServer(http.Dir(Repo("js")))),
		// Where install() looks by default: beside the face, as in the npm package.
		"/js/langmodel.wasm": browsertest.File(ModuleWasm),
		"/js/wasm_exec.js":   browsertest.File(browsertest.WasmExecJS(t)),
		"/r/":                &replay.Server{Split: 64, Pause: time.Millisecond},
	}
}

// ServeWllama serves what serve does, plus real llama.cpp in the page (wllama, its
// compat build and the harness, browsertest.WllamaHandlers) and the project's toy GGUF
// models (internal/testing/toygguf) at /<name>.gguf.
func ServeWllama(t testing.TB) string {
	models := map[string]toygguf.Script{}
	for name, s := range map[string]toygguf.Script{
		"weather": toygguf.Weather, "text": toygguf.WeatherWithText, "always": toygguf.AlwaysCalls,
		"two": toygguf.TwoCalls, "hello": toygguf.Hello,
		// A chat template without tools, and a model that calls in the module's text protocol.
		"chatml-call": {Text: "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", Template: toygguf.ChatMLTemplate},
	} {
		models["/"+name+".gguf"] = s
	}
	return GGUFServer(t, models)
}

// GGUFServer serves wllama, the module and each toy model at its path (a GGUF test's
// page), and returns its base URL.
func GGUFServer(t testing.TB, models map[string]toygguf.Script) string {
	h := browsertest.WllamaHandlers(t)
	for path, s := range models {
		h[path] = browsertest.GGUF(t, s)
	}
	for path, handler := range ModuleHandlers(t) {
		h[path] = handler
	}
	return browsertest.Serve(t, "", h)
}

// BrowserPrelude loads and installs the face in the page, as NewHost does in
// the wazero host; LLM is the replay server (same origin).
const BrowserPrelude = `
globalThis.LLM = location.origin;
globalThis.lm = await import("/js/language-model.js");
globalThis.installResult = await lm.install({ wasm: "/langmodel.wasm" });
`

// Mode is a way for a page to run the module: on its own thread, or in a Worker
// (install({worker: true})). face imports the face as globalThis.lm; in worker mode its
// install adds worker: true to whatever a test passes, so that every test body runs
// unchanged in both modes.
type Mode struct{ Name, Face string }

var Modes = []Mode{
	{"page", `globalThis.lm = await import("/js/language-model.js");`},
	{"worker", `const face = await import("/js/language-model.js");
globalThis.lm = { ...face, install: (config = {}) => face.install({ ...config, worker: true }) };`},
}

// Prelude is BrowserPrelude in mode m.
func (m Mode) Prelude() string {
	return "globalThis.LLM = location.origin;\n" + m.Face + "\nglobalThis.installResult = await lm.install({ wasm: \"/langmodel.wasm\" });\n"
}

// PlayPooled runs js in a page of pages (the module installed, and other rows played
// there before) and returns its value: a real page runs many sessions one after another,
// and a row that cannot share its page with the rows before it is a bug the row found.
func PlayPooled(t *testing.T, pages *browsertest.Pool, js string) any {
	t.Helper()
	var got any
	require.NoError(t, pages.Eval(t, js, &got))
	return got
}

// PlayBrowser opens a page of base, runs prelude, then js, and returns js's value.
func PlayBrowser(t *testing.T, b *browsertest.Browser, base, prelude, js string) any {
	t.Helper()
	p := b.Open(t, base+"/")
	require.NoError(t, p.Eval(t.Context(), prelude, nil))
	var got any
	require.NoError(t, p.Eval(t.Context(), js, &got))
	return got
}

// GGUFPage defines gguf(model), the gguf backend over the wllama module served here (its
// files named, the compat build for WebKit among them), and a query unique to the page,
// so that a model the browser cached for another page is not this page's.
const GGUFPage = `
const wllama = await import("/wllama/index.js");
globalThis.gguf = (model, extra) => ({ kind: "gguf", model, wllama, paths: { default: "/wllama/wasm/wllama.wasm" },
	compat: { wasm: "/wllama-compat/wllama.wasm", worker: "/wllama-compat/wllama.js" }, ...extra });
globalThis.run = String(Math.random()).slice(2);
globalThis.getWeather = (execute) => ({ name: "get_weather", description: "The weather in a city",
	inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, execute });
globalThis.ask = "What is the weather in Paris?";
globalThis.caught = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + ": " + e.message.replaceAll(location.origin, ""); } };
globalThis.bytes = async (path) => (await fetch(path)).blob();
`

// EngineCtx bounds an Eval that runs llama.cpp: WebKit's compat build takes seconds a
// completion, and many more on a loaded machine, where browsertest's 30 s default is short.
func EngineCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
