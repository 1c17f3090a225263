package loop_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// TestPrompt_ModelArgumentsCanonical: a model's arguments enter the history as the page's
// own calls are encoded (compact, sorted keys, jsonv's escapes), so contextUsage is the
// sum of what measureContextUsage says of each exported message (found by the chaos
// suite: a model writing \u00e9 and \/ made the two differ).
func TestPrompt_ModelArgumentsCanonical(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"escapes resolved", `{"q":"caf\u00e9 \/"}`, `{"q":"café /"}`},
		{"whitespace dropped", `{ "q" : "x" , "n" : 1.5 }`, `{"n":1.5,"q":"x"}`},
		{"keys sorted, HTML escaped as jsonv does", `{"b":"<a>","a":[1, 2]}`, `{"a":[1,2],"b":"\u003ca\u003e"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("weather", tt.args)}}, {Text: "done"}},
				tools: []any{decl("weather", true, "")},
				funcs: map[string]toolFunc{"weather": echo},
				// measuring the exported calls and results takes them as input
				inputs: session.Expected{ToolCall: true, ToolResponse: true},
			})
			require.NoError(t, f.create)
			before := f.s.ContextUsage()
			_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{})
			require.NoError(t, err)
			msgs := f.s.Messages()
			require.Equal(t, tt.want, string(msgs[1].Parts[0].Call.Arguments))
			var exported []any
			require.NoError(t, json.Unmarshal(f.s.History(), &exported))
			sum := before
			for _, m := range exported {
				b, _ := json.Marshal([]any{m})
				n, err := f.s.MeasureContextUsage(js(t, string(b)))
				require.NoError(t, err)
				sum += n
			}
			require.Equal(t, sum, f.s.ContextUsage())
		})
	}
}
