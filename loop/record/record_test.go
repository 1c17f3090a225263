package record_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/loop/record"
	"langmodel/loop/scripted"
	"langmodel/session"
)

var weather = session.Tool{Name: "weather", Description: "The weather in a city.", InputSchema: jsonv.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

func request(system, user string, tools ...session.Tool) *loop.Request {
	return &loop.Request{
		Messages: []session.Message{session.TextMessage(session.RoleSystem, system), session.TextMessage(session.RoleUser, user)},
		Tools:    tools,
	}
}

// step runs one step of m and returns what it emitted, one line per delta.
func step(m loop.Model, ctx context.Context, req *loop.Request) ([]string, error) {
	var out []string
	err := m.Step(ctx, req, func(d loop.Delta) error {
		switch {
		case d.Call != nil:
			out = append(out, "call "+d.Call.CallID+" "+d.Call.Name+" "+string(d.Call.Arguments))
		case d.Usage != nil:
			b := d.Usage.AppendJSON(nil)
			out = append(out, "usage "+string(b))
		default:
			out = append(out, "text "+d.Text)
		}
		return nil
	})
	return out, err
}

// recording records the steps of turns asked reqs and returns the recording, as the
// page gets it: {kind: "scripted", turns}.
func recording(t *testing.T, turns []scripted.Turn, reqs []*loop.Request) (map[string]any, [][]string) {
	t.Helper()
	r := record.Wrap(scripted.New(turns...))
	var steps []any
	r.Sink = func(b []byte) {
		v, err := session.DecodeJSON(b)
		require.NoError(t, err, string(b))
		steps = append(steps, v)
	}
	var outs [][]string
	for _, req := range reqs {
		out, _ := step(r, context.Background(), req)
		outs = append(outs, out)
	}
	return map[string]any{"kind": "scripted", "version": jsonv.Number("1"), "turns": steps}, outs
}

func TestRecord_ReplaysWhatWasRecorded(t *testing.T) {
	turns := []scripted.Turn{
		{Chunks: []string{"Let me ", "look."}, Calls: []scripted.Call{{ID: "c1", Name: "weather", Arguments: jsonv.RawMessage(`{"city":"Oslo"}`)}}, Usage: &loop.Usage{InputTokens: 12, OutputTokens: 5}},
		{Text: "It rains in Oslo.", Usage: &loop.Usage{InputTokens: 20, OutputTokens: 4, CachedTokens: 12, Cached: true}},
		{Error: &scripted.StepError{Kind: session.KindNotAllowed, Message: "quota"}},
	}
	reqs := []*loop.Request{request("Be brief.", "Weather in Oslo?", weather), request("Be brief.", "Weather in Oslo?", weather), request("Be brief.", "Again?")}
	rec, want := recording(t, turns, reqs)
	replay, err := scripted.FromJSON(rec)
	require.NoError(t, err)
	for i, req := range reqs {
		got, err := step(replay, context.Background(), req)
		require.Equal(t, want[i], got, "step %d", i)
		if i == 2 {
			require.Equal(t, session.KindNotAllowed, session.KindOf(err))
			require.Contains(t, err.Error(), "quota")
		} else {
			require.NoError(t, err)
		}
	}
	require.Equal(t, []string{"text Let me ", "text look.", `call c1 weather {"city":"Oslo"}`, `usage {"inputTokens":12,"outputTokens":5}`}, want[0])
	require.Equal(t, []string{"text It rains in Oslo.", `usage {"inputTokens":20,"outputTokens":4,"cachedTokens":12}`}, want[1], "the cached tokens the backend reported replay")
}

func TestRecord_KeepsNoBackendDetail(t *testing.T) {
	rec, _ := recording(t, []scripted.Turn{{Text: "hi"}}, []*loop.Request{request("Be brief.", "Hello", weather)})
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	require.JSONEq(t, `{"kind":"scripted","version":1,"turns":[{"request":{
		"messages":[{"role":"system","content":[{"type":"text","value":"Be brief."}]},{"role":"user","content":[{"type":"text","value":"Hello"}]}],
		"tools":[{"name":"weather","description":"The weather in a city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"toolChoice":"auto"},
		"chunks":["hi"]}]}`, string(b))
}

func TestRecord_AbortedStepReplaysUntilAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := record.Wrap(scripted.New(scripted.Turn{Chunks: []string{"par"}, Hang: true}))
	var got []byte
	r.Sink = func(b []byte) { got = b }
	done := make(chan error)
	go func() { _, err := step(r, ctx, request("s", "u")); done <- err }()
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Contains(t, string(got), `"chunks":["par"],"hang":true}`)
}

