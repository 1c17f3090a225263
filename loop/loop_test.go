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

var (
	weatherSchema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	failing       = func(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
		return nil, errors.New("the weather service is down")
	}
)

// TestPrompt_Loop runs one prompt per row through the loop and checks the answer, the
// history it leaves and the error, by exact text.
func TestPrompt_Loop(t *testing.T) {
	tests := []struct {
		name     string
		setup    setup
		input    string // JSON
		want     loop.Result
		wantErr  session.Kind
		errText  string
		history  []string // after the prompt; on error it must equal the history before
		partial  []string // on error: the transcript the error carries
		ran      []string
		notTools bool // the last model step was offered no tools
	}{
		{
			name:    "text answer without tools",
			setup:   setup{turns: []scripted.Turn{{Text: "Hello!"}}},
			input:   `"Hi"`,
			want:    loop.Result{Text: "Hello!"},
			history: []string{"user: Hi", "assistant: Hello!"},
		},
		{
			name: "closed loop runs the call and asks again",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("weather", `{"city":"Paris"}`)}}, {Text: "Sunny."}},
				tools: []any{decl("weather", true, weatherSchema)},
				funcs: map[string]toolFunc{"weather": echo},
			},
			input:   `"Weather in Paris?"`,
			want:    loop.Result{Text: "Sunny."},
			history: []string{"user: Weather in Paris?", `call call_1 weather{"city":"Paris"}`, `result call_1 weather [{"type":"object","value":{"city":"Paris"}}]`, "assistant: Sunny."},
			ran:     []string{`weather{"city":"Paris"}`},
		},
		{
			name: "a tool that throws becomes a tool error, not a failed prompt",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("weather", `{"city":"Oslo"}`)}}, {Text: "Sorry."}},
				tools: []any{decl("weather", true, weatherSchema)},
				funcs: map[string]toolFunc{"weather": failing},
			},
			input:   `"Weather in Oslo?"`,
			want:    loop.Result{Text: "Sorry."},
			history: []string{"user: Weather in Oslo?", `call call_1 weather{"city":"Oslo"}`, "error call_1 weather: the weather service is down", "assistant: Sorry."},
			ran:     []string{`weather{"city":"Oslo"}`},
		},
		{
			name: "arguments that break the schema never reach execute",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("weather", `{"city":7}`)}}, {Text: "Oops."}},
				tools: []any{decl("weather", true, weatherSchema)},
				funcs: map[string]toolFunc{"weather": echo},
			},
			input:   `"Weather?"`,
			want:    loop.Result{Text: "Oops."},
			history: []string{"user: Weather?", `call call_1 weather{"city":7}`, "error call_1 weather: invalid arguments for tool weather: at /city: expected string, got number", "assistant: Oops."},
		},
		{
			name: "arguments that are not an object are recorded as {} and answered with an error",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("weather", `"Paris"`)}}, {Text: "Oops."}},
				tools: []any{decl("weather", true, weatherSchema)},
				funcs: map[string]toolFunc{"weather": echo},
			},
			input:   `"Weather?"`,
			want:    loop.Result{Text: "Oops."},
			history: []string{"user: Weather?", `call call_1 weather{}`, `error call_1 weather: invalid arguments for tool weather: not a JSON object: "Paris"`, "assistant: Oops."},
		},
		{
			name: "an unknown tool name is answered with the list of tools",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("wether", `{}`)}}, {Text: "Hm."}},
				tools: []any{decl("weather", true, weatherSchema), decl("time", true, "")},
				funcs: map[string]toolFunc{"weather": echo, "time": echo},
			},
			input:   `"Weather?"`,
			want:    loop.Result{Text: "Hm."},
			history: []string{"user: Weather?", `call call_1 wether{}`, `error call_1 wether: unknown tool "wether"; the tools are: time, weather`, "assistant: Hm."},
		},
		{
			name: "maxToolCalls exactly reached by a parallel batch",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{"n":1}`), call("time", `{"n":2}`)}}, {Calls: []scripted.Call{call("time", `{"n":3}`)}}, {Text: "Done."}},
				tools: []any{decl("time", true, "")},
				funcs: map[string]toolFunc{"time": echo},
				use:   loop.ToolUse{MaxToolCalls: 3},
			},
			input: `"Go"`,
			want:  loop.Result{Text: "Done."},
			history: []string{"user: Go", `call call_1 time{"n":1}`, `call call_2 time{"n":2}`,
				`result call_1 time [{"type":"object","value":{"n":1}}]`, `result call_2 time [{"type":"object","value":{"n":2}}]`,
				`call call_3 time{"n":3}`, `result call_3 time [{"type":"object","value":{"n":3}}]`, "assistant: Done."},
			ran: []string{`time{"n":1}`, `time{"n":2}`, `time{"n":3}`},
		},
		{
			name: "one call over maxToolCalls inside a parallel batch rejects and restores",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{"n":1}`), call("time", `{"n":2}`)}}, {Calls: []scripted.Call{call("time", `{"n":3}`), call("time", `{"n":4}`)}}, {Text: "Done."}},
				tools: []any{decl("time", true, "")},
				funcs: map[string]toolFunc{"time": echo},
				use:   loop.ToolUse{MaxToolCalls: 3},
			},
			input:   `"Go"`,
			wantErr: session.KindOperation,
			errText: "tool call limit reached: maxToolCalls is 3 and the model asked for call 4 (time)",
			partial: []string{"user: Go", `call call_1 time{"n":1}`, `call call_2 time{"n":2}`,
				`result call_1 time [{"type":"object","value":{"n":1}}]`, `result call_2 time [{"type":"object","value":{"n":2}}]`,
				`call call_3 time{"n":3}`, `call call_4 time{"n":4}`},
			ran: []string{`time{"n":1}`, `time{"n":2}`},
		},
		{
			name: `onLimit "answer" runs up to the limit, answers the rest, and asks once more without tools`,
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{"n":1}`), call("time", `{"n":2}`), call("time", `{"n":3}`)}}, {Text: "Partial answer."}},
				tools: []any{decl("time", true, "")},
				funcs: map[string]toolFunc{"time": echo},
				use:   loop.ToolUse{MaxToolCalls: 2, OnLimit: loop.LimitAnswer},
			},
			input: `"Go"`,
			want:  loop.Result{Text: "Partial answer."},
			history: []string{"user: Go", `call call_1 time{"n":1}`, `call call_2 time{"n":2}`, `call call_3 time{"n":3}`,
				`result call_1 time [{"type":"object","value":{"n":1}}]`, `result call_2 time [{"type":"object","value":{"n":2}}]`,
				"error call_3 time: not run: the limit of 2 tool calls for one prompt was reached; answer with what you have",
				"assistant: Partial answer."},
			ran:      []string{`time{"n":1}`, `time{"n":2}`},
			notTools: true,
		},
		{
			name: "a declined approval reaches the model as a tool error and the loop goes on",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("delete", `{}`)}}, {Text: "Not deleted."}},
				tools: []any{decl("delete", true, "")},
				funcs: map[string]toolFunc{"delete": echo},
				use: loop.ToolUse{Approve: func(ctx loop.Context, c session.ToolCall, t *session.Tool) (bool, string, error) {
					return false, "not today", nil
				}},
			},
			input:   `"Delete it"`,
			want:    loop.Result{Text: "Not deleted."},
			history: []string{"user: Delete it", "call call_1 delete{}", "error call_1 delete: the user declined this tool call: not today", "assistant: Not deleted."},
		},
		{
			name: "an approver that fails counts as a refusal",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("delete", `{}`)}}, {Text: "Not deleted."}},
				tools: []any{decl("delete", true, "")},
				funcs: map[string]toolFunc{"delete": echo},
				use: loop.ToolUse{Approve: func(ctx loop.Context, c session.ToolCall, t *session.Tool) (bool, string, error) {
					return false, "", errors.New("dialog closed")
				}},
			},
			input:   `"Delete it"`,
			want:    loop.Result{Text: "Not deleted."},
			history: []string{"user: Delete it", "call call_1 delete{}", "error call_1 delete: the user declined this tool call: dialog closed", "assistant: Not deleted."},
		},
		{
			name: "open loop hands the calls back and leaves them pending",
			setup: setup{
				turns: []scripted.Turn{{Text: "Let me check.", Calls: []scripted.Call{call("weather", `{"city":"Rome"}`)}}},
				tools: []any{decl("weather", false, weatherSchema)},
			},
			input:   `"Weather in Rome?"`,
			want:    loop.Result{Text: "Let me check.", Calls: []session.ToolCall{{CallID: "call_1", Name: "weather", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}}},
			history: []string{"user: Weather in Rome?", "assistant: Let me check.", `call call_1 weather{"city":"Rome"}`},
		},
		{
			name: "hybrid runs the calls with execute and hands back the others",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{}`), call("weather", `{"city":"Rome"}`)}}},
				tools: []any{decl("time", true, ""), decl("weather", false, weatherSchema)},
				funcs: map[string]toolFunc{"time": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { return "noon", nil }},
			},
			input:   `"Time and weather?"`,
			want:    loop.Result{Calls: []session.ToolCall{{CallID: "call_2", Name: "weather", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}}},
			history: []string{"user: Time and weather?", "call call_1 time{}", `call call_2 weather{"city":"Rome"}`, `result call_1 time [{"type":"text","value":"noon"}]`},
			ran:     []string{"time{}"},
		},
		{
			name: "toolUseConfig.enabled false makes every call go back to the page",
			setup: setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{}`)}}},
				tools: []any{decl("time", true, "")},
				funcs: map[string]toolFunc{"time": echo},
				use:   loop.ToolUse{Disabled: true},
			},
			input:   `"Time?"`,
			want:    loop.Result{Calls: []session.ToolCall{{CallID: "call_1", Name: "time", Arguments: jsonv.RawMessage(`{}`)}}},
			history: []string{"user: Time?", "call call_1 time{}"},
		},
		{
			name: "a model failure rejects and restores the history",
			setup: setup{
				turns:   []scripted.Turn{{Text: "half an ans", Error: &scripted.StepError{Kind: session.KindNetwork, Message: "connection reset"}}},
				initial: `[{"role":"system","content":"Be brief."}]`,
			},
			input:   `"Hi"`,
			wantErr: session.KindNetwork,
			errText: "the model failed: connection reset",
			history: []string{"system: Be brief."},
			partial: []string{"user: Hi"},
		},
		{
			name: "a model that calls tools after they were turned off gets no tools",
			setup: setup{
				turns: []scripted.Turn{{Text: "ok", Calls: []scripted.Call{call("time", `{}`)}}},
				tools: []any{decl("time", true, "")},
				funcs: map[string]toolFunc{"time": echo},
			},
			input:   `"Hi"`,
			want:    loop.Result{Text: "ok", Calls: nil},
			history: []string{"user: Hi", "assistant: ok"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.setup)
			require.NoError(t, f.create)
			if tc.name == "a model that calls tools after they were turned off gets no tools" {
				// The page turns tools off for this prompt with toolChoice "none".
				r, err := f.s.Prompt(context.Background(), js(t, tc.input), loop.PromptOptions{ToolChoice: &loop.ToolChoice{Mode: "none"}})
				require.NoError(t, err)
				require.Equal(t, tc.want, r)
				require.Equal(t, tc.history, history(f.s))
				require.Empty(t, f.model.Requests()[0].Tools)
				return
			}
			before := history(f.s)
			r, err := f.s.Prompt(context.Background(), js(t, tc.input), loop.PromptOptions{})
			if tc.wantErr != "" {
				require.Error(t, err)
				require.Equal(t, tc.wantErr, kindOf(err))
				require.Equal(t, tc.errText, err.Error())
				require.Equal(t, before, history(f.s), "a failed prompt leaves the history as it was")
				if tc.history != nil {
					require.Equal(t, tc.history, history(f.s))
				}
				require.Equal(t, tc.partial, transcript(err))
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.want, r)
				require.Equal(t, tc.history, history(f.s))
			}
			require.ElementsMatch(t, tc.ran, f.page.Ran(), "parallel calls start in any order")
			if tc.notTools {
				reqs := f.model.Requests()
				require.Empty(t, reqs[len(reqs)-1].Tools)
				require.NotEmpty(t, reqs[0].Tools)
			}
		})
	}
}

func TestToolChoice_ForcesTheFirstStepOnly(t *testing.T) {
	for _, choice := range []loop.ToolChoice{{Mode: "required"}, {Mode: "tool", Name: "t"}} {
		t.Run(choice.Mode, func(t *testing.T) {
			f := newFixture(t, setup{
				turns: []scripted.Turn{{Calls: []scripted.Call{call("t", `{}`)}}, {Text: "done"}},
				tools: []any{decl("t", true, "")},
				funcs: map[string]toolFunc{"t": echo},
			})
			_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{ToolChoice: &choice})
			require.NoError(t, err)
			reqs := f.model.Requests()
			require.Equal(t, choice, reqs[0].Choice)
			require.Equal(t, loop.ToolChoice{Mode: "auto"}, reqs[1].Choice, "after a call the model may answer")
		})
	}
}
