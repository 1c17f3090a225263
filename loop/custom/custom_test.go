package custom_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/custom"
	"langmodel/session"
)

// fakePage is a Generator that yields fixed pieces and records the request it got.
type fakePage struct {
	pieces  []string
	request string
	err     error
}

func (p *fakePage) Generate(ctx loop.Context, request []byte, emit func([]byte) error) error {
	p.request = string(request)
	for _, piece := range p.pieces {
		if err := emit([]byte(piece)); err != nil {
			return err
		}
	}
	return p.err
}

func TestParsePiece(t *testing.T) {
	tests := []struct {
		name  string
		piece string
		want  loop.Delta
		kind  session.Kind
	}{
		{"a string is text", `"Hello"`, loop.Delta{Text: "Hello"}, ""},
		{"a text part", `{"type":"text","value":"Hi"}`, loop.Delta{Text: "Hi"}, ""},
		{"a structured call", `{"type":"tool-call","value":{"callId":"c1","name":"w","arguments":{"city":"Rome"}}}`,
			loop.Delta{Call: &session.ToolCall{CallID: "c1", Name: "w", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}}, ""},
		{"a call whose arguments are JSON text", `{"type":"tool-call","value":{"name":"w","arguments":"{\"city\":\"Rome\"}"}}`,
			loop.Delta{Call: &session.ToolCall{Name: "w", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}}, ""},
		{"usage figures", `{"type":"usage","value":{"inputTokens":12,"outputTokens":3}}`, loop.Delta{Usage: &loop.Usage{InputTokens: 12, OutputTokens: 3}}, ""},
		{"usage figures with the tokens the backend had cached", `{"type":"usage","value":{"inputTokens":12,"outputTokens":3,"cachedTokens":8}}`,
			loop.Delta{Usage: &loop.Usage{InputTokens: 12, OutputTokens: 3, CachedTokens: 8, Cached: true}}, ""},
		{"none cached, reported as such", `{"type":"usage","value":{"inputTokens":12,"outputTokens":3,"cachedTokens":0}}`,
			loop.Delta{Usage: &loop.Usage{InputTokens: 12, OutputTokens: 3, Cached: true}}, ""},
		{"a number is a TypeError", `42`, loop.Delta{}, session.KindType},
		{"a call without a name", `{"type":"tool-call","value":{"arguments":{}}}`, loop.Delta{}, session.KindType},
		{"an unknown piece type", `{"type":"image","value":"x"}`, loop.Delta{}, session.KindType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := custom.ParsePiece([]byte(tc.piece))
			require.Equal(t, tc.kind, session.KindOf(err))
			if tc.kind == "" {
				require.Equal(t, tc.want, d)
			}
		})
	}
}

