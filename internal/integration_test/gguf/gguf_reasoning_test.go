//go:build !js

package gguf

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/toygguf"
)

// TestBrowser_GGUFReasoning runs a toy model that thinks before it calls a tool
// (toygguf.WeatherThinking: <think>…</think>, then a <tool_call>, with Qwen3's
// rendering of reasoning_content in its template) through real llama.cpp (wllama 3.13.0),
// in every engine, with the module on the page and in a Worker: the thinking reaches the
// reasoning event, never the answer, the stream or the history, and under keepReasoning
// the history keeps it and the next step is sent it.
func TestBrowser_GGUFReasoning(t *testing.T) {
	base := moduletest.GGUFServer(t, map[string]toygguf.Script{"/think.gguf": toygguf.WeatherThinking})
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		browsertest.SkipCompat(t, b, "the reasoning split (the scenarios stream reasoning events in WebKit)")
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(moduletest.EngineCtx(t), m.Prelude()+moduletest.GGUFPage, nil))
				for _, tc := range []struct{ name, js, want string }{
					{"thinking, then a call: the thinking is in the reasoning event only", `
						const s = await LanguageModel.create({ backend: gguf("/think.gguf?" + run), tools: [getWeather((a) => "sunny in " + a.city)] });
						let thought = "";
						s.addEventListener("reasoning", (e) => (thought += e.detail.text));
						const chunks = await read(s.promptStreaming(ask));
						return { answer: chunks.join(""), thought: thought.trim(), history: JSON.stringify(s.history).includes("think"), roles: s.history.map((m) => m.role) };`,
						`{"answer":"It is sunny in Paris.","thought":"The user asks for the weather: call the tool.","history":false,"roles":["user","tool-call","tool-result","assistant"]}`},
					{"keepReasoning: kept in the history, and the next step answers with it sent back", `
						const s = await LanguageModel.create({ backend: gguf("/think.gguf?" + run), tools: [getWeather((a) => "sunny in " + a.city)], keepReasoning: true });
						const answer = await s.prompt(ask);
						return { answer, first: s.history[1].content.map((p) => p.type + ": " + p.value.trim()), roles: s.history.map((m) => m.role) };`,
						`{"answer":"It is sunny in Paris.","first":["reasoning: The user asks for the weather: call the tool."],"roles":["user","assistant","tool-call","tool-result","assistant"]}`},
				} {
					t.Run(tc.name, func(t *testing.T) {
						var got any
						require.NoError(t, p.Eval(moduletest.EngineCtx(t), `const { LanguageModel } = lm;
							const read = async (stream) => { const r = stream.getReader(); const out = []; for (;;) { const { done, value } = await r.read(); if (done) return out; out.push(value); } };`+tc.js, &got))
						moduletest.RequireJSON(t, tc.want, got)
					})
				}
				for _, line := range p.Console() {
					require.NotContains(t, line, "exception:")
				}
			})
		}
	})
}
