//go:build !js

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

func TestBrowser_ZZProbeDebug(t *testing.T) {
	base := ggufServer(t, familyModels(t))
	browsertest.EachOwn(t, func(t *testing.T, b *browsertest.Browser) {
		p := b.Open(t, base+"/")
		require.NoError(t, p.Eval(engineCtx(t), modes[0].prelude()+ggufPage, nil))
		var got any
		err := p.Eval(engineCtx(t), `
			const { newWllama } = await import("/wllama-harness.js");
			const log = [];
			const logger = { debug: (...a) => log.push("DBG " + a.join(" ")), log: (...a) => log.push("LOG " + a.join(" ")), info: (...a) => log.push("INF " + a.join(" ")), warn: (...a) => log.push("WRN " + a.join(" ")), error: (...a) => log.push("ERR " + a.map(String).join(" ")) };
			const e = await newWllama("/10/call.gguf", { config: { suppressNativeLog: false, logger }, load: { log_level: 4 } });
			const hist = (id) => [{ role: "user", content: "Look a word up." }, { role: "assistant", content: "", tool_calls: [{ id, type: "function", function: { name: "look_up", arguments: "{}" } }] }, { role: "tool", tool_call_id: id, name: "look_up", content: "found" }];
			for (const id of ["a1b2c3d4e", "call_0001", "a1b2c3d4_"]) {
				try { const r = await e.createChatCompletion({ messages: hist(id), max_tokens: 1, stream: false }); log.push("OK " + r.usage.prompt_tokens); } catch (x) { log.push("THROW " + x.name + " " + x.message); }
			}
			return log;`, &got)
		for _, l := range got.([]any) {
			t.Logf("%v", l)
		}
		t.Log(err)
	})
}
