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

// The Prompt API's rules that live in the loop, one row each, named after the spec section (or
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

// TestResponseConstraint_RepairOffersNoTools: with tools, a constrained answer that fails
// the check is repaired in a step that offers no tools: the repair asks for the answer
// alone, and a backend that holds the constraint while decoding (an in-page engine's
// grammar) can only hold it on a step where the model need not call (docs/small-windows.md, "Structured output with tools").
func TestResponseConstraint_RepairOffersNoTools(t *testing.T) {
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("time", `{}`)}}, {Text: "It is noon."}, {Text: `{"n": 12}`}},
		tools: []any{decl("time", true, "")},
		funcs: map[string]toolFunc{"time": echo},
	})
	require.NoError(t, f.create)
	r, err := f.s.Prompt(context.Background(), "What time is it?", loop.PromptOptions{ResponseConstraint: jsonv.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)})
	require.NoError(t, err)
	require.Equal(t, `{"n": 12}`, r.Text)
	reqs := f.model.Requests()
	require.Len(t, reqs, 3)
	require.Len(t, reqs[0].Tools, 1, "the call's step offers the tool")
	require.Len(t, reqs[1].Tools, 1, "the answer's step offers it too: the model may call again")
	require.Empty(t, reqs[2].Tools, "the repair round asks for the answer alone")
}

func TestResponseConstraint(t *testing.T) {
	// DESIGN.md §3: every constrained answer is checked; a failed one gets
	// one repair round; then SyntaxError (the explainer: "unable to produce a response that
	// is compliant … will error with a SyntaxError"), history unchanged.
	schemaC := jsonv.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	regexpC := jsonv.RawMessage(`{"pattern":"^[a-z]+@[a-z]+\\.com$"}`)
	notJSON := `the model's answer does not match the responseConstraint: it is not JSON (invalid character 'h' looking for beginning of value)`
	tests := []struct {
		name       string
		constraint jsonv.RawMessage
		turns      []scripted.Turn
		stream     bool
		answer     string
		kind       session.Kind
		message    string
		steps      int    // model steps taken
		repair     string // the repair prompt the second step saw
	}{
		{name: "a JSON answer that matches resolves at once", constraint: schemaC, turns: []scripted.Turn{{Text: `{"n": 3}`}}, answer: `{"n": 3}`, steps: 1},
		{name: "a failed answer gets one repair round that says what was wrong", constraint: schemaC,
			turns: []scripted.Turn{{Text: `{"n": "three"}`}, {Text: `{"n": 3}`}}, answer: `{"n": 3}`, steps: 2,
			repair: `Your previous answer does not have the required format: it does not match the JSON Schema at /n: expected integer, got string. Answer again with only the answer, as JSON matching this JSON Schema: {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}.`},
		{name: "an answer that fails twice rejects with SyntaxError", constraint: schemaC,
			turns: []scripted.Turn{{Text: "hello"}, {Text: `{"m": 1}`}}, steps: 2, kind: session.KindSyntax,
			message: `the model's answer does not match the responseConstraint: it does not match the JSON Schema at /: missing required property "n"`},
		{name: "text that is not JSON", constraint: schemaC, turns: []scripted.Turn{{Text: "hello"}, {Text: "hello"}}, steps: 2, kind: session.KindSyntax, message: notJSON},
		{name: "a streamed answer gets no repair round: the stream errors", constraint: schemaC, stream: true,
			turns: []scripted.Turn{{Text: "hello"}, {Text: `{"n": 3}`}}, steps: 1, kind: session.KindSyntax, message: notJSON},
		{name: "a streamed answer that matches", constraint: schemaC, stream: true, turns: []scripted.Turn{{Chunks: []string{`{"n"`, `: 3}`}}}, answer: `{"n": 3}`, steps: 1},
		{name: "a RegExp constraint that matches", constraint: regexpC, turns: []scripted.Turn{{Text: "ann@example.com"}}, answer: "ann@example.com", steps: 1},
		{name: "a RegExp constraint repaired", constraint: regexpC, turns: []scripted.Turn{{Text: "It is ann@example.com"}, {Text: "ann@example.com"}}, answer: "ann@example.com", steps: 2,
			repair: `Your previous answer does not have the required format: it does not match the regular expression /^[a-z]+@[a-z]+\.com$/. Answer again with only the answer, matching the regular expression /^[a-z]+@[a-z]+\.com$/.`},
		{name: "a RegExp constraint missed twice", constraint: regexpC, turns: []scripted.Turn{{Text: "no"}, {Text: "still no"}}, steps: 2, kind: session.KindSyntax,
			message: `the model's answer does not match the responseConstraint: it does not match the regular expression /^[a-z]+@[a-z]+\.com$/`},
		{name: "an unsupported schema feature is NotSupportedError before any step", constraint: jsonv.RawMessage(`{"type":"object","unevaluatedProperties":false}`), steps: 0, kind: session.KindNotSupported,
			message: `invalid responseConstraint: schema: unsupported keyword "unevaluatedProperties" at the root`},
		{name: "a malformed schema is TypeError", constraint: jsonv.RawMessage(`{"type":7}`), steps: 0, kind: session.KindType,
			message: `invalid responseConstraint: schema: "type" at the root must be a type name or an array of type names ("null", "boolean", "object", "array", "number", "string", "integer")`},
		{name: "a malformed RegExp is SyntaxError", constraint: jsonv.RawMessage(`{"pattern":"("}`), steps: 0, kind: session.KindSyntax,
			message: "invalid responseConstraint: /(/ is not a valid regular expression (unterminated group at offset 0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{turns: append([]scripted.Turn{{Text: "hi"}}, tc.turns...)})
			_, err := f.s.Prompt(context.Background(), "hello", loop.PromptOptions{})
			require.NoError(t, err)
			before, usage := history(f.s), f.s.ContextUsage()
			po := loop.PromptOptions{ResponseConstraint: tc.constraint}
			var streamed strings.Builder
			if tc.stream {
				po.OnChunk = func(c loop.Chunk) { streamed.WriteString(c.Text) }
			}
			r, err := f.s.Prompt(context.Background(), "q", po)
			require.Len(t, f.model.Requests(), 1+tc.steps)
			if tc.repair != "" {
				second := f.model.Requests()[2]
				require.Equal(t, tc.repair, second.Last.Text())
				require.Equal(t, len(before)+3, second.Messages, "the history, the prompt, the failed answer, the repair prompt")
			}
			if tc.kind != "" {
				require.Equal(t, tc.kind, kindOf(err))
				require.EqualError(t, err, tc.message)
				require.Equal(t, before, history(f.s))
				require.Equal(t, usage, f.s.ContextUsage())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.answer, r.Text)
			require.Equal(t, append(before, "user: q", "assistant: "+tc.answer), history(f.s), "the repair exchange is not kept")
			if tc.stream {
				require.Equal(t, tc.answer, streamed.String())
			}
		})
	}
}

