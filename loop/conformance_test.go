package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// Rules of issue 9 that live in the loop, one row each, named after the spec section (or
// DESIGN.md §3 rule) they check.

func TestAppend_EmptySequence(t *testing.T) {
	// DESIGN.md §3: "an empty sequence appends nothing", pending calls stay pending.
	f := newFixture(t, setup{turns: []scripted.Turn{{Calls: []scripted.Call{call("w", `{}`)}}}, tools: []any{decl("w", false, "")}})
	_, err := f.s.Prompt(context.Background(), "q", loop.PromptOptions{})
	require.NoError(t, err)
	before, usage := history(f.s), f.s.ContextUsage()
	require.NoError(t, f.s.Append(context.Background(), []any{}))
	require.Equal(t, before, history(f.s))
	require.Equal(t, usage, f.s.ContextUsage())
}

func TestPrompt_EmptySequenceIsOneEmptyUserMessage(t *testing.T) {
	// § validate and canonicalize a prompt, step 4: an empty list is one user message
	// with an empty text part, and the model answers it.
	f := newFixture(t, setup{turns: []scripted.Turn{{Text: "yes?"}}})
	r, err := f.s.Prompt(context.Background(), []any{}, loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "yes?", r.Text)
	require.Equal(t, []string{"user: ", "assistant: yes?"}, history(f.s))
}

func TestMeasureContextUsage_AnyValidInputAnywhere(t *testing.T) {
	// § measureContextUsage(input, options) step 3: the prompt is validated with
	// hasAppendedInput false, whatever the session holds.
	f := newFixture(t, setup{turns: []scripted.Turn{{Text: "a"}}})
	_, err := f.s.Prompt(context.Background(), "hello", loop.PromptOptions{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		input   any
		want    int
		kind    session.Kind
		message string
	}{
		{"a system message first, on a session with history", []any{map[string]any{"role": "system", "content": "abcd"}, map[string]any{"role": "user", "content": "efgh"}}, 5 + 5, "", ""},
		{"an empty sequence is measured as the empty user message a prompt would send", []any{}, 4, "", ""},
		{"a system message second is still refused (§ step 6.3: hasAppendedInput is set by the first)", []any{map[string]any{"role": "user", "content": "a"}, map[string]any{"role": "system", "content": "b"}}, 0,
			session.KindType, "a system message may only be the first message of the session: message 1"},
		{"undeclared input types are still refused", []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "value": "x"}}}}, 0,
			session.KindNotSupported, `content type not declared in expectedInputs: message 0 part 0: image (declare {type: "image"} in expectedInputs)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			usage := f.s.ContextUsage()
			n, err := f.s.MeasureContextUsage(tc.input)
			require.Equal(t, usage, f.s.ContextUsage())
			if tc.kind != "" {
				require.Equal(t, tc.kind, kindOf(err))
				require.EqualError(t, err, tc.message)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, n)
		})
	}
}

func TestContextOverflow_OncePerOverflow(t *testing.T) {
	// DESIGN.md §3: contextoverflow fires once per overflow. With a window of 60, every
	// prompt from the second on must evict; the event fires once for each.
	long := strings.Repeat("y", 60) // 15 units
	turns := make([]scripted.Turn, 5)
	for i := range turns {
		turns[i] = scripted.Turn{Text: long}
	}
	f := newFixture(t, setup{turns: turns, window: 60})
	for i := range turns {
		before := len(f.page.eventTypes())
		_, err := f.s.Prompt(context.Background(), long, loop.PromptOptions{})
		require.NoError(t, err)
		got := f.page.eventTypes()[before:]
		if i == 0 {
			require.Empty(t, got, "the first prompt fits")
			continue
		}
		require.Equal(t, []string{"contextoverflow"}, got, "prompt %d", i+1)
		require.LessOrEqual(t, f.s.ContextUsage(), 60)
	}
}
