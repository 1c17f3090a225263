//go:build !js

package gguf

import (
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/toygguf"
)

// gate holds downloads of a model halfway until the page releases them: a download
// that is surely under way, with a progress event between 0 and 1.
type gate struct {
	mu    sync.Mutex
	model []byte
	open  map[string]chan struct{}
	// fetches counts the requests for /counted.gguf by query.
	fetches map[string]int
}

func (g *gate) ch(key string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.open[key]
	if !ok {
		c = make(chan struct{})
		g.open[key] = c
	}
	return c
}

// model serves the model's first half, then the rest once /release?<same query> came.
func (g *gate) serveModel(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(g.model)))
	w.WriteHeader(http.StatusOK)
	half := len(g.model) / 2
	w.Write(g.model[:half])
	w.(http.Flusher).Flush()
	select {
	case <-g.ch(r.URL.RawQuery):
	case <-r.Context().Done():
		return
	}
	w.Write(g.model[half:])
}

func (g *gate) release(w http.ResponseWriter, r *http.Request) {
	c := g.ch(r.URL.RawQuery)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-c:
	default:
		close(c)
	}
}

// serveGGUF serves serveWllama's files and models for the gguf backend: /weather.gguf,
// /text.gguf, /chatml.gguf (a template without tools, a context of 2000), /chatml-call.gguf
// (a template without tools, and a model that calls in the text protocol), /gated.gguf
// (held halfway until /release), /cut.gguf (the connection dropped after 1000 bytes),
// /page.gguf (an HTML page), /missing.gguf (404), and /counted.gguf, whose requests
// /fetches?<same query> counts.
func serveGGUF(t *testing.T) string {
	model, err := toygguf.Bytes(toygguf.Weather)
	require.NoError(t, err)
	g := &gate{model: model, open: map[string]chan struct{}{}, fetches: map[string]int{}}
	h := browsertest.WllamaHandlers(t)
	h["/weather.gguf"] = browsertest.GGUF(t, toygguf.Weather)
	h["/text.gguf"] = browsertest.GGUF(t, toygguf.WeatherWithText)
	h["/chatml.gguf"] = browsertest.GGUF(t, toygguf.Script{Text: "Hello from llama.cpp.", Template: toygguf.ChatMLTemplate, ContextLength: 2000})
	h["/chatml-call.gguf"] = browsertest.GGUF(t, toygguf.Script{Text: "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```", Template: toygguf.ChatMLTemplate})
	h["/gated.gguf"] = http.HandlerFunc(g.serveModel)
	h["/release"] = http.HandlerFunc(g.release)
	weather := browsertest.GGUF(t, toygguf.Weather)
	h["/counted.gguf"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.fetches[r.URL.RawQuery]++
		g.mu.Unlock()
		weather.ServeHTTP(w, r)
	})
	h["/fetches"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		w.Write([]byte(strconv.Itoa(g.fetches[r.URL.RawQuery])))
	})
	h["/cut.gguf"] = browsertest.GGUFCut(t, toygguf.Weather, 1000)
	h["/page.gguf"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>Not here</title>"))
	})
	for path, handler := range moduletest.ModuleHandlers(t) {
		h[path] = handler
	}
	return browsertest.Serve(t, "", h)
}

