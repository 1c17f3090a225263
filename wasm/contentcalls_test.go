package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBackend_CallsReadFromContent: every backend with native tools reads the calls its
// model left in the content (textproto.Read, wired in newModel): the engine, a custom
// generate and the browser's model with nativeTools, a chain member. The request keeps
// its native tools; the tool runs; the answer is the next step's.
func TestBackend_CallsReadFromContent(t *testing.T) {
	phi := []string{"<|tool_call|>", `[{"name": "weather", "arguments": {"city": "Paris"}}]`, "<|/tool_call|>"}
	textPieces := func(s ...string) []any {
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = v
		}
		return out
	}
	for _, tc := range []struct {
		name, backend string
		steps         [][]any
		toolsKey      string // where the request carries the tools
	}{
		{"engine", engineBackend(""), [][]any{engineText(phi...), engineText("It is sunny.")}, "tools"},
		{"custom with native tools", customBackend(`,"nativeTools":true`), [][]any{textPieces(phi...), {"It is sunny."}}, "tools"},
		{"browser with native tools", `"backend":{"kind":"browser","generate":5,"nativeTools":true}`, [][]any{textPieces(phi...), {"It is sunny."}}, "tools"},
		{"a chain's member", `"backend":{"kind":"chain","backends":[{"kind":"engine","generate":5}]}`, [][]any{engineText(phi...), engineText("It is sunny.")}, "tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var reqs []msg
			p.generate = pieces(&reqs, tc.steps...)
			var ran []any
			p.tools[7] = func(_ *fakePage, m msg) (any, string) {
				ran = append(ran, m["call"].(map[string]any)["arguments"])
				return "sun", ""
			}
			p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+tc.backend+`}`)
			r := p.ok("prompt", `"session":1,"input":"Weather in Paris?"`).(map[string]any)
			require.Equal(t, "It is sunny.", r["text"])
			require.Equal(t, []any{map[string]any{"city": "Paris"}}, ran)
			require.Len(t, reqs, 2)
			require.NotEmpty(t, reqs[0][tc.toolsKey], "the tools stay native")
			require.Len(t, p.ok("history", `"session":1`), 4)
		})
	}
}