func TestResponseConstraint_OmitInputWithoutConstraint(t *testing.T) {
	// The explainer, "Structured output": omitResponseConstraintInput without a
	// responseConstraint is a TypeError; the model is not asked.
	f := newFixture(t, setup{turns: []scripted.Turn{{Text: "a"}}})
	_, err := f.s.Prompt(context.Background(), "q", loop.PromptOptions{OmitConstraintInput: true})
	require.Equal(t, session.KindType, kindOf(err))
	require.EqualError(t, err, "invalid responseConstraint: omitResponseConstraintInput is true but there is no responseConstraint")
	require.Empty(t, f.model.Requests())
	require.Empty(t, history(f.s))
}

// TestOpenLoop_TheExplainersAnswerNeedsNoToolResponseDeclared: DESIGN.md §3's one
// exception. A session whose expectedOutputs include tool-call takes the answer to a call
// its own model made (in any form) without tool-response among its inputs; a call the page
// writes, or an answer to a call the model never made, still needs its declaration, and
// the refusal leaves the history as it was.
func TestOpenLoop_TheExplainersAnswerNeedsNoToolResponseDeclared(t *testing.T) {
	answer := func(id string) any {
		return js(t, `[{"role":"tool-result","content":{"type":"tool-result","value":{"callId":"`+id+`","name":"w","result":[{"type":"object","value":{"temp":12}}]}}}]`)
	}
	for _, tc := range []struct {
		name    string
		input   func(call string) any
		append  bool
		kind    session.Kind
		message string
	}{
		{"prompt answers the model's call", answer, false, "", ""},
		{"append answers the model's call", answer, true, "", ""},
		{"Chrome's form answers the model's call", func(id string) any {
			return js(t, `[{"role":"user","content":[{"type":"tool-response","value":{"callID":"`+id+`","name":"w","result":[{"type":"object","value":{"temp":12}}]}}]}]`)
		}, false, "", ""},
		{"an answer to a call the model never made", func(string) any { return answer("call_9") }, false, session.KindNotSupported,
			`content type not declared in expectedInputs: message 0 part 0: tool-response (callID "call_9" answers no call this session's model made; declare {type: "tool-response"} in expectedInputs)`},
		{"a call the page writes", func(id string) any {
			return js(t, `[{"role":"tool-call","content":{"type":"tool-call","value":{"callId":"page_1","name":"w","arguments":{}}}}]`)
		}, true, session.KindNotSupported,
			`content type not declared in expectedInputs: message 0 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{
				turns:  []scripted.Turn{{Calls: []scripted.Call{call("w", `{"city":"Seattle"}`)}}, {Text: "12 degrees."}},
				tools:  []any{decl("w", false, "")},
				inputs: session.Expected{OwnCallResponses: true},
			})
			r, err := f.s.Prompt(context.Background(), "What is the weather in Seattle?", loop.PromptOptions{})
			require.NoError(t, err)
			require.Len(t, r.Calls, 1)
			before := history(f.s)
			if tc.append {
				err = f.s.Append(context.Background(), tc.input(r.Calls[0].CallID))
			} else {
				_, err = f.s.Prompt(context.Background(), tc.input(r.Calls[0].CallID), loop.PromptOptions{})
			}
			if tc.kind != "" {
				require.Equal(t, tc.kind, kindOf(err))
				require.EqualError(t, err, tc.message)
				require.Equal(t, before, history(f.s))
				return
			}
			require.NoError(t, err)
			require.Contains(t, history(f.s), `result call_1 w [{"type":"object","value":{"temp":12}}]`)
		})
	}
}
