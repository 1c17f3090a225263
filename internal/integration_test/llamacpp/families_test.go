//go:build !js

package llamacpp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/toygguf"
)

// familyModels are each family's toy models (internal/testing/toygguf), by path: /<i>/call.gguf
// calls get_weather {"city": "Paris"} in the family's syntax (after thinking, for the
// families that think) and answers "It is sunny in Paris." after the result;
// /<i>/think.gguf writes that call inside <think> and then answers "No tool is needed.".
func familyModels(t *testing.T) map[string]toygguf.Script {
	models := map[string]toygguf.Script{}
	for i, f := range toygguf.Families {
		call := toygguf.Script{Family: f, Calls: toygguf.Weather.Calls, After: toygguf.Weather.After}
		if f == toygguf.Qwen3 || f == toygguf.SmolLM3 || f == toygguf.DeepSeekR1 {
			call.Think = "The user asks for the weather: call the tool."
		}
		written, err := f.Write(toygguf.Weather.Calls)
		require.NoError(t, err)
		models[fmt.Sprintf("/%d/call.gguf", i)] = call
		models[fmt.Sprintf("/%d/think.gguf", i)] = toygguf.Script{Family: f, Think: written, Text: "No tool is needed."}
	}
	return models
}

// parsedWithoutThinking are the families whose calls llama.cpp parses itself and whose
// templates know no <think> block: llama.cpp reads a call wherever their model writes it,
// a <think> block included (and answers a reply it cannot parse with an error), before
// the module sees the step. Their models never think.
var parsedWithoutThinking = map[*toygguf.Family]bool{
	toygguf.Qwen25: true, toygguf.Qwen3Coder: true, toygguf.Llama32: true, toygguf.Gemma4: true, toygguf.LFM2: true, toygguf.MistralNemo: true,
}

// webkitFamilies are the families WebKit plays, one per way llama.cpp's wasm comes by a
// call: its own parser (Llama 3.2), and the content it leaves after the model thought,
// which the module reads (DeepSeek-R1 distill). What else tells a family from another is
// its template and its syntax, which llama.cpp's wasm renders and the module's Go reads
// alike in every engine (the text protocol a template without tools gets, Phi-4-mini's, is
// the module's own); WebKit runs that wasm as wllama's compat build, about four times
// slower than Chromium (browsertest.SkipCompat), and every family there took 333 of the
// browser suite's seconds.
var webkitFamilies = map[*toygguf.Family]bool{toygguf.Llama32: true, toygguf.DeepSeekR1: true}

// familyCases are what every family's model must do through the gguf backend, each
// returning what the page got.
var familyCases = []struct{ name, js, want string }{
	{"closed loop: the call runs, then the answer", `
		const ran = [];
		const s = await LanguageModel.create({ backend: model("call"), tools: [getWeather((a) => { ran.push(a); return "sunny"; })] });
		const answer = await s.prompt(ask);
		return { answer, ran, roles: s.history.map((m) => m.role) };`,
		`{"answer":"It is sunny in Paris.","ran":[{"city":"Paris"}],"roles":["user","tool-call","tool-result","assistant"]}`},
	{"open loop: the call, then the answer to its response", `
		const s = await LanguageModel.create({ backend: model("call"), tools: [getWeather()],
			expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
		const first = await s.prompt(ask);
		const call = first.find((p) => p.type === "tool-call")?.value;
		const second = call ? await s.prompt([{ role: "user", content: [{ type: "tool-response", value: { callId: call.callId, name: call.name, result: [{ type: "text", value: "sunny" }] } }] }]) : null;
		return { first: first.map((p) => p.type === "text" ? p.value : [p.value.name, p.value.arguments]), second };`,
		`{"first":[["get_weather",{"city":"Paris"}]],"second":[{"type":"text","value":"It is sunny in Paris."}]}`},
	{"streaming, open loop: the call as its tool-call chunk", `
		const s = await LanguageModel.create({ backend: model("call"), tools: [getWeather()],
			expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
		const chunks = await read(s.promptStreaming(ask));
		return chunks.filter((c) => typeof c !== "string" || c.trim() !== "").map((c) => typeof c === "string" ? c : [c.type, c.value.name, c.value.arguments]);`,
		`[["tool-call","get_weather",{"city":"Paris"}]]`},
	{"a call written inside <think> never runs", `
		const ran = [];
		const s = await LanguageModel.create({ backend: model("think"), tools: [getWeather((a) => { ran.push(a); return "sunny"; })] });
		const answer = await s.prompt(ask);
		return { answer, ran, roles: s.history.map((m) => m.role) };`,
		`{"answer":"No tool is needed.","ran":[],"roles":["user","assistant"]}`},
}

