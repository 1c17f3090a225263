package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
)

// TestOversizedToolResult: a result that cannot fit even after eviction becomes a tool
// error for the model, which answers without it; the prompt does not fail.
func TestOversizedToolResult(t *testing.T) {
	returns := func(n int) toolFunc {
		return func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) {
			return strings.Repeat("x", n), nil
		}
	}
	for _, tc := range []struct {
		name    string
		calls   []scripted.Call
		sizes   map[string]int // bytes each tool returns
		window  int
		earlier int      // bytes of an earlier prompt, answered "ok", before "q"
		want    []string // the history after the prompt
	}{
		{"a 10 MB result becomes a tool error and the loop goes on",
			[]scripted.Call{call("big", `{}`)}, map[string]int{"big": 10 << 20}, 4096, 0,
			[]string{"user: q", "call call_1 big{}",
				"error call_1 big: the result of big was 2621449 tokens, more than the context window (4096 tokens) allows; it was dropped: ask for less, or answer without it",
				"assistant: done"}},
		{"only the result that cannot fit is dropped; its sibling is kept",
			[]scripted.Call{call("big", `{}`), call("small", `{}`)}, map[string]int{"big": 10 << 20, "small": 2}, 4096, 0,
			[]string{"user: q", "call call_1 big{}", "call call_2 small{}",
				"error call_1 big: the result of big was 2621449 tokens, more than the context window (4096 tokens) allows; it was dropped: ask for less, or answer without it",
				`result call_2 small [{"type":"text","value":"xx"}]`,
				"assistant: done"}},
		{"two results that fit alone but not together: the larger is dropped",
			[]scripted.Call{call("a", `{}`), call("b", `{}`)}, map[string]int{"a": 300, "b": 400}, 230, 0,
			[]string{"user: q", "call call_1 a{}", "call call_2 b{}",
				`result call_1 a [{"type":"text","value":"` + strings.Repeat("x", 300) + `"}]`,
				"error call_2 b: the result of b was 109 tokens, more than the context window (230 tokens) allows; it was dropped: ask for less, or answer without it",
				"assistant: done"}},
		{"a result that fits once older turns are evicted is kept",
			[]scripted.Call{call("a", `{}`)}, map[string]int{"a": 400}, 200, 300,
			[]string{"assistant: ok", "user: q", "call call_1 a{}", `result call_1 a [{"type":"text","value":"` + strings.Repeat("x", 400) + `"}]`, "assistant: done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			su := setup{turns: []scripted.Turn{{Calls: tc.calls}, {Text: "done"}}, funcs: map[string]toolFunc{}, window: tc.window}
			if tc.earlier > 0 {
				su.turns = append([]scripted.Turn{{Text: "ok"}}, su.turns...)
			}
			for _, c := range tc.calls {
				su.tools = append(su.tools, decl(c.Name, true, ""))
				su.funcs[c.Name] = returns(tc.sizes[c.Name])
			}
			f := newFixture(t, su)
			if tc.earlier > 0 {
				_, err := f.s.Prompt(context.Background(), strings.Repeat("e", tc.earlier), loop.PromptOptions{})
				require.NoError(t, err)
			}
			r, err := f.s.Prompt(context.Background(), "q", loop.PromptOptions{})
			require.NoError(t, err)
			require.Equal(t, "done", r.Text)
			require.Equal(t, tc.want, history(f.s))
			require.LessOrEqual(t, f.s.ContextUsage(), f.s.ContextWindow())
			for _, c := range tc.calls {
				require.Contains(t, f.page.eventTypes(), "toolresult:"+c.Name)
			}
			if tc.earlier > 0 {
				require.Contains(t, f.page.eventTypes(), "contextoverflow", "the earlier prompt was evicted")
			}
		})
	}
}
