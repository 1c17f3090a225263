//go:build !js

package browser

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// historyShapesJS creates a session whose history holds a message of every shape: texts
// (ASCII, JSON's escapes, non-ASCII, astral, a lone surrogate, empty, digits and colons),
// a system message, tool calls, results of text, image and object parts, an error
// result, a message of several parts, an image, and an assistant's prefix last.
const historyShapesJS = `
const { LanguageModel } = lm;
const png = new Uint8Array([137, 80, 78, 71]);
const call = (callID, args) => ({ role: "tool-call", content: [{ type: "tool-call", value: { callID, name: "lookup", arguments: args } }] });
const result = (callID, r) => ({ role: "tool-result", content: [{ type: "tool-result", value: { callID, name: "lookup", ...r } }] });
const s = await LanguageModel.create({
	expectedInputs: [{ type: "text" }, { type: "image" }, { type: "tool-call" }, { type: "tool-response" }],
	backend: { kind: "scripted", turns: [{ text: "ok" }] },
	initialPrompts: [
		{ role: "system", content: "Be brief." },
		{ role: "user", content: "plain ASCII" },
		{ role: "assistant", content: "quote \" backslash \\ newline \n tab \t <b>&amp;</b> \u2028 \u0001" },
		{ role: "user", content: "héllo, 世界" },
		{ role: "assistant", content: "😀 𝄞 astral" },
		{ role: "user", content: "lone \ud800 surrogate" },
		{ role: "assistant", content: "" },
		{ role: "user", content: "12:34 5:" },
		call("c1", { word: "w", n: 1.5 }),
		result("c1", { result: [{ type: "text", value: "found é" }] }),
		call("c2", {}),
		result("c2", { result: [{ type: "image", value: png }, { type: "object", value: { a: [1, "x\ny"] } }] }),
		call("c3", { word: "😀" }),
		result("c3", { errorMessage: "no luck" }),
		{ role: "user", content: [{ type: "text", value: "two " }, { type: "text", value: "parts" }] },
		{ role: "user", content: [{ type: "text", value: "what is it?" }, { type: "image", value: png }] },
		{ role: "assistant", content: "a cat" },
		{ role: "user", content: "list three" },
		{ role: "assistant", content: "1.", prefix: true },
	],
});
`

// TestBrowser_HistoryShapes: session.history, which the module answers packed with the
// module on the page (pack.js unpackHistory) and as JSON from the page's copy in worker
// mode, is the draft-PR form for messages of every shape, a fresh copy each time, in
// every engine.
func TestBrowser_HistoryShapes(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := moduletest.Serve(t, "")
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(t.Context(), m.Prelude(), nil))
				var got struct {
					History string
					Fresh   bool
					Packed  *bool
				}
				require.NoError(t, p.Eval(t.Context(), historyShapesJS+`
					// With the module on the page, its port is the global one: watch what
					// the history query is answered with.
					const port = globalThis.__langmodel_channel;
					let packed = null;
					if (port) {
						const query = port.query;
						port.query = (json) => {
							const answer = query.call(port, json);
							if (JSON.parse(json).type === "history") packed = answer.includes("\n");
							return answer;
						};
					}
					const h = s.history;
					const text = JSON.stringify(h);
					h[1].content[0].value = "edited";
					h.pop();
					const fresh = JSON.stringify(s.history) === text;
					s.destroy();
					return { history: text.replaceAll("\u2028", "\\u2028"), fresh, packed };`, &got))
				if m.Name == "page" {
					require.Equal(t, new(true), got.Packed, "the module answers packed")
				} else {
					require.Nil(t, got.Packed, "worker mode answers from the page's copy")
				}
				require.JSONEq(t, historyShapesWant, got.History)
				require.Equal(t, historyShapesWant, got.History, "keys in the order of the JSON form")
				require.True(t, got.Fresh, "each read of session.history is a copy of its own")
			})
		}
	})
}

// historyShapesWant is historyShapesJS's history as JSON.stringify writes it (U+2028 escaped).
const historyShapesWant = `[{"role":"system","content":[{"type":"text","value":"Be brief."}]},{"role":"user","content":[{"type":"text","value":"plain ASCII"}]},{"role":"assistant","content":[{"type":"text","value":"quote \" backslash \\ newline \n tab \t <b>&amp;</b> \u2028 \u0001"}]},{"role":"user","content":[{"type":"text","value":"héllo, 世界"}]},{"role":"assistant","content":[{"type":"text","value":"😀 𝄞 astral"}]},{"role":"user","content":[{"type":"text","value":"lone � surrogate"}]},{"role":"assistant","content":[{"type":"text","value":""}]},{"role":"user","content":[{"type":"text","value":"12:34 5:"}]},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"lookup","arguments":{"n":1.5,"word":"w"}}}]},{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"lookup","result":[{"type":"text","value":"found é"}]}}]},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c2","callId":"c2","name":"lookup","arguments":{}}}]},{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c2","callId":"c2","name":"lookup","result":[{"type":"image","value":{"base64":"iVBORw==","type":"bytes"}},{"type":"object","value":{"a":[1,"x\ny"]}}]}}]},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c3","callId":"c3","name":"lookup","arguments":{"word":"😀"}}}]},{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c3","callId":"c3","name":"lookup","errorMessage":"no luck"}}]},{"role":"user","content":[{"type":"text","value":"two parts"}]},{"role":"user","content":[{"type":"text","value":"what is it?"},{"type":"image","value":{"base64":"iVBORw==","type":"bytes"}}]},{"role":"assistant","content":[{"type":"text","value":"a cat"}]},{"role":"user","content":[{"type":"text","value":"list three"}]},{"role":"assistant","content":[{"type":"text","value":"1."}],"prefix":true}]`
