//go:build !js

package llamacpp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// wllamaPage loads a toy model into a wllama engine (engine(name)) and defines the tool
// the models call. One engine lives at a time: asking for another model exits the one
// before, since each holds its own wasm memory and WebKit, with the module in a Worker,
// runs out of memory at the sixth (RangeError: Out of memory in wllama's initMemory).
const wllamaPage = `
const { newWllama } = await import("/wllama-harness.js");
let loaded = { model: "", engine: null };
globalThis.engine = async (model) => {
	if (loaded.model === model) return loaded.engine;
	await loaded.engine?.exit();
	loaded = { model, engine: await newWllama("/" + model + ".gguf") };
	return loaded.engine;
};
globalThis.backend = async (model, extra) => ({ kind: "engine", engine: await engine(model), ...extra });
globalThis.getWeather = (execute) => ({ name: "get_weather", description: "The weather in a city",
	inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, execute });
globalThis.ask = "What is the weather in Paris?";
globalThis.caught = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + ": " + e.message; } };
globalThis.read = async (stream) => { const r = stream.getReader(); const out = []; for (;;) { const { done, value } = await r.read(); if (done) return out; out.push(value); } };
`

// TestBrowser_Wllama runs the engine backend over real llama.cpp (wllama 3.13.0) with the
// project's toy models, in every engine, with the module on the page and in a Worker:
// the closed loop's two turns (with the context window wllama was loaded with), the open loop (through the text protocol
// when the model's template has no tools), streaming, parallel calls, maxToolCalls,
// a responseConstraint held by llama.cpp's grammar, abort mid-generation, and an engine that throws mid-stream.
func TestBrowser_Wllama(t *testing.T) {
	base := moduletest.ServeWllama(t)
	// The rows WebKit leaves to Chromium and Firefox (browsertest.SkipCompat), and why.
	// The rows that share a model follow each other: each model loaded is a new engine.
	sameInEveryEngine := map[string]string{
		"open loop: text, a call, then the answer":                                                  "the open loop",
		"a template without tools: the open loop through the text protocol, unasked":                "the text protocol",
		"responseConstraint enforced while decoding by llama.cpp's grammar":                         "llama.cpp's grammar, its C++ in every build",
		"two calls in one turn, run in parallel":                                                    "the closed loop's parallel calls",
		"maxToolCalls against a model that always calls":                                            "the loop's limit",
		"responseConstraint with tools: the call is written freely, the answer held by the grammar": "the repair round",
	}
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(moduletest.EngineCtx(t), m.Prelude()+wllamaPage, nil))
				for _, tc := range []struct{ name, js, want string }{
					{"closed loop, two turns", `
						const args = [];
						const s = await LanguageModel.create({ backend: await backend("weather"), tools: [getWeather((a) => { args.push(a); return "sunny"; })] });
						const answer = await s.prompt(ask);
						const calls = s.history.filter((m) => m.role === "tool-call").map((m) => [m.content[0].value.name, m.content[0].value.arguments]);
						return { answer, args, calls, roles: s.history.map((m) => m.role), usage: s.contextUsage > 0 && s.contextUsage <= s.contextWindow, window: s.contextWindow };`,
						`{"answer":"It is sunny in Paris.","args":[{"city":"Paris"}],"calls":[["get_weather",{"city":"Paris"}]],
						  "roles":["user","tool-call","tool-result","assistant"],"usage":true,"window":2048}`},
					{"streaming a closed loop", `
						const s = await LanguageModel.create({ backend: await backend("weather"), tools: [getWeather(() => "sunny")] });
						const chunks = await read(s.promptStreaming(ask));
						return { text: chunks.join(""), pieces: chunks.length > 1 };`,
						`{"text":"It is sunny in Paris.","pieces":true}`},
					{"responseConstraint with tools: the call is written freely, the answer held by the grammar", `
						// docs/small-windows.md, "Structured output with tools": a step that offers tools sends no response_format (the
						// grammar would leave the model no way to call); its answer ("It is sunny
						// in Paris.") fails the check, and the repair round, which offers no tools,
						// sends it: llama.cpp's grammar then writes JSON that matches.
						const w = await engine("weather");
						const formats = [];
						const counted = { createChatCompletion: (req) => (formats.push(Boolean(req.response_format)), w.createChatCompletion(req)) };
						const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
						const ran = [];
						const s = await LanguageModel.create({ backend: { kind: "engine", engine: counted }, tools: [getWeather((a) => (ran.push(a.city), "sunny"))] });
						const answer = JSON.parse(await s.prompt(ask, { responseConstraint: schema }));
						return { ran, keys: Object.keys(answer), roles: s.history.map((m) => m.role), formats };`,
						`{"ran":["Paris"],"keys":["ok"],"roles":["user","tool-call","tool-result","assistant"],"formats":[false,false,true]}`},
					{"open loop: text, a call, then the answer", `
						const s = await LanguageModel.create({ backend: await backend("text"), tools: [getWeather()],
							expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
						const first = await s.prompt(ask);
						const call = first.find((p) => p.type === "tool-call").value;
						const second = await s.prompt([{ role: "user", content: [{ type: "tool-response", value: { callId: call.callId, name: call.name, result: [{ type: "text", value: "sunny" }] } }] }]);
						return { first: first.map((p) => p.type === "text" ? p.value : [p.value.name, p.value.arguments]), second };`,
						`{"first":["Let me check the weather.",["get_weather",{"city":"Paris"}]],"second":[{"type":"text","value":"It is sunny in Paris."}]}`},
					{"a template without tools: the open loop through the text protocol, unasked", `
						const s = await LanguageModel.create({ backend: await backend("chatml-call"), tools: [getWeather()],
							expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
						const first = await s.prompt(ask);
						return { first: first.map((p) => p.type === "text" ? p.value : [p.value.name, p.value.arguments]), roles: s.history.map((m) => m.role) };`,
						`{"first":[["get_weather",{"city":"Paris"}]],"roles":["user","tool-call"]}`},
					{"two calls in one turn, run in parallel", `
						const ran = [];
						const s = await LanguageModel.create({ backend: await backend("two"), tools: [getWeather((a) => { ran.push(a.city); return a.city === "Paris" ? "sunny" : "rainy"; })] });
						const answer = await s.prompt(ask);
						return { answer, ran: ran.sort(), roles: s.history.map((m) => m.role) };`,
						`{"answer":"Sunny in Paris, rainy in London.","ran":["London","Paris"],"roles":["user","tool-call","tool-call","tool-result","tool-result","assistant"]}`},
					{"maxToolCalls against a model that always calls", `
						const s = await LanguageModel.create({ backend: await backend("always"), tools: [getWeather(() => "sunny")], toolUseConfig: { maxToolCalls: 2 } });
						return { r: await caught(s.prompt(ask)), history: s.history.length };`,
						`{"r":"OperationError: tool call limit reached: maxToolCalls is 2 and the model asked for call 3 (get_weather)","history":0}`},
					{"responseConstraint enforced while decoding by llama.cpp's grammar", `
						// The toy model answers "Hello from llama.cpp." whatever it is asked: with
						// the schema as response_format, llama.cpp's grammar lets it write only JSON
						// that matches, in the one call (no repair round: that would fail again).
						const w = await engine("hello");
						let calls = 0;
						const counted = { createChatCompletion: (req) => (calls++, w.createChatCompletion(req)) };
						const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
						const s = await LanguageModel.create({ backend: { kind: "engine", engine: counted } });
						const free = await s.prompt("Hi");
						const answer = JSON.parse(await s.prompt("Hi", { responseConstraint: schema }));
						return { free, keys: Object.keys(answer), ok: typeof answer.ok, calls };`,
						`{"free":"Hello from llama.cpp.","keys":["ok"],"ok":"boolean","calls":2}`},
					{"abort mid-generation", `
						// wllama as it is, its third chunk (the first is the role, the second the
						// first text) held back until the prompt's abort has reached the engine's
						// abortSignal, so that the abort falls mid-stream (wllama may have finished
						// decoding by then: its stream is fed by its worker, not by the reader).
						const w = await engine("hello");
						let signal;
						let calls = 0;
						const spy = { async createChatCompletion(req) {
							const held = calls++ === 0; // the aborted prompt's call, not the next one
							if (held) signal = req.abortSignal;
							const it = (await w.createChatCompletion(req))[Symbol.asyncIterator]();
							let n = 0;
							return { [Symbol.asyncIterator]: () => ({
								next: async () => {
									if (!held) return it.next();
									if (n++ === 2) await new Promise((res) => signal.aborted ? res() : signal.addEventListener("abort", res));
									return it.next();
								},
								return: (v) => it.return?.(v) ?? Promise.resolve({ done: true, value: v }),
							}) };
						} };
						const s = await LanguageModel.create({ backend: { kind: "engine", engine: spy } });
						const ac = new AbortController();
						const reader = s.promptStreaming("Hi", { signal: ac.signal }).getReader();
						const first = (await reader.read()).value;
						ac.abort();
						let r = "done";
						try { for (;;) if ((await reader.read()).done) break; } catch (e) { r = e.name; }
						for (let i = 0; i < 400 && !signal.aborted; i++) await new Promise((res) => setTimeout(res, 5));
						return { first: typeof first, r, engineSignal: signal.aborted, history: s.history.length, next: await s.prompt("Hi"), after: s.history.length };`,
						`{"first":"string","r":"AbortError","engineSignal":true,"history":0,"next":"Hello from llama.cpp.","after":2}`},
					{"an engine that throws mid-stream", `
						const w = await engine("hello");
						// wllama as it is, except that its stream fails after its second chunk.
						const failing = { async createChatCompletion(req) {
							const it = (await w.createChatCompletion(req))[Symbol.asyncIterator]();
							let n = 0;
							return { [Symbol.asyncIterator]: () => ({ next: async () => {
								if (++n > 2) { await it.return?.(); throw new Error("llama_decode failed"); }
								return it.next();
							}, return: () => it.return?.() }) };
						} };
						const s = await LanguageModel.create({ backend: await backend("hello") });
						await s.prompt("Hi");
						const before = JSON.stringify(s.history);
						const f = await LanguageModel.create({ backend: { kind: "engine", engine: failing }, initialPrompts: s.history });
						const r = await caught(f.prompt("Hi again"));
						return { r, unchanged: JSON.stringify(f.history) === before, next: await s.prompt("Hi") };`,
						`{"r":"OperationError: the model failed: the in-page engine failed: llama_decode failed","unchanged":true,"next":"Hello from llama.cpp."}`},
				} {
					t.Run(tc.name, func(t *testing.T) {
						browsertest.SkipCompat(t, b, sameInEveryEngine[tc.name])
						var got any
						require.NoError(t, p.Eval(moduletest.EngineCtx(t), `const { LanguageModel } = lm;`+tc.js, &got))
						moduletest.RequireJSON(t, tc.want, got)
					})
				}
				// Nothing the module or the engine left unhandled: an aborted wllama stream
				// fails after its reader has left, and js/engine.js reads it to its end.
				for _, line := range p.Console() {
					require.NotContains(t, line, "exception:")
				}
			})
		}
	})
}
