package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// calls is n steps of one call each, then a text answer.
func calls(text string, cs ...scripted.Call) []scripted.Turn {
	turns := make([]scripted.Turn, 0, len(cs)+1)
	for _, c := range cs {
		turns = append(turns, scripted.Turn{Calls: []scripted.Call{c}})
	}
	return append(turns, scripted.Turn{Text: text})
}

// TestPrompt_Stops runs one prompt per row against the stops beside maxToolCalls
// (toolUseConfig.maxRepeatedCalls and maxTokens): the answer or the typed error, the
// history left (on error: as it was) and the calls that ran.
func TestPrompt_Stops(t *testing.T) {
	paris := call("weather", `{"city":"Paris"}`)
	// The same call written another way: the arguments are compared canonical.
	parisAgain := call("weather", `{ "city" : "Paris" }`)
	weather := []any{decl("weather", true, weatherSchema)}
	funcs := map[string]toolFunc{"weather": echo}
	result := func(id string) string {
		return `result ` + id + ` weather [{"type":"object","value":{"city":"Paris"}}]`
	}
	tests := []struct {
		name     string
		setup    setup
		want     string
		wantErr  error
		errText  string
		partial  int      // on error: the messages the error's transcript holds
		history  []string // on success
		ran      int
		notTools bool // the last step was offered no tools
	}{
		{
			name:    "the fourth identical call stops the prompt by default, history as before",
			setup:   setup{turns: calls("never", paris, parisAgain, paris, parisAgain), tools: weather, funcs: funcs},
			wantErr: loop.ErrRepeatedCall,
			errText: "repeated tool call: maxRepeatedCalls is 3 and the model asked for the same weather call 4 times",
			partial: 1 + 3*2 + 1,
			ran:     3,
		},
		{
			name:  "three identical calls are allowed",
			setup: setup{turns: calls("Sunny.", paris, parisAgain, paris), tools: weather, funcs: funcs},
			want:  "Sunny.",
			ran:   3,
		},
		{
			name: "calls with other arguments are not repeats",
			setup: setup{turns: calls("Done.", paris, paris, paris, call("weather", `{"city":"Oslo"}`), call("weather", `{"city":"Rome"}`)),
				tools: weather, funcs: funcs},
			want: "Done.",
			ran:  5,
		},
		{
			name:    "maxRepeatedCalls 1 stops the first repeat",
			setup:   setup{turns: calls("never", paris, paris), tools: weather, funcs: funcs, use: loop.ToolUse{MaxRepeatedCalls: 1}},
			wantErr: loop.ErrRepeatedCall,
			errText: "repeated tool call: maxRepeatedCalls is 1 and the model asked for the same weather call 2 times",
			partial: 1 + 2 + 1,
			ran:     1,
		},
		{
			name:  "maxRepeatedCalls off (below 0) lets the model repeat up to maxToolCalls",
			setup: setup{turns: calls("Fine.", paris, paris, paris, paris, paris), tools: weather, funcs: funcs, use: loop.ToolUse{MaxRepeatedCalls: -1}},
			want:  "Fine.",
			ran:   5,
		},
		{
			name: "a repeat inside one parallel step counts",
			setup: setup{turns: []scripted.Turn{{Calls: []scripted.Call{paris, parisAgain}}, {Text: "never"}},
				tools: weather, funcs: funcs, use: loop.ToolUse{MaxRepeatedCalls: 1}},
			wantErr: loop.ErrRepeatedCall,
			errText: "repeated tool call: maxRepeatedCalls is 1 and the model asked for the same weather call 2 times",
			partial: 1 + 2,
		},
		{
			name: `onLimit "answer": the repeat is answered with a tool error and the model answers without tools`,
			setup: setup{turns: calls("It is sunny in Paris.", paris, paris, paris, paris), tools: weather, funcs: funcs,
				use: loop.ToolUse{OnLimit: loop.LimitAnswer}},
			want: "It is sunny in Paris.",
			history: []string{"user: Go",
				`call call_1 weather{"city":"Paris"}`, result("call_1"),
				`call call_2 weather{"city":"Paris"}`, result("call_2"),
				`call call_3 weather{"city":"Paris"}`, result("call_3"),
				`call call_4 weather{"city":"Paris"}`,
				"error call_4 weather: not run: you asked for this same call (same tool, same arguments) 4 times in this prompt, and its answer will not change; answer with what you have",
				"assistant: It is sunny in Paris."},
			ran:      3,
			notTools: true,
		},
		{
			name: "a step that passes maxTokens stops the prompt before its calls run (backend figures)",
			setup: setup{turns: []scripted.Turn{
				{Calls: []scripted.Call{paris}, Usage: &loop.Usage{InputTokens: 40, OutputTokens: 10}},
				{Calls: []scripted.Call{call("weather", `{"city":"Oslo"}`)}, Usage: &loop.Usage{InputTokens: 60, OutputTokens: 10}},
				{Text: "never"}}, tools: weather, funcs: funcs, use: loop.ToolUse{MaxTokens: 100}},
			wantErr: loop.ErrTokenBudget,
			errText: "token budget spent: maxTokens is 100 and the prompt's 2 model steps have spent 120",
			partial: 1 + 2 + 1,
			ran:     1,
		},
		{
			name: "maxTokens counts the estimate when the backend reports none",
			setup: setup{turns: calls("never", paris, paris), tools: weather, funcs: funcs,
				use: loop.ToolUse{MaxTokens: 1}},
			wantErr: loop.ErrTokenBudget,
			partial: 1 + 1,
		},
		{
			name: "an answer that passes maxTokens is kept: nothing is left to stop",
			setup: setup{turns: []scripted.Turn{{Text: "Long answer.", Usage: &loop.Usage{InputTokens: 500, OutputTokens: 500}}},
				use: loop.ToolUse{MaxTokens: 100}},
			want: "Long answer.",
		},
		{
			name: `onLimit "answer": the spent budget refuses the step's calls and the model answers without tools`,
			setup: setup{turns: []scripted.Turn{
				{Calls: []scripted.Call{paris}, Usage: &loop.Usage{InputTokens: 90, OutputTokens: 20}},
				{Text: "Out of budget.", Usage: &loop.Usage{InputTokens: 100, OutputTokens: 5}}},
				tools: weather, funcs: funcs, use: loop.ToolUse{MaxTokens: 100, OnLimit: loop.LimitAnswer}},
			want: "Out of budget.",
			history: []string{"user: Go", `call call_1 weather{"city":"Paris"}`,
				"error call_1 weather: not run: the budget of 100 tokens for this prompt is spent; answer with what you have",
				"assistant: Out of budget."},
			notTools: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.setup)
			require.NoError(t, f.create)
			before := history(f.s)
			r, err := f.s.Prompt(context.Background(), "Go", loop.PromptOptions{})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Equal(t, session.KindOperation, kindOf(err))
				if tc.errText != "" {
					require.Equal(t, tc.errText, err.Error())
				}
				require.Equal(t, before, history(f.s), "a stopped prompt leaves the history as it was")
				require.Len(t, transcript(err), tc.partial, "the error carries what the prompt had added")
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.want, r.Text)
				if tc.history != nil {
					require.Equal(t, tc.history, history(f.s))
				}
			}
			require.Len(t, f.page.Ran(), tc.ran)
			if tc.notTools {
				reqs := f.model.Requests()
				require.Empty(t, reqs[len(reqs)-1].Tools)
				require.NotEmpty(t, reqs[0].Tools)
			}
		})
	}
}

