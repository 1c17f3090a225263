package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

func TestOverflow(t *testing.T) {
	long := strings.Repeat("z", 200) // 54 units as a text message
	t.Run("evicts the oldest turn with its tool pair and fires contextoverflow", func(t *testing.T) {
		f := newFixture(t, setup{
			turns: []scripted.Turn{
				{Calls: []scripted.Call{call("big", `{}`)}}, {Text: "first"},
				{Text: "second"},
			},
			tools:   []any{decl("big", true, "")},
			funcs:   map[string]toolFunc{"big": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { return long, nil }},
			initial: `[{"role":"system","content":"S"}]`,
			window:  140,
		})
		_, err := f.s.Prompt(context.Background(), "q1", loop.PromptOptions{})
		require.NoError(t, err)
		_, err = f.s.Prompt(context.Background(), "q2 "+long, loop.PromptOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{"system: S", "assistant: first", "user: q2 " + long, "assistant: second"}, history(f.s))
		require.Contains(t, f.page.eventTypes(), "contextoverflow")
		require.LessOrEqual(t, f.s.ContextUsage(), f.s.ContextWindow())
	})
	t.Run("an input that cannot fit rejects with QuotaExceededError and removes nothing", func(t *testing.T) {
		f := newFixture(t, setup{turns: []scripted.Turn{{Text: "a"}}, window: 60})
		_, err := f.s.Prompt(context.Background(), "hello", loop.PromptOptions{})
		require.NoError(t, err)
		before, usage := history(f.s), f.s.ContextUsage()
		_, err = f.s.Prompt(context.Background(), long+long[:100], loop.PromptOptions{})
		require.Equal(t, session.KindQuotaExceeded, kindOf(err))
		var e *session.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, 60, e.Quota)
		require.Equal(t, 4+75, e.Requested, "what cannot be evicted: the new input")
		require.Equal(t, before, history(f.s))
		require.Equal(t, usage, f.s.ContextUsage())
	})
	t.Run("a reply longer than the window stops the model and rejects with QuotaExceededError", func(t *testing.T) {
		// The model would stream forever (Hang after its chunks): the loop stops it as soon
		// as its reply alone outgrows the window.
		chunks := make([]string, 100)
		for i := range chunks {
			chunks[i] = long // 50 units each
		}
		f := newFixture(t, setup{turns: []scripted.Turn{{Text: "a"}, {Chunks: chunks, Hang: true}}, window: 300})
		_, err := f.s.Prompt(context.Background(), "hello", loop.PromptOptions{})
		require.NoError(t, err)
		before, usage := history(f.s), f.s.ContextUsage()
		var streamed int
		_, err = f.s.Prompt(context.Background(), "go on", loop.PromptOptions{OnChunk: func(loop.Chunk) { streamed++ }})
		require.Equal(t, session.KindQuotaExceeded, kindOf(err))
		require.EqualError(t, err, "the model's reply is longer than the context window")
		var e *session.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, 300, e.Quota)
		require.Equal(t, 350, e.Requested, "stopped at the seventh chunk")
		require.Equal(t, 6, streamed, "the chunk over the window is not shown")
		require.Equal(t, before, history(f.s))
		require.Equal(t, usage, f.s.ContextUsage())
	})
	t.Run("measureContextUsage counts without adding", func(t *testing.T) {
		f := newFixture(t, setup{})
		before := f.s.ContextUsage()
		n, err := f.s.MeasureContextUsage("abcdefgh")
		require.NoError(t, err)
		require.Equal(t, 4+2, n)
		require.Equal(t, before, f.s.ContextUsage())
	})
}
