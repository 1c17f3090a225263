package textproto_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/textproto"
	"langmodel/session"
)

// TestWrap_ThinkingIsNeverACall: the text protocol reads calls in the answer only; a
// call block the model writes while it thinks (a <think> block, split off beneath the
// protocol by loop.Thinking) is reasoning, whatever chunks it comes in.
func TestWrap_ThinkingIsNeverACall(t *testing.T) {
	tools := testTools(t)
	hermes := "<tool_call>\n" + weatherCall + "\n</tool_call>"
	tests := []struct {
		name      string
		reply     string
		reasoning string
		want      out
	}{
		{"a block inside thinking, then an answer", "<think>Maybe " + block(weatherCall) + "?</think>\nNo need: it is sunny.",
			"Maybe " + block(weatherCall) + "?", out{text: "No need: it is sunny."}},
		{"Hermes tags inside thinking", "<think>" + hermes + "</think>Sunny.", hermes, out{text: "Sunny."}},
		{"thinking, then a call", "<think>Ask the tool.</think>\n" + hermes, "Ask the tool.", out{calls: []string{`get_weather {"city":"Paris"}`}}},
		{"a block in thinking and another after: only the one after is a call", "<think>" + block(`{"name": "get_time", "arguments": {"zone": "UTC"}}`) + "</think>" + hermes,
			block(`{"name": "get_time", "arguments": {"zone": "UTC"}}`), out{calls: []string{`get_weather {"city":"Paris"}`}}},
		{"a </think> in a call's argument after thinking is no boundary", "<think>t</think>" + block(`{"name": "get_weather", "arguments": {"city": "</think>"}}`),
			"t", out{calls: []string{`get_weather {"city":"</think>"}`}}},
		{"unterminated thinking holding a block: no call, no answer", "<think>" + hermes, hermes, out{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := 1; i <= len(tc.reply); i++ {
				chunks := []string{tc.reply[:i]}
				if i < len(tc.reply) {
					chunks = append(chunks, tc.reply[i:])
				}
				f := &fake{replies: [][]string{chunks}}
				m := textproto.Wrap(loop.Thinking(f, false), textproto.Options{})
				var reasoning string
				got := step(t, reasoningOf(m, &reasoning), &loop.Request{Messages: []session.Message{user("hi")}, Tools: tools})
				require.Equal(t, tc.want, got, "split at %d", i)
				require.Equal(t, tc.reasoning, reasoning, "split at %d", i)
				require.Len(t, f.reqs, 1, "no repair round")
			}
		})
	}
}

// TestWrap_ReasoningPassesWithToolsOff: with tools off after calls, the step's text goes
// through the filter of call blocks, and its reasoning on as it came.
func TestWrap_ReasoningPassesWithToolsOff(t *testing.T) {
	f := &fake{replies: [][]string{{"<think>done</think>Sunny."}}}
	m := textproto.Wrap(loop.Thinking(f, false), textproto.Options{})
	call := session.ToolCall{CallID: "c1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	res := session.ToolResult{CallID: "c1", Name: "get_weather", Parts: []session.ResultPart{{Type: "text", Text: "sun"}}}
	var reasoning string
	got := step(t, reasoningOf(m, &reasoning), &loop.Request{Messages: []session.Message{user("hi"), session.CallMessage(call), session.ResultMessage(res)}})
	require.Equal(t, out{text: "Sunny."}, got)
	require.Equal(t, "done", reasoning)
}

// reasoningOf is m with the reasoning of its deltas added to *into.
func reasoningOf(m loop.Model, into *string) loop.Model {
	return modelFunc(func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
		return m.Step(ctx, req, func(d loop.Delta) error {
			*into += d.Reasoning
			return emit(d)
		})
	})
}

type modelFunc func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error

func (f modelFunc) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return f(ctx, req, emit)
}
