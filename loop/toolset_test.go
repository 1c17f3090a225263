package loop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// TestSetTools: tools that come and go (loop/toolset.go) change what the model is
// offered from its next step on, never in the middle of one; a call to a tool removed
// meanwhile is a tool error for the model and the loop goes on; the history stays.
func TestSetTools(t *testing.T) {
	parse := func(names ...string) []session.Tool {
		var decls []any
		for _, n := range names {
			decls = append(decls, decl(n, true, ""))
		}
		tools, err := session.ParseTools(decls, false)
		require.NoError(t, err)
		return tools
	}
	tests := []struct {
		name    string
		start   []string
		during  []string // the set given while the first call runs; nil: none
		turns   []scripted.Turn
		offered [][]string // per model step
		history []string
	}{
		{
			name:    "a tool removed while a call runs is no longer offered, and a late call to it is a tool error",
			start:   []string{"a"},
			during:  []string{"b"},
			turns:   []scripted.Turn{{Calls: []scripted.Call{call("a", `{}`)}}, {Calls: []scripted.Call{call("a", `{}`)}}, {Text: "done"}},
			offered: [][]string{{"a"}, {"b"}, {"b"}},
			history: []string{"user: Go", "call call_1 a{}", `result call_1 a [{"type":"object","value":{}}]`,
				"call call_2 a{}", "error call_2 a: tool a is no longer available: the page unregistered it", "assistant: done"},
		},
		{
			name:    "a tool added while a call runs is offered and runs from the next step",
			start:   []string{"a"},
			during:  []string{"a", "b"},
			turns:   []scripted.Turn{{Calls: []scripted.Call{call("a", `{}`)}}, {Calls: []scripted.Call{call("b", `{}`)}}, {Text: "done"}},
			offered: [][]string{{"a"}, {"a", "b"}, {"a", "b"}},
			history: []string{"user: Go", "call call_1 a{}", `result call_1 a [{"type":"object","value":{}}]`,
				"call call_2 b{}", `result call_2 b [{"type":"object","value":{}}]`, "assistant: done"},
		},
		{
			name:    "a session that started without tools gets the first ones at its next prompt",
			turns:   []scripted.Turn{{Calls: []scripted.Call{call("a", `{}`)}}, {Text: "done"}},
			during:  []string{"a"},
			offered: [][]string{{"a"}, {"a"}},
			history: []string{"user: Go", "call call_1 a{}", `result call_1 a [{"type":"object","value":{}}]`, "assistant: done"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s *loop.Session
			p := &page{}
			run := func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) {
				if tc.during != nil && tc.start != nil {
					s.SetTools(parse(tc.during...))
				}
				return map[string]any{}, nil
			}
			p.funcs = map[string]toolFunc{"a": run, "b": run}
			model := scripted.New(tc.turns...)
			var err error
			s, err = loop.New(loop.Options{Model: model, Runner: p, Tools: parse(tc.start...)})
			require.NoError(t, err)
			t.Cleanup(s.Destroy)
			if tc.start == nil {
				s.SetTools(parse(tc.during...))
			}
			_, err = s.Prompt(context.Background(), js(t, `"Go"`), loop.PromptOptions{})
			require.NoError(t, err)
			var got [][]string
			for _, req := range model.Requests() {
				got = append(got, req.Tools)
			}
			require.Equal(t, tc.offered, got)
			require.Equal(t, tc.history, history(s))
		})
	}
}