func TestRecord_StrictReplay(t *testing.T) {
	recorded := request("You are brief.", "Weather in Oslo?", weather)
	rec, _ := recording(t, []scripted.Turn{{Text: "Rain."}}, []*loop.Request{recorded})
	otherSchema := weather
	otherSchema.InputSchema = jsonv.RawMessage(`{"type":"object","properties":{"city":{"type":"number"}}}`)
	tests := []struct {
		name   string
		req    *loop.Request
		strict bool
		want   string // the difference named; "" when the step plays
	}{
		{"the same request plays", request("You are brief.", "Weather in Oslo?", weather), true, ""},
		{"a changed system prompt is named", request("You were brief.", "Weather in Oslo?", weather), true, `messages[0].content[0].value: recorded "You are brief.", got "You were brief."`},
		{"a changed tool schema is named", request("You are brief.", "Weather in Oslo?", otherSchema), true, `tools[0].inputSchema.properties.city.type: recorded "string", got "number"`},
		{"a changed message is named", request("You are brief.", "Weather in Bergen?", weather), true, `messages[1].content[0].value: recorded "Weather in Oslo?", got "Weather in Bergen?"`},
		{"a tool removed is named", request("You are brief.", "Weather in Oslo?"), true, `tools: recorded [{"description":"The weather in a city."…, got nothing`},
		{"a message added is named", &loop.Request{Messages: append(append([]session.Message(nil), recorded.Messages...), session.TextMessage(session.RoleUser, "Now!")), Tools: recorded.Tools}, true, `messages[2]: recorded nothing, got {"content":[{"type":"text","value":"Now!…`},
		{"a changed option is named", &loop.Request{Messages: recorded.Messages, Tools: recorded.Tools, SamplingMode: "most-predictable"}, true, `samplingMode: recorded nothing, got "most-predictable"`},
		{"without strict a changed request plays", request("You were brief.", "Weather in Bergen?"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := map[string]any{"kind": "scripted", "turns": rec["turns"], "strict": tt.strict}
			m, err := scripted.FromJSON(cfg)
			require.NoError(t, err)
			got, err := step(m, context.Background(), tt.req)
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, []string{"text Rain."}, got)
				return
			}
			require.Equal(t, session.KindData, session.KindOf(err))
			require.True(t, errors.Is(err, scripted.ErrRequestDiffers))
			require.True(t, strings.HasSuffix(err.Error(), "the request differs from the recording: step 1: "+tt.want), err.Error())
			require.Empty(t, got)
		})
	}
}

func TestRecord_PassesWindowAndLanguages(t *testing.T) {
	s := scripted.New()
	s.Window = 4096
	r := record.Wrap(s)
	require.Equal(t, 4096, r.ContextWindow())
	require.True(t, r.ServesLanguage("en"))
	require.False(t, r.ServesLanguage("ja"))
}

