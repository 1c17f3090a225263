package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/openai"
	"langmodel/session"
)

// fakeEngine streams fixed chunks (each chunk's JSON text), then fails with err, and
// records the request it got.
type fakeEngine struct {
	chunks  []string
	err     error
	request map[string]any
}

func (e *fakeEngine) Generate(ctx loop.Context, request []byte, chunk func([]byte) error) error {
	if err := json.Unmarshal(request, &e.request); err != nil {
		return err
	}
	for _, c := range e.chunks {
		if err := chunk([]byte(c)); err != nil {
			return err
		}
	}
	return e.err
}

// wllama's stream for a tool call: llama-server's chunks with id "" and model "", the
// first tool delta with id and name, then one argument fragment per token, and a usage
// chunk with no choices (stream_options.include_usage).
var wllamaCall = []string{
	`{"id":"","model":"","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
	`{"id":"","model":"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
	`{"id":"","model":"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}}]}`,
	`{"id":"","model":"","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": \"Paris\"}"}}]}}]}`,
	`{"id":"","model":"","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"id":"","model":"","choices":[],"usage":{"prompt_tokens":41,"completion_tokens":9,"total_tokens":50}}`,
}

func TestEngineModel_Step(t *testing.T) {
	call := func(id, name, args string) loop.Delta {
		return loop.Delta{Call: &session.ToolCall{CallID: id, Name: name, Arguments: jsonv.RawMessage(args)}}
	}
	tests := []struct {
		name   string
		chunks []string
		err    error
		want   []loop.Delta
		kind   session.Kind
		msg    string // in the error's message
	}{
		{name: "a tool call streamed as wllama streams it", chunks: wllamaCall,
			want: []loop.Delta{{Usage: &loop.Usage{InputTokens: 41, OutputTokens: 9}}, call("call_x1", "get_weather", `{"city": "Paris"}`)}},
		{name: "text as it comes, then usage", chunks: []string{
			`{"choices":[{"index":0,"delta":{"content":"It is "}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"sunny."},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":60,"completion_tokens":4}}`,
		}, want: []loop.Delta{{Text: "It is "}, {Text: "sunny."}, {Usage: &loop.Usage{InputTokens: 60, OutputTokens: 4}}}},
		{name: "the end and the usage in one chunk (js/engine.js joins wllama's two)", chunks: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`,
			`{"id":"","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":655,"completion_tokens":8}}`,
		}, want: []loop.Delta{{Usage: &loop.Usage{InputTokens: 655, OutputTokens: 8}}, call("c", "f", `{}`)}},
		{name: "the prompt tokens llama.cpp had cached pass through (wllama, llama.cpp's server, OpenAI)", chunks: []string{
			`{"choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":228,"completion_tokens":4,"total_tokens":232,"prompt_tokens_details":{"cached_tokens":179}}}`,
		}, want: []loop.Delta{{Text: "Hi."}, {Usage: &loop.Usage{InputTokens: 228, OutputTokens: 4, CachedTokens: 179, Cached: true}}}},
		{name: "none cached is reported as none", chunks: []string{
			`{"choices":[],"usage":{"prompt_tokens":179,"completion_tokens":4,"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":0}}}`,
		}, want: []loop.Delta{{Usage: &loop.Usage{InputTokens: 179, OutputTokens: 4, Cached: true}}}},
		{name: "details without cached tokens report none", chunks: []string{
			`{"choices":[],"usage":{"prompt_tokens":179,"completion_tokens":4,"prompt_tokens_details":null}}`,
		}, want: []loop.Delta{{Usage: &loop.Usage{InputTokens: 179, OutputTokens: 4}}}},
		{name: "a whole completion instead of chunks", chunks: []string{
			`{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`,
		}, want: []loop.Delta{{Text: "Hi."}, {Usage: &loop.Usage{InputTokens: 5, OutputTokens: 2}}}},
		{name: "two calls in one turn, interleaved", chunks: []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"n\":"}},{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}`,
		}, want: []loop.Delta{call("a", "f", `{"n":1}`), call("b", "g", `{}`)}},
		{name: "an engine that throws mid-stream makes no call", chunks: wllamaCall[:3],
			err:  session.Errorf(session.KindOperation, session.ErrModel, "%s", "memory access out of bounds"),
			kind: session.KindOperation, msg: "the model failed: memory access out of bounds"},
		{name: "the binding's name for the failure is kept", chunks: nil,
			err:  session.Errorf(session.KindNotSupported, session.ErrModel, "%s", "no model loaded"),
			kind: session.KindNotSupported, msg: "the model failed: no model loaded"},
		{name: "a chunk that is not a chunk", chunks: []string{`[1,2]`},
			kind: session.KindOperation, msg: "malformed data from the engine"},
		{name: "an error chunk", chunks: []string{`{"error":{"message":"context is full"}}`},
			kind: session.KindOperation, msg: "the engine reported an error mid-stream: context is full"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &fakeEngine{chunks: tc.chunks, err: tc.err}
			m := openai.NewEngine(openai.Config{ContextWindow: 2048}, e)
			var got []loop.Delta
			err := m.Step(context.Background(), &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "Weather in Paris?")}},
				func(d loop.Delta) error { got = append(got, d); return nil })
			if tc.kind != "" {
				require.Error(t, err)
				require.Equal(t, tc.kind, session.KindOf(err))
				require.Contains(t, err.Error(), tc.msg)
				for _, d := range got {
					require.Nil(t, d.Call, "no call from a failed stream")
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, 2048, m.ContextWindow())
		})
	}
}

