//go:build !js

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
	"langmodel/internal/toygguf"
)

// searchScript is a toy model that searches for a weather tool, then answers once the
// search's result is in its prompt (toygguf answers by the presence of a tool result,
// so it cannot go on to call the tool found: the scripted model's rows do that).
var searchScript = toygguf.Script{
	Calls: []toygguf.Call{{Name: "search_tools", Arguments: `{"query": "weather in a city"}`}},
	After: "I found the weather tool.",
}

// TestBrowser_GGUFToolSearch: tool search over real llama.cpp (wllama, the gguf backend,
// native tool calling through Qwen's template): a session with 300 tools on the toy
// model's 4,096-token window is created (every declaration would not fit), the model's
// search_tools call is parsed by llama.cpp and answered by the engine, and the tool
// found is in the next step's tools; each step's prompt tokens, as llama.cpp counts
// them, stay far below the window.
func TestBrowser_GGUFToolSearch(t *testing.T) {
	h := browsertest.WllamaHandlers(t)
	h["/search.gguf"] = browsertest.GGUF(t, searchScript)
	for path, handler := range moduleHandlers(t) {
		h[path] = handler
	}
	base := browsertest.Serve(t, "", h)
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				var got any
				require.NoError(t, p.Eval(engineCtx(t), m.prelude()+ggufPage+`
					const { LanguageModel } = lm;
					const tools = Array.from({ length: 300 }, (_, i) => ({ name: "page_action_" + i, description: "Runs action " + i + " of this page.",
						inputSchema: { type: "object", properties: { target: { type: "string" } } }, execute: () => "done" }));
					tools[150] = getWeather(() => "sunny");
					const s = await LanguageModel.create({ backend: gguf("/search.gguf?" + run), tools });
					const steps = [], events = [];
					s.onstepusage = (e) => steps.push([e.detail.inputTokens, e.detail.estimated]);
					s.ontoolcall = (e) => events.push(e.detail.call.name + (e.detail.builtin ? " (builtin)" : ""));
					const answer = await s.prompt(ask);
					const found = s.history[2].content[0].value.result[0].value;
					return { answer, events, roles: s.history.map((m) => m.role), found, window: s.contextWindow,
						measured: steps.every(([n, est]) => !est && n > 0 && n < 2048), grew: steps.length === 2 && steps[1][0] > steps[0][0] };`, &got))
				requireJSON(t, `{"answer":"I found the weather tool.","events":["search_tools (builtin)"],"roles":["user","tool-call","tool-result","assistant"],
					"found":"Tools found, which you can call from your next reply on:\n- get_weather(city): The weather in a city","window":4096,"measured":true,"grew":true}`, got)
			})
		}
	})
}