// TestBrowser_Families runs every model family's toy model (internal/testing/toygguf: its
// tokens, its call syntax, and a chat template the project wrote with the property that
// matters) through the gguf backend over real llama.cpp (wllama 3.13.0), in every
// engine (two of them in WebKit: webkitFamilies): the closed loop, the open loop,
// streaming, and a call inside <think>. One page
// a family (a gguf engine lives as long as its page), the module on the page. It logs
// its time per engine.
func TestBrowser_Families(t *testing.T) {
	base := moduletest.GGUFServer(t, familyModels(t))
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		start := time.Now()
		for i, f := range toygguf.Families {
			t.Run(f.Name, func(t *testing.T) {
				if b.Engine == browsertest.WebKit && !webkitFamilies[f] {
					t.Skip("WebKit plays one family per way llama.cpp's wasm comes by a call (webkitFamilies); Chromium and Firefox play every family")
				}
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(moduletest.EngineCtx(t), moduletest.Modes[0].Prelude()+moduletest.GGUFPage+fmt.Sprintf(`
					globalThis.model = (name) => gguf("/%d/" + name + ".gguf?" + run);
					globalThis.read = async (stream) => { const r = stream.getReader(); const out = []; for (;;) { const { done, value } = await r.read(); if (done) return out; out.push(value); } };`, i), nil))
				for _, tc := range familyCases {
					if strings.Contains(tc.name, "<think>") && parsedWithoutThinking[f] {
						continue
					}
					t.Run(tc.name, func(t *testing.T) {
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
		t.Logf("%s: %d families in %s", b.Version, len(toygguf.Families), time.Since(start).Round(time.Millisecond))
	})
}

// TestBrowser_FamilyTemplates: what the probe of a page's own engine decides ({kind:
// "engine"} over wllama: Phi-4-mini's template names tools and renders none, so the
// module's text protocol), and a chat template that raises (Gemma 3's, on roles that do
// not alternate) as the page sees it: an OperationError saying the template failed and
// why, where the module made the engine and kept llama.cpp's log (gguf), and saying what
// it can where the page made it with llama.cpp's log off (engine).
func TestBrowser_FamilyTemplates(t *testing.T) {
	phi := slices.Index(toygguf.Families, toygguf.Phi4Mini)
	gemma := slices.Index(toygguf.Families, toygguf.Gemma3)
	base := moduletest.GGUFServer(t, familyModels(t))
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(moduletest.EngineCtx(t), moduletest.Modes[0].Prelude()+moduletest.GGUFPage+`
			const { newWllama } = await import("/wllama-harness.js");
			globalThis.newWllama = newWllama;
			globalThis.twoUsers = [{ role: "user", content: "Hello." }, { role: "user", content: "Are you there?" }];`, nil))
		for _, tc := range []struct{ name, js, want string }{
			{"a page's engine whose template renders no tools: the text protocol, the closed loop", fmt.Sprintf(`
				const engine = await newWllama("/%d/call.gguf");
				const ran = [];
				const s = await LanguageModel.create({ backend: { kind: "engine", engine }, tools: [getWeather((a) => { ran.push(a); return "sunny"; })] });
				const answer = await s.prompt(ask);
				await engine.exit();
				return { answer, ran, roles: s.history.map((m) => m.role) };`, phi),
				`{"answer":"It is sunny in Paris.","ran":[{"city":"Paris"}],"roles":["user","tool-call","tool-result","assistant"]}`},
			{"gguf: a template that raises: the chat template failed, and its message; nothing is added to the history", fmt.Sprintf(`
				const s = await LanguageModel.create({ backend: gguf("/%d/call.gguf?" + run), initialPrompts: twoUsers });
				const r = await caught(s.prompt("Hi"));
				return { r, roles: s.history.map((m) => m.role) };`, gemma),
				`{"r":"OperationError: the model failed: the in-page engine failed: the chat template failed: Conversation roles must alternate user/model/user/model, starting with user","roles":["user","user"]}`},
			{"a page's engine with llama.cpp's log off: the failure named as llama.cpp's, never wllama's misreading", fmt.Sprintf(`
				const engine = await newWllama("/%d/call.gguf");
				const s = await LanguageModel.create({ backend: { kind: "engine", engine }, initialPrompts: twoUsers });
				const r = await caught(s.prompt("Hi"));
				await engine.exit();
				return r;`, gemma),
				`"OperationError: the model failed: the in-page engine failed: llama.cpp failed before answering, most likely in the chat template (wllama did not say why: it logs llama.cpp's message only with its native log on)"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var got any
				require.NoError(t, p.Eval(moduletest.EngineCtx(t), `const { LanguageModel } = lm;`+tc.js, &got))
				moduletest.RequireJSON(t, tc.want, got)
			})
		}
	})
}
