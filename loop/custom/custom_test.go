package custom_test

import (
	"context"
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

func TestRenderRequest(t *testing.T) {
	tools, err := session.ParseTools([]any{map[string]any{"name": "w", "description": "Weather", "hasExecute": true, "inputSchema": map[string]any{"type": "object"}}}, false)
	require.NoError(t, err)
	got := custom.RenderRequest(&loop.Request{
		Messages:           []session.Message{session.TextMessage(session.RoleUser, "Hi")},
		Tools:              tools,
		ToolChoice:         loop.ToolChoice{Mode: "tool", Name: "w"},
		ResponseConstraint: jsonv.RawMessage(`{"type":"object"}`),
		SamplingMode:       "creative",
	})
	require.JSONEq(t, `{"messages":[{"role":"user","content":[{"type":"text","value":"Hi"}]}],
		"tools":[{"name":"w","description":"Weather","inputSchema":{"type":"object"}}],
		"toolChoice":{"type":"tool","name":"w"},"responseConstraint":{"type":"object"},"samplingMode":"creative"}`, string(got))
	require.JSONEq(t, `{"messages":[],"toolChoice":"auto"}`, string(custom.RenderRequest(&loop.Request{})))
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