// The engine gets the server backend's own request: stream with usage, the messages,
// the tools as functions.
func TestEngineModel_Request(t *testing.T) {
	e := &fakeEngine{}
	m := openai.NewEngine(openai.Config{}, e)
	tools := []session.Tool{{Name: "get_weather", Description: "Weather of a city", InputSchema: jsonv.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	err := m.Step(context.Background(), &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "Hi")}, Tools: tools, SamplingMode: "most-predictable"},
		func(loop.Delta) error { return nil })
	require.NoError(t, err)
	require.Equal(t, true, e.request["stream"])
	require.Equal(t, map[string]any{"include_usage": true}, e.request["stream_options"])
	require.Equal(t, []any{map[string]any{"role": "user", "content": "Hi"}}, e.request["messages"])
	require.Equal(t, "get_weather", e.request["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["name"])
	require.Equal(t, 0.0, e.request["temperature"])
}

// An in-page engine's chat template runs in the page (llama.cpp's), and some raise on a
// tool message without the tool's name (Hermes 2 Pro's): the engine's tool messages name
// their tool, which a server's do not (OpenAI's API refuses it: TestClosedLoop_OverOpenAI).
func TestEngineModel_ToolMessageNames(t *testing.T) {
	e := &fakeEngine{}
	m := openai.NewEngine(openai.Config{}, e)
	call := session.ToolCall{CallID: "call_x1", Name: "get_weather", Arguments: jsonv.RawMessage(`{"city":"Paris"}`)}
	msgs := []session.Message{session.TextMessage(session.RoleUser, "Weather?"), session.CallMessage(call),
		session.ResultMessage(session.ToolResult{CallID: "call_x1", Name: "get_weather", Parts: []session.ResultPart{{Type: "text", Text: "sunny"}}})}
	require.NoError(t, m.Step(context.Background(), &loop.Request{Messages: msgs}, func(loop.Delta) error { return nil }))
	sent := e.request["messages"].([]any)
	require.Len(t, sent, 3)
	id := sent[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["id"]
	require.Equal(t, map[string]any{"role": "tool", "tool_call_id": id, "name": "get_weather", "content": "sunny"}, sent[2])
}

// TestEngineModel_ResponseFormat: an in-page engine gets response_format only on a step
// that offers no tools: it holds it by a grammar over the whole reply (wllama), which
// would leave the model no way to call (docs/small-windows.md, "Structured output with
// tools"; TestBrowser_Wllama's row
// "responseConstraint with tools" over real llama.cpp).
func TestEngineModel_ResponseFormat(t *testing.T) {
	tools := []session.Tool{{Name: "get_weather", Description: "Weather of a city", InputSchema: jsonv.RawMessage(`{"type":"object"}`)}}
	for _, tc := range []struct {
		name   string
		tools  []session.Tool
		choice string
		format bool
	}{
		{"no tools: sent", nil, "auto", true},
		{"tools offered: withheld", tools, "auto", false},
		{"a call required: withheld", tools, "required", false},
		{"tools declared, toolChoice none: sent", tools, "none", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &fakeEngine{}
			req := &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "Hi")}, Tools: tc.tools,
				ToolChoice: loop.ToolChoice{Mode: tc.choice}, ResponseConstraint: jsonv.RawMessage(`{"type":"object"}`)}
			require.NoError(t, openai.NewEngine(openai.Config{}, e).Step(context.Background(), req, func(loop.Delta) error { return nil }))
			_, has := e.request["response_format"]
			require.Equal(t, tc.format, has)
			require.NotNil(t, req.ResponseConstraint, "the loop's request is left as it was")
		})
	}
}