// The request a page's generate receives: {messages, tools?, toolChoice,
// responseConstraint?, samplingMode?}, in that order, the messages in the form
// session.history exports, strings escaped as encoding/json escapes them, and nothing
// the engine keeps for itself.
func TestRenderRequest(t *testing.T) {
	odd := "quotes \" back\\slash \t \x01 <b>&amp;</b> \u2028\u2029 é 😀 \xff"
	weather, err := session.ParseTools([]any{map[string]any{"name": "w", "description": "Weather", "hasExecute": true, "inputSchema": map[string]any{"type": "object"}}}, false)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		req  *loop.Request
		want string
	}{
		{"nothing set: no messages, toolChoice auto, no other field", &loop.Request{},
			`{"messages":[],"toolChoice":"auto"}`},
		{"a system prompt and the user's text", &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleSystem, "Be brief."), session.TextMessage(session.RoleUser, "Hi")}},
			`{"messages":[{"role":"system","content":[{"type":"text","value":"Be brief."}]},{"role":"user","content":[{"type":"text","value":"Hi"}]}],"toolChoice":"auto"}`},
		{"text escaped as encoding/json escapes it, invalid UTF-8 as U+FFFD", &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, odd)}},
			`{"messages":[{"role":"user","content":[{"type":"text","value":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd"}]}],"toolChoice":"auto"}`},
		{"an assistant's reasoning and answer, in order", &loop.Request{Messages: []session.Message{{Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartReasoning, Text: "Ask the tool."}, {Type: session.PartText, Text: "Checking"}}}}},
			`{"messages":[{"role":"assistant","content":[{"type":"reasoning","value":"Ask the tool."},{"type":"text","value":"Checking"}]}],"toolChoice":"auto"}`},
		{"an assistant prefix is marked", &loop.Request{Messages: []session.Message{{Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartText, Text: `{"a":`}}, Prefix: true}}},
			`{"messages":[{"role":"assistant","content":[{"type":"text","value":"{\"a\":"}],"prefix":true}],"toolChoice":"auto"}`},
		{"image and audio as the page encoded them", &loop.Request{Messages: []session.Message{{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartText, Text: "And this?"},
			{Type: session.PartImage, Media: jsonv.RawMessage(`{"type":"bytes","mimeType":"image/png","base64":"iVBO"}`)}, {Type: session.PartAudio, Media: jsonv.RawMessage(`"data:audio/wav;base64,AA"`)}}}}},
			`{"messages":[{"role":"user","content":[{"type":"text","value":"And this?"},{"type":"image","value":{"type":"bytes","mimeType":"image/png","base64":"iVBO"}},{"type":"audio","value":"data:audio/wav;base64,AA"}]}],"toolChoice":"auto"}`},
		{"a tool call, its id as callID and callId", &loop.Request{Messages: []session.Message{session.CallMessage(session.ToolCall{CallID: "c1", Name: "w", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)})}},
			`{"messages":[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"w","arguments":{"city":"Rome"}}}]}],"toolChoice":"auto"}`},
		{"a call without arguments has the empty object", &loop.Request{Messages: []session.Message{session.CallMessage(session.ToolCall{CallID: "c4", Name: "now"})}},
			`{"messages":[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c4","callId":"c4","name":"now","arguments":{}}}]}],"toolChoice":"auto"}`},
		{"a tool's result, text and object parts", &loop.Request{Messages: []session.Message{session.ResultMessage(session.ToolResult{CallID: "c1", Name: "w",
			Parts: []session.ResultPart{{Type: "text", Text: "sun"}, {Type: "object", Value: jsonv.RawMessage(`{"c":21}`)}}})}},
			`{"messages":[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"text","value":"sun"},{"type":"object","value":{"c":21}}]}}]}],"toolChoice":"auto"}`},
		{"a failed call's errorMessage", &loop.Request{Messages: []session.Message{session.ResultMessage(session.ErrorResult(session.ToolCall{CallID: "c2", Name: "w"}, "no <city>"))}},
			`{"messages":[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c2","callId":"c2","name":"w","errorMessage":"no \u003ccity\u003e"}}]}],"toolChoice":"auto"}`},
		{"an untrusted tool's result is marked untrusted", &loop.Request{Messages: []session.Message{session.ResultMessage(session.ToolResult{CallID: "c3", Name: "web",
			Parts: []session.ResultPart{{Type: "text", Text: "page"}}, Untrusted: true})}},
			`{"messages":[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c3","callId":"c3","name":"web","result":[{"type":"text","value":"page"}],"untrusted":true}}]}],"toolChoice":"auto"}`},
		{"a result that answers no call goes as any result", &loop.Request{Messages: []session.Message{session.UnpairedMessage(session.ToolResult{CallID: "x1", Name: "w",
			Parts: []session.ResultPart{{Type: "text", Text: "rain"}}})}},
			`{"messages":[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"x1","callId":"x1","name":"w","result":[{"type":"text","value":"rain"}]}}]}],"toolChoice":"auto"}`},
		{"tools in order, names and descriptions escaped, a schema as given", &loop.Request{Tools: []session.Tool{
			{Name: "w", Description: "Weather", InputSchema: jsonv.RawMessage(`{"type":"object"}`)},
			{Name: odd, Description: odd, InputSchema: jsonv.RawMessage(" { \"type\" : \"object\" } ")}}},
			`{"messages":[],"tools":[{"name":"w","description":"Weather","inputSchema":{"type":"object"}},{"name":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd","description":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd","inputSchema": { "type" : "object" } }],"toolChoice":"auto"}`},
		{"an empty list of tools is left out", &loop.Request{Tools: []session.Tool{}},
			`{"messages":[],"toolChoice":"auto"}`},
		{"toolChoice auto with a tool", &loop.Request{Tools: weather, ToolChoice: loop.ToolChoice{Mode: "auto"}},
			`{"messages":[],"tools":[{"name":"w","description":"Weather","inputSchema":{"type":"object"}}],"toolChoice":"auto"}`},
		{"toolChoice none", &loop.Request{ToolChoice: loop.ToolChoice{Mode: "none"}},
			`{"messages":[],"toolChoice":"none"}`},
		{"toolChoice required", &loop.Request{ToolChoice: loop.ToolChoice{Mode: "required"}},
			`{"messages":[],"toolChoice":"required"}`},
		{"toolChoice a named tool, the name escaped", &loop.Request{ToolChoice: loop.ToolChoice{Mode: "tool", Name: odd}},
			`{"messages":[],"toolChoice":{"type":"tool","name":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd"}}`},
		{"a mode the engine does not know goes as its string, escaped", &loop.Request{ToolChoice: loop.ToolChoice{Mode: odd}},
			`{"messages":[],"toolChoice":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd"}`},
		{"a response constraint as given", &loop.Request{ResponseConstraint: jsonv.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
			`{"messages":[],"toolChoice":"auto","responseConstraint":{"type":"object","properties":{"n":{"type":"integer"}}}}`},
		{"an empty response constraint is left out", &loop.Request{ResponseConstraint: jsonv.RawMessage{}},
			`{"messages":[],"toolChoice":"auto"}`},
		{"a sampling mode, escaped", &loop.Request{SamplingMode: odd},
			`{"messages":[],"toolChoice":"auto","samplingMode":"quotes \" back\\slash \t \u0001 \u003cb\u003e\u0026amp;\u003c/b\u003e \u2028\u2029 é 😀 \ufffd"}`},
		{"what the engine keeps for itself is not sent", &loop.Request{ContextWindow: 4096, Backend: 2, Forming: true, OmitConstraintInput: true,
			Tools: []session.Tool{{Name: "w", InputSchema: jsonv.RawMessage(`{}`), HasExecute: true, MCPResult: true,
				Annotations: session.Annotations{Title: "Weather"}, Source: session.Source{Kind: session.SourceMCP, Server: "s", Origin: "https://mcp.example", Fn: 3, Ref: "weather"}}}},
			`{"messages":[],"tools":[{"name":"w","description":"","inputSchema":{}}],"toolChoice":"auto"}`},
		{"everything, in order", &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "Hi")}, Tools: weather, ToolChoice: loop.ToolChoice{Mode: "tool", Name: "w"},
			ResponseConstraint: jsonv.RawMessage(`{"type":"object"}`), SamplingMode: "creative"},
			`{"messages":[{"role":"user","content":[{"type":"text","value":"Hi"}]}],"tools":[{"name":"w","description":"Weather","inputSchema":{"type":"object"}}],"toolChoice":{"type":"tool","name":"w"},"responseConstraint":{"type":"object"},"samplingMode":"creative"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(custom.RenderRequest(tc.req)))
		})
	}
}

// Whatever the strings, the request is JSON that encoding/json reads back to what the
// engine asked: the text, the tool, the toolChoice and the samplingMode, each string as
// it was (invalid UTF-8 as U+FFFD, byte by byte), and no other field.
func FuzzRenderRequest(f *testing.F) {
	f.Add("Hi", "w", "Weather", "tool", "creative")
	f.Add("a\x00b", "<\u2028>", "a\xffb", "required", "")
	f.Add("\"\\", "w", "", "", "\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, text, name, desc, mode, sampling string) {
		req := &loop.Request{
			Messages:     []session.Message{session.TextMessage(session.RoleUser, text)},
			Tools:        []session.Tool{{Name: name, Description: desc, InputSchema: jsonv.RawMessage(`{}`)}},
			ToolChoice:   loop.ToolChoice{Mode: mode, Name: name},
			SamplingMode: sampling,
		}
		valid := func(s string) string { return string([]rune(s)) } // each invalid byte a U+FFFD
		var choice any
		switch mode {
		case "", "auto":
			choice = "auto"
		case "tool":
			choice = map[string]any{"type": "tool", "name": valid(name)}
		default:
			choice = valid(mode)
		}
		want := map[string]any{
			"messages":   []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "value": valid(text)}}}},
			"tools":      []any{map[string]any{"name": valid(name), "description": valid(desc), "inputSchema": map[string]any{}}},
			"toolChoice": choice,
		}
		if sampling != "" {
			want["samplingMode"] = valid(sampling)
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal(custom.RenderRequest(req), &got))
		require.Equal(t, want, got)
	})
}

// TestClosedLoop_OverAPageModel runs a closed loop whose model is the page's generator.
func TestClosedLoop_OverAPageModel(t *testing.T) {
	steps := []*fakePage{
		{pieces: []string{`"Checking"`, `{"type":"tool-call","value":{"name":"w","arguments":{"city":"Rome"}}}`}},
		{pieces: []string{`"Sunny"`, `" in Rome."`}},
	}
	i := 0
	gen := generatorFunc(func(ctx loop.Context, req []byte, emit func([]byte) error) error {
		p := steps[i]
		i++
		return p.Generate(ctx, req, emit)
	})
	tools, err := session.ParseTools([]any{map[string]any{"name": "w", "description": "Weather", "hasExecute": true, "inputSchema": map[string]any{"type": "object"}}}, false)
	require.NoError(t, err)
	s, err := loop.New(loop.Options{Model: custom.New(gen, 4096), Tools: tools,
		Runner: loop.RunnerFunc(func(loop.Context, session.ToolCall, func(jsonv.RawMessage)) ([]session.ResultPart, error) {
			return []session.ResultPart{{Type: "text", Text: "sun"}}, nil
		})})
	require.NoError(t, err)
	defer s.Destroy()
	r, err := s.Prompt(context.Background(), "Weather in Rome?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "Sunny in Rome.", r.Text)
	require.Equal(t, 4096, s.ContextWindow())
	require.Contains(t, steps[1].request, `"role":"tool-result"`, "the second step sees the result")
}

type generatorFunc func(ctx loop.Context, req []byte, emit func([]byte) error) error

func (f generatorFunc) Generate(ctx loop.Context, req []byte, emit func([]byte) error) error {
	return f(ctx, req, emit)
}
