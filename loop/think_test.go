package loop_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// chunked is a model whose step is its chunks of text, in order.
type chunked []string

func (c chunked) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	for _, s := range c {
		if err := emit(loop.Delta{Text: s}); err != nil {
			return err
		}
	}
	return nil
}

// split runs text through loop.Thinking in the given chunks and returns the reasoning and
// the answer it gave, and how many deltas it emitted empty.
func split(t *testing.T, chunks []string, open bool) (reasoning, text string) {
	t.Helper()
	m := loop.Thinking(chunked(chunks), open)
	err := m.Step(loop.Background(), &loop.Request{}, func(d loop.Delta) error {
		require.False(t, d.Text == "" && d.Reasoning == "", "an empty delta")
		reasoning += d.Reasoning
		text += d.Text
		return nil
	})
	require.NoError(t, err)
	return reasoning, text
}

func TestThinking_SplitsAtEveryChunkBoundary(t *testing.T) {
	rows := []struct {
		name            string
		in              string
		open            bool
		reasoning, text string
	}{
		{"no thinking is all answer", "Hello there.", false, "", "Hello there."},
		{"a block then the answer", "<think>Sunny? Ask the tool.</think>\n\nIt is sunny.", false, "Sunny? Ask the tool.", "It is sunny."},
		{"white space before the block is dropped", " \n<think>x</think>y", false, "x", "y"},
		{"an empty block", "<think></think>Answer.", false, "", "Answer."},
		{"unterminated thinking is reasoning, the answer empty", "<think>I will never close", false, "I will never close", ""},
		{"unterminated with a prefix of the close tag held at the end", "<think>almost</thi", false, "almost</thi", ""},
		{"a call block inside thinking stays reasoning", "<think><tool_call>{\"name\":\"x\"}</tool_call></think>Done.", false, "<tool_call>{\"name\":\"x\"}</tool_call>", "Done."},
		{"a later <think> is text", "Answer <think>not a thought</think>.", false, "", "Answer <think>not a thought</think>."},
		{"a second block after the first is text", "<think>a</think>b<think>c</think>", false, "a", "b<think>c</think>"},
		{"a </think> after the block, as in a tool argument, is text", "<think>t</think><tool_call>{\"arguments\":{\"s\":\"</think>\"}}</tool_call>", false, "t", "<tool_call>{\"arguments\":{\"s\":\"</think>\"}}</tool_call>"},
		{"a prefix of <think> that is not one is text", "<thin>k", false, "", "<thin>k"},
		{"white space alone is the answer", " \n ", false, "", " \n "},
		{"a lone prefix of <think> at the end is the answer", "<thi", false, "", "<thi"},
		{"a template-opened block: the reply has only the close", "Think first.</think>\n\nAnswer.", true, "Think first.", "Answer."},
		{"a template-opened block never closed is reasoning", "Thinking on and on", true, "Thinking on and on", ""},
		{"a </think> without an opening is text when the template opened none", "a</think>b", false, "", "a</think>b"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r, x := split(t, []string{row.in}, row.open)
			require.Equal(t, row.reasoning, r, "whole")
			require.Equal(t, row.text, x, "whole")
			for i := 1; i < len(row.in); i++ {
				r, x := split(t, []string{row.in[:i], row.in[i:]}, row.open)
				require.Equal(t, row.reasoning, r, "split at %d", i)
				require.Equal(t, row.text, x, "split at %d", i)
			}
			bytes := make([]string, len(row.in))
			for i := range row.in {
				bytes[i] = row.in[i : i+1]
			}
			r, x = split(t, bytes, row.open)
			require.Equal(t, row.reasoning, r, "byte by byte")
			require.Equal(t, row.text, x, "byte by byte")
		})
	}
}

func TestThinking_AnswerStreamsWithoutHoldingBack(t *testing.T) {
	var got []loop.Delta
	m := loop.Thinking(chunked{"<think>a", "b</think>", "Hel", "lo"}, false)
	require.NoError(t, m.Step(loop.Background(), &loop.Request{}, func(d loop.Delta) error {
		got = append(got, d)
		return nil
	}))
	require.Equal(t, []loop.Delta{{Reasoning: "a"}, {Reasoning: "b"}, {Text: "Hel"}, {Text: "lo"}}, got)
}