// TestPrompt_StepUsage: each model step sends a stepusage event with its tokens (the
// backend's figures, or the estimate, marked), how many calls it made and its duration,
// and the session's totals add them up, failed prompts' steps included; a clone and a
// restored session start from the original's totals.
func TestPrompt_StepUsage(t *testing.T) {
	f := newFixture(t, setup{
		turns: []scripted.Turn{
			{Calls: []scripted.Call{call("weather", `{"city":"Paris"}`)}, Usage: &loop.Usage{InputTokens: 70, OutputTokens: 9, CachedTokens: 50, Cached: true}},
			{Text: "Sunny."},
			{Error: &scripted.StepError{Kind: session.KindOperation, Message: "down"}},
		},
		tools: []any{decl("weather", true, weatherSchema)},
		funcs: map[string]toolFunc{"weather": echo},
	})
	require.NoError(t, f.create)
	require.Equal(t, loop.Totals{}, f.s.Usage())
	_, err := f.s.Prompt(context.Background(), "Weather?", loop.PromptOptions{})
	require.NoError(t, err)
	steps := f.page.steps
	require.Len(t, steps, 2)
	require.Equal(t, loop.StepUsage{InputTokens: 70, OutputTokens: 9, CachedTokens: 50, Cached: true, ToolCalls: 1}, steps[0], "the backend's figures")
	require.True(t, steps[1].Estimated, "no figures from the backend: the estimate, marked")
	require.Zero(t, steps[1].ToolCalls)
	require.Equal(t, session.TextCost(len("Sunny.")), steps[1].OutputTokens)
	// The estimate of the input is contextUsage as the step was asked: the whole history
	// but the answer.
	require.Equal(t, f.s.ContextUsage()-session.Cost(session.TextMessage(session.RoleAssistant, "Sunny.")), steps[1].InputTokens)
	want := loop.Totals{InputTokens: 70 + steps[1].InputTokens, OutputTokens: 9 + steps[1].OutputTokens, Steps: 2, Estimated: 1,
		CachedTokens: 50} // the step that reported none adds none
	require.Equal(t, want, f.s.Usage())

	_, err = f.s.Prompt(context.Background(), "Again?", loop.PromptOptions{})
	require.Error(t, err)
	require.Equal(t, want, f.s.Usage(), "a step that failed in the model has no figures to count")

	c, err := f.s.Clone(context.Background())
	require.NoError(t, err)
	defer c.Destroy()
	require.Equal(t, want, c.Usage(), "a clone starts from the original's totals")

	r, err := loop.Restore(loop.Options{Model: scripted.New(), Runner: f.page, Tools: f.tools},
		loop.Saved{Messages: jsonv.RawMessage(f.s.History()), Totals: want})
	require.NoError(t, err)
	defer r.Destroy()
	require.Equal(t, want, r.Usage(), "a restored session keeps the saved totals")
}

// TestPrompt_StopCountsStepsOfFailedPrompt: a prompt stopped by a limit forgets its
// messages, but its steps' tokens were spent: session.usage counts them.
func TestPrompt_StopCountsStepsOfFailedPrompt(t *testing.T) {
	paris := call("weather", `{"city":"Paris"}`)
	f := newFixture(t, setup{turns: calls("never", paris, paris), tools: []any{decl("weather", true, weatherSchema)},
		funcs: map[string]toolFunc{"weather": echo}, use: loop.ToolUse{MaxRepeatedCalls: 1}})
	require.NoError(t, f.create)
	_, err := f.s.Prompt(context.Background(), "Go", loop.PromptOptions{})
	require.True(t, errors.Is(err, loop.ErrRepeatedCall))
	require.Equal(t, 2, f.s.Usage().Steps)
	require.Len(t, f.page.steps, 2)
}