// TestBrowser_GGUF runs the gguf backend (js/gguf.js) over real llama.cpp (wllama 3.13.0)
// with the project's toy models, in every engine, with the module on the page and in a
// Worker: a URL's download story (availability, progress, the cache), a File, and the
// faults: a download that fails or is refused, a file that is not a GGUF, a truncated one,
// and bad options; and docs/backends.md's example of it.
func TestBrowser_GGUF(t *testing.T) {
	base := serveGGUF(t)
	// docs/backends.md's example, on the toy model served here.
	doc := moduletest.DocBlocks(t, "TestBrowser_GGUF")[0]
	doc = moduletest.Replace(t, doc, `import * as wllama from "@wllama/wllama";`, `const wllama = await import("/wllama/index.js");
		const wasmURL = "/wllama/wasm/wllama.wasm", compatWasmURL = "/wllama-compat/wllama.wasm", compatWorkerURL = "/wllama-compat/wllama.js";
		const progressBar = { value: -1 }, weatherTool = getWeather(() => "sunny");`)
	doc = moduletest.Replace(t, doc, `"https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf"`, `"/weather.gguf?doc" + run`)
	// The rows WebKit leaves to Chromium and Firefox (browsertest.SkipCompat), and why:
	// docs/backends.md's example loads a URL as the first row does, and WebKit plays that.
	sameInEveryEngine := map[string]string{
		"docs/backends.md's example": "the docs' text, which the first row's download covers",
		"a template without tools: the text protocol, the model's own context":                                               "the text protocol",
		"a template without tools: the open loop through the text protocol, unasked":                                         "the text protocol",
		"a chain: a GGUF that cannot load hands on to the next member; a later one loads when a step first falls back to it": "the chain",
	}
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(moduletest.EngineCtx(t), m.Prelude()+moduletest.GGUFPage, nil))
				for _, tc := range []struct{ name, js, want string }{
					{"a URL: downloadable, downloading with progress from 0 to 1, then available and cached", `
						const url = "/gated.gguf?" + run;
						const before = await LanguageModel.availability({ backend: gguf(url) });
						const events = [];
						let started;
						const halfway = new Promise((res) => { started = res; });
						const creating = LanguageModel.create({ backend: gguf(url), tools: [getWeather(() => "sunny")],
							monitor(m) { m.addEventListener("downloadprogress", (e) => { events.push(e.loaded); if (e.loaded > 0) started(); }); } });
						await halfway;
						const during = await LanguageModel.availability({ backend: gguf(url) });
						await fetch("/release?" + run);
						const s = await creating;
						const after = await LanguageModel.availability({ backend: gguf(url) });
						const answer = await s.prompt(ask);
						const again = [];
						const s2 = await LanguageModel.create({ backend: gguf(url), monitor(m) { m.addEventListener("downloadprogress", (e) => again.push(e.loaded)); } });
						return { before, during, after, answer, first: events[0], last: events.at(-1), between: events.some((f) => f > 0 && f < 1),
							rising: events.every((f, i) => i === 0 || f > events[i - 1]), again: again.at(-1),
							window: s.contextWindow, usage: s.contextUsage > 0 && s.contextUsage < s.contextWindow, roles: s.history.map((m) => m.role),
							hello: s2.contextWindow };`,
						`{"before":"downloadable","during":"downloading","after":"available","answer":"It is sunny in Paris.","first":0,"last":1,"between":true,
						  "rising":true,"again":1,"window":4096,"usage":true,"roles":["user","tool-call","tool-result","assistant"],"hello":4096}`},
					{"docs/backends.md's example", doc + `
						return { before, answer, bar: progressBar.value };`,
						`{"before":"downloadable","answer":"It is sunny in Paris.","bar":1}`},
					{"a File: available, the open loop", `
						const file = new File([await bytes("/text.gguf")], "text.gguf");
						const there = await LanguageModel.availability({ backend: gguf(file) });
						const events = [];
						const s = await LanguageModel.create({ backend: gguf(file), tools: [getWeather()],
							expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
							monitor(m) { m.addEventListener("downloadprogress", (e) => events.push(e.loaded)); } });
						const first = await s.prompt(ask);
						return { there, events, first: first.map((p) => p.type === "text" ? p.value : [p.value.name, p.value.arguments]) };`,
						`{"there":"available","events":[0,1],"first":["Let me check the weather.",["get_weather",{"city":"Paris"}]]}`},
					{"a template without tools: the text protocol, the model's own context", `
						const s = await LanguageModel.create({ backend: gguf("/chatml.gguf?" + run, { nativeTools: false }), tools: [getWeather(() => "sunny")] });
						return { answer: await s.prompt("Hi"), window: s.contextWindow, roles: s.history.map((m) => m.role) };`,
						`{"answer":"Hello from llama.cpp.","window":2000,"roles":["user","assistant"]}`},
					{"a template without tools: the open loop through the text protocol, unasked", `
						const s = await LanguageModel.create({ backend: gguf("/chatml-call.gguf?" + run), tools: [getWeather()],
							expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
						const first = await s.prompt(ask);
						return { first: first.map((p) => p.type === "text" ? p.value : [p.value.name, p.value.arguments]), roles: s.history.map((m) => m.role) };`,
						`{"first":[["get_weather",{"city":"Paris"}]],"roles":["user","tool-call"]}`},
					{"a download cut midway: NetworkError naming the URL, nothing cached", `
						const url = "/cut.gguf?" + run;
						const r = await caught(LanguageModel.create({ backend: gguf(url) }));
						return { r: r.startsWith("NetworkError: could not download the model at " + url + ": "), after: await LanguageModel.availability({ backend: gguf(url) }) };`,
						`{"r":true,"after":"downloadable"}`},
					{"a download refused: NetworkError with the status", `
						return await caught(LanguageModel.create({ backend: gguf("/missing.gguf") }));`,
						`"NetworkError: could not download the model at /missing.gguf: HTTP 404"`},
					{"a URL that is not a GGUF: DataError, nothing cached", `
						const r = await caught(LanguageModel.create({ backend: gguf("/page.gguf") }));
						return { r, after: await LanguageModel.availability({ backend: gguf("/page.gguf") }) };`,
						`{"r":"DataError: /page.gguf is not a GGUF model: it starts with \"<!do\", not \"GGUF\"","after":"downloadable"}`},
					{"a truncated file: DataError", `
						const whole = await bytes("/weather.gguf");
						const cut = new File([whole.slice(0, whole.size - 100)], "weather.gguf");
						const head = new File([whole.slice(0, 100)], "weather.gguf");
						return [await caught(LanguageModel.create({ backend: gguf(cut) })), await caught(LanguageModel.create({ backend: gguf(head) })),
							(await caught(LanguageModel.create({ backend: gguf(new Blob(["GGUF"])) })))];`,
						`["DataError: the file weather.gguf is truncated: ` + strconv.Itoa(len(toyBytes(t))-100) + ` bytes, where its GGUF header describes ` + strconv.Itoa(len(toyBytes(t))) + `",
						  "DataError: the file weather.gguf is truncated: it ends within its GGUF header (100 bytes)",
						  "DataError: blob 0 is truncated: it ends within its GGUF header (4 bytes)"]`},
					{"bad options: TypeError", `
						return [await caught(LanguageModel.create({ backend: { kind: "gguf", model: "/weather.gguf" } })),
							await caught(LanguageModel.create({ backend: gguf(42) })),
							await caught(LanguageModel.availability({ backend: gguf("/weather.gguf", { paths: undefined }) }))];`,
						`["TypeError: invalid backend: backend.wllama must be the wllama module (import * as wllama from \"@wllama/wllama\")",
						  "TypeError: invalid backend: backend.model must be a GGUF's URL, a File or Blob, or an array of Blobs (a split model)",
						  "TypeError: invalid backend: backend.paths must name wllama's files as new Wllama() takes them: {default: the URL of its wllama.wasm}"]`},
					{"a chain: a GGUF that cannot load hands on to the next member; a later one loads when a step first falls back to it", `
						const whole = await bytes("/weather.gguf");
						const broken = new File([whole.slice(0, 100)], "broken.gguf");
						const first = await LanguageModel.create({ backend: { kind: "chain", backends: [gguf(broken), { kind: "custom", generate: () => "from custom" }] } });
						const down = { kind: "custom", generate: () => { throw new DOMException("down", "NetworkError"); } };
						const later = await LanguageModel.create({ backend: { kind: "chain", backends: [down, gguf(new File([whole], "chained.gguf"))] }, tools: [getWeather(() => "sunny")] });
						const steps = [];
						later.onstepusage = (e) => steps.push(e.detail.backend);
						return { first: await first.prompt("hi"), later: await later.prompt(ask), steps, roles: later.history.map((m) => m.role) };`,
						`{"first":"from custom","later":"It is sunny in Paris.","steps":[1,1],"roles":["user","tool-call","tool-result","assistant"]}`},
				} {
					t.Run(tc.name, func(t *testing.T) {
						browsertest.SkipCompat(t, b, sameInEveryEngine[tc.name])
						var got any
						require.NoError(t, p.Eval(moduletest.EngineCtx(t), `const { LanguageModel } = lm;`+tc.js, &got))
						moduletest.RequireJSON(t, tc.want, got)
					})
				}
				for _, line := range p.Console() {
					require.NotContains(t, line, "exception:")
				}
			})
		}
		// A page written for Chrome's API: the model is install()'s default backend, and
		// create() and availability() name none.
		t.Run("the default backend", func(t *testing.T) {
			p := b.Open(t, base+"/")
			var got any
			require.NoError(t, p.Eval(moduletest.EngineCtx(t), `globalThis.lm = await import("/js/language-model.js");`+moduletest.GGUFPage+`
				await lm.install({ wasm: "/langmodel.wasm", backend: gguf("/weather.gguf?default" + run) });
				const before = await LanguageModel.availability();
				const events = [];
				const s = await LanguageModel.create({ tools: [getWeather(() => "sunny")], monitor(m) { m.addEventListener("downloadprogress", (e) => events.push(e.loaded)); } });
				return { before, first: events[0], last: events.at(-1), after: await LanguageModel.availability(), answer: await s.prompt(ask),
					other: await LanguageModel.availability({ backend: { kind: "scripted" } }) };`, &got))
			moduletest.RequireJSON(t, `{"before":"downloadable","first":0,"last":1,"after":"available","answer":"It is sunny in Paris.","other":"available"}`, got)
		})
		// The next visit: a model one page downloaded is "available" to the next page of
		// the origin and loaded from wllama's cache (OPFS) without a request. browsertest
		// opens every page in a storage context of its own, so the next visit is a fresh
		// copy of js/gguf.js (none of the page's loads) in the same page. WebKit has no
		// OPFS: its cache lasts as long as the page's copy of js/gguf.js.
		t.Run("the next visit", func(t *testing.T) {
			want := `{"before":"available","fetches":"1","answer":"It is sunny in Paris."}`
			if b.Engine == browsertest.WebKit {
				want = `{"before":"downloadable","fetches":"2","answer":"It is sunny in Paris."}`
			}
			p := b.Open(t, base+"/")
			var got any
			require.NoError(t, p.Eval(moduletest.EngineCtx(t), moduletest.Modes[0].Prelude()+moduletest.GGUFPage+`
				const backend = gguf("/counted.gguf?" + run);
				(await lm.LanguageModel.create({ backend })).destroy();
				const next = await import("/js/gguf.js?next-visit");
				const before = await next.ggufAvailability(backend).there;
				const s = await lm.LanguageModel.create({ backend: await next.ggufBackend(backend, null), tools: [getWeather(() => "sunny")] });
				return { before, fetches: await (await fetch("/fetches?" + run)).text(), answer: await s.prompt(ask) };`, &got))
			moduletest.RequireJSON(t, want, got)
		})
	})
}