func TestThinking_KeepsCallsAndUsage(t *testing.T) {
	call := &session.ToolCall{Name: "get_weather", Arguments: []byte(`{}`)}
	m := loop.Thinking(scripted.New(scripted.Turn{Chunks: []string{"<think>call it</think>"}, Calls: []scripted.Call{{Name: "get_weather", Arguments: []byte(`{}`)}}, Usage: &loop.Usage{InputTokens: 3, OutputTokens: 4}}), false)
	var got []loop.Delta
	require.NoError(t, m.Step(loop.Background(), &loop.Request{}, func(d loop.Delta) error {
		got = append(got, d)
		return nil
	}))
	require.Equal(t, []loop.Delta{{Reasoning: "call it"}, {Call: call}, {Usage: &loop.Usage{InputTokens: 3, OutputTokens: 4}}}, got)
}

// reasoningTurns think, call the weather tool, then think and answer.
func reasoningTurns() []scripted.Turn {
	return []scripted.Turn{
		{Chunks: []string{"<think>Need the weather.", "</think>"}, Calls: []scripted.Call{{ID: "c1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}}},
		{Chunks: []string{"<think>It said sunny.</think>", "Sunny in Oslo."}},
	}
}

func TestReasoning_NotInTheAnswerNorTheHistory(t *testing.T) {
	f := newFixture(t, setup{turns: reasoningTurns(), tools: []any{decl("weather", true, weatherSchema)}, funcs: map[string]toolFunc{"weather": echo}})
	model := loop.Thinking(f.model, false)
	var events []string
	s, err := loop.New(loop.Options{Model: model, Runner: f.page, Tools: f.tools, OnEvent: func(e loop.Event) {
		if e.Type == loop.EventReasoning {
			events = append(events, e.Text)
		}
	}})
	require.NoError(t, err)
	var chunks []string
	r, err := s.Prompt(loop.Background(), "Weather in Oslo?", loop.PromptOptions{OnChunk: func(c loop.Chunk) { chunks = append(chunks, c.Text) }})
	require.NoError(t, err)
	require.Equal(t, "Sunny in Oslo.", r.Text)
	require.Equal(t, []string{"Sunny in Oslo."}, chunks)
	require.Equal(t, []string{"Need the weather.", "It said sunny."}, events)
	require.Equal(t, []string{"user: Weather in Oslo?", `call c1 weather{"city":"Oslo"}`, `result c1 weather [{"type":"object","value":{"city":"Oslo"}}]`, "assistant: Sunny in Oslo."}, history(s))
	// The second step was sent no reasoning.
	for _, m := range f.model.Requests()[1:] {
		require.NotContains(t, line(m.Last), "Need the weather")
	}
}

func TestReasoning_KeptAndSentBackUnderKeepReasoning(t *testing.T) {
	f := newFixture(t, setup{turns: reasoningTurns(), tools: []any{decl("weather", true, weatherSchema)}, funcs: map[string]toolFunc{"weather": echo}})
	var sent [][]session.Message
	model := loop.Thinking(modelFunc(func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
		sent = append(sent, append([]session.Message(nil), req.Messages...))
		return f.model.Step(ctx, req, emit)
	}), false)
	s, err := loop.New(loop.Options{Model: model, Runner: f.page, Tools: f.tools, KeepReasoning: true})
	require.NoError(t, err)
	r, err := s.Prompt(loop.Background(), "Weather in Oslo?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "Sunny in Oslo.", r.Text)
	msgs := s.Messages()
	require.Equal(t, []session.Part{{Type: session.PartReasoning, Text: "Need the weather."}}, msgs[1].Parts, "a step of calls alone: its reasoning, no empty text")
	require.Equal(t, []session.Part{{Type: session.PartReasoning, Text: "It said sunny."}, {Type: session.PartText, Text: "Sunny in Oslo."}}, msgs[4].Parts)
	require.Len(t, sent, 2)
	require.Equal(t, msgs[1], sent[1][1], "the second step was sent the first step's reasoning")
	out, err := msgs[4].MarshalJSON()
	require.NoError(t, err)
	require.JSONEq(t, `{"role":"assistant","content":[{"type":"reasoning","value":"It said sunny."},{"type":"text","value":"Sunny in Oslo."}]}`, string(out))
}

func TestReasoning_EndlessThinkingIsBoundedByTheWindow(t *testing.T) {
	long := make([]string, 100)
	for i := range long {
		long[i] = "thinking and thinking and thinking "
	}
	s, err := loop.New(loop.Options{Model: loop.Thinking(chunked(append([]string{"<think>"}, long...)), false), ContextWindow: 200})
	require.NoError(t, err)
	_, err = s.Prompt(loop.Background(), "hi", loop.PromptOptions{})
	require.Equal(t, session.KindQuotaExceeded, session.KindOf(err))
	require.Empty(t, history(s))
}

type modelFunc func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error

func (f modelFunc) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return f(ctx, req, emit)
}

// deltas is a model whose step is its deltas, in order.
type deltas []loop.Delta

func (ds deltas) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	for _, d := range ds {
		if err := emit(d); err != nil {
			return err
		}
	}
	return nil
}

// Reasoning an engine split itself (reasoning_content), then the "\n\n" that stood after
// </think>, then a call or an answer: the white space is neither an answer nor the
// answer's start, whether or not the template opened the block.
func TestThinking_ReasoningSplitByTheEngine(t *testing.T) {
	call := &session.ToolCall{Name: "get_weather", Arguments: []byte(`{}`)}
	for _, tc := range []struct {
		name string
		in   deltas
		open bool
		want []loop.Delta
	}{
		{"white space then a call: no text", deltas{{Reasoning: "Ask."}, {Text: "\n\n"}, {Call: call}}, false,
			[]loop.Delta{{Reasoning: "Ask."}, {Call: call}}},
		{"white space in pieces then an answer", deltas{{Reasoning: "Ask."}, {Text: "\n"}, {Text: "\nSunny."}}, false,
			[]loop.Delta{{Reasoning: "Ask."}, {Text: "Sunny."}}},
		{"the template opened the block: the same", deltas{{Reasoning: "Ask."}, {Text: "\n\n"}, {Call: call}}, true,
			[]loop.Delta{{Reasoning: "Ask."}, {Call: call}}},
		{"text and reasoning in one delta", deltas{{Reasoning: "Ask.", Text: "\n\nSunny."}}, false,
			[]loop.Delta{{Reasoning: "Ask.", Text: "Sunny."}}},
		{"white space held before the reasoning is dropped", deltas{{Text: "\n"}, {Reasoning: "Ask."}, {Text: "\n\nSunny."}}, false,
			[]loop.Delta{{Reasoning: "Ask."}, {Text: "Sunny."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []loop.Delta
			require.NoError(t, loop.Thinking(tc.in, tc.open).Step(loop.Background(), &loop.Request{}, func(d loop.Delta) error {
				got = append(got, d)
				return nil
			}))
			require.Equal(t, tc.want, got)
		})
	}
}

// The history of a turn whose reasoning came split, then "\n\n", then a call: no
// assistant message of white space between the user and the call, and the answer does not
// start with "\n\n".
func TestReasoning_SplitByTheEngineLeavesNoWhiteSpaceTurn(t *testing.T) {
	f := newFixture(t, setup{tools: []any{decl("weather", true, weatherSchema)}, funcs: map[string]toolFunc{"weather": echo}})
	steps := []deltas{
		{{Reasoning: "Need the weather."}, {Text: "\n\n"}, {Call: &session.ToolCall{CallID: "c1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}}},
		{{Reasoning: "It said sunny."}, {Text: "\n\n"}, {Text: "Sunny in Oslo."}},
	}
	n := 0
	model := loop.Thinking(modelFunc(func(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
		n++
		return steps[n-1].Step(ctx, req, emit)
	}), false)
	s, err := loop.New(loop.Options{Model: model, Runner: f.page, Tools: f.tools})
	require.NoError(t, err)
	r, err := s.Prompt(loop.Background(), "Weather in Oslo?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "Sunny in Oslo.", r.Text)
	require.Equal(t, []string{"user: Weather in Oslo?", `call c1 weather{"city":"Oslo"}`, `result c1 weather [{"type":"object","value":{"city":"Oslo"}}]`, "assistant: Sunny in Oslo."}, history(s))
}