// TestRecord_ReplaysAClosedLoop records a closed-loop prompt (a call, its result, an
// answer) of a real loop.Session and replays the recording strictly in another: the
// requests the loop sends (its tool results included) are the recorded ones, so the
// replay gives the same history; a tool that answers otherwise is the difference named.
func TestRecord_ReplaysAClosedLoop(t *testing.T) {
	tools, err := session.ParseTools([]any{map[string]any{"name": "weather", "description": "The weather in a city.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, "hasExecute": true}}, false)
	require.NoError(t, err)
	runner := func(answer string) loop.RunnerFunc {
		return func(_ loop.Context, _ session.ToolCall, _ func(jsonv.RawMessage)) ([]session.ResultPart, error) {
			return []session.ResultPart{{Type: "text", Text: answer}}, nil
		}
	}
	play := func(m loop.Model, answer string) (string, []byte, error) {
		s, err := loop.New(loop.Options{Model: m, Runner: runner(answer), Tools: tools})
		require.NoError(t, err)
		defer s.Destroy()
		r, err := s.Prompt(context.Background(), "Weather in Oslo?", loop.PromptOptions{})
		return r.Text, s.History(), err
	}
	rec := record.Wrap(scripted.New(
		scripted.Turn{Calls: []scripted.Call{{Name: "weather", Arguments: jsonv.RawMessage(`{"city":"Oslo"}`)}}},
		scripted.Turn{Chunks: []string{"Rain ", "in Oslo."}},
	))
	var turns []any
	rec.Sink = func(b []byte) {
		v, err := session.DecodeJSON(b)
		require.NoError(t, err)
		turns = append(turns, v)
	}
	text, history, err := play(rec, "rain")
	require.NoError(t, err)
	require.Equal(t, "Rain in Oslo.", text)
	require.Len(t, turns, 2)

	replay := func() loop.Model {
		m, err := scripted.FromJSON(map[string]any{"kind": "scripted", "turns": turns, "strict": true})
		require.NoError(t, err)
		return m
	}
	gotText, gotHistory, err := play(replay(), "rain")
	require.NoError(t, err)
	require.Equal(t, text, gotText)
	require.JSONEq(t, string(history), string(gotHistory))

	_, _, err = play(replay(), "snow")
	require.Equal(t, session.KindData, session.KindOf(err))
	require.EqualError(t, err, `the request differs from the recording: step 2: messages[2].content[0].value.result[0].value: recorded "rain", got "snow"`)
}

// A secret the model split over two chunks is cleaned whole: Clean (the module's
// redactor) sees the step's chunks together, before they are recorded.
func TestRecord_CleansChunksTogether(t *testing.T) {
	var red redact.Redactor
	require.True(t, red.Add("sk-split-0123456789"))
	r := record.Wrap(scripted.New(scripted.Turn{Chunks: []string{"key sk-split-01234", "56789 ok"}}))
	r.Clean = red.Parts
	var got string
	r.Sink = func(b []byte) { got = string(b) }
	_, err := step(r, context.Background(), request("s", "u"))
	require.NoError(t, err)
	require.Contains(t, got, `"chunks":["key [redacted]"," ok"]`)
}

// A chain of backends (loop/chain) says which member answered in Request.Backend (its
// index plus one): the recorded step names it; any other backend's step has no backend.
func TestRecord_NamesTheChainMember(t *testing.T) {
	tests := []struct {
		name    string
		backend int
		want    string
	}{
		{"a chain's second member answered", 2, `{"request":{"messages":[{"role":"user","content":[{"type":"text","value":"u"}]}],"toolChoice":"auto"},"chunks":["hi"],"backend":1}`},
		{"not a chain", 0, `{"request":{"messages":[{"role":"user","content":[{"type":"text","value":"u"}]}],"toolChoice":"auto"},"chunks":["hi"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := record.Wrap(answering{backend: tt.backend})
			var got string
			r.Sink = func(b []byte) { got = string(b) }
			_, err := step(r, context.Background(), &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "u")}})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, got)
		})
	}
}

// answering answers "hi" as a chain's member backend-1 would.
type answering struct{ backend int }

func (a answering) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	req.Backend = a.backend
	return emit(loop.Delta{Text: "hi"})
}