func toyBytes(t *testing.T) []byte {
	b, err := toygguf.Bytes(toygguf.Weather)
	require.NoError(t, err)
	return b
}

// TestBrowser_GGUFWeightsHeldOnce: a model loaded through {kind: "gguf"} is held by
// llama.cpp (in wllama's worker) and never copied into the module: the module's
// WebAssembly.Memory grows by much less than the model's size while a 51 MB model (the
// Weather toy with a larger, all-zero feed-forward) downloads, loads and answers. The
// page captures the module's memory as js/load.js instantiates it; a session over the
// small toy model runs first, so that what the module's code needs is there before; 8 MB
// of text sent into the module afterwards shows that a copy would.
func TestBrowser_GGUFWeightsHeldOnce(t *testing.T) {
	big := toygguf.Weather
	big.FeedForward = 65536
	model, err := toygguf.Bytes(big)
	require.NoError(t, err)
	base := moduletest.GGUFServer(t, map[string]toygguf.Script{"/weather.gguf": toygguf.Weather, "/big.gguf": big})
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		var got struct {
			Answer, Big            string
			Before, After, Control float64
		}
		require.NoError(t, p.Eval(moduletest.EngineCtx(t), `
			const instantiate = WebAssembly.instantiate;
			WebAssembly.instantiate = async function (...args) {
				const r = await instantiate.apply(this, args);
				const exports = (r.instance ?? r).exports;
				if (exports.lm_send) globalThis.moduleMemory = exports.mem;
				return r;
			};
			`+moduletest.BrowserPrelude+moduletest.GGUFPage+`
			const ask = async (model) => {
				const s = await lm.LanguageModel.create({ backend: gguf(model + "?" + run), tools: [getWeather(() => "sunny")] });
				const answer = await s.prompt("What is the weather in Paris?");
				s.destroy();
				return answer;
			};
			const answer = await ask("/weather.gguf");
			const before = moduleMemory.buffer.byteLength;
			const bigAnswer = await ask("/big.gguf");
			const after = moduleMemory.buffer.byteLength;
			// The control: 8 MB of text that does cross into the module shows.
			await (await lm.LanguageModel.create({ backend: { kind: "scripted" } })).measureContextUsage("x".repeat(8 << 20));
			return { answer, big: bigAnswer, before, after, control: moduleMemory.buffer.byteLength };`, &got))
		require.Equal(t, "It is sunny in Paris.", got.Answer)
		require.Equal(t, "It is sunny in Paris.", got.Big)
		t.Logf("%s: model %d bytes; the module's memory %.0f bytes before, %.0f after (+%.0f); %.0f after 8 MB of text", b.Engine, len(model), got.Before, got.After, got.After-got.Before, got.Control)
		require.Less(t, got.After-got.Before, float64(len(model))/8, "the module's memory grew by more than an eighth of the model's size")
		require.GreaterOrEqual(t, got.Control-got.After, float64(8<<20), "8 MB of text sent to the module did not show in its memory")
	})
}
