package openai_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/textproto"
	"langmodel/session"
)

// Each family's call as an OpenAI-compatible server returns it when its parser for the
// family's syntax misses (Ollama, vLLM, llama-server): as the content, streamed a few
// characters a chunk. The module reads it (textproto.Read over the openai backend, as
// wasm/backend.go builds it) in a closed loop and in an open one.

// familyContent is get_weather(city=Paris) as each family writes it.
var familyContent = map[string]string{
	"Qwen2.5":              "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
	"Hermes 2 Pro":         "<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}, \"name\": \"get_weather\"}\n</tool_call>",
	"SmolLM3":              "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
	"Phi-4-mini":           `<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|/tool_call|>`,
	"Phi-4-mini stripped":  `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
	"Mistral Nemo":         `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]`,
	"Mistral (v11)":        `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`,
	"Llama 3.2":            `{"name": "get_weather", "parameters": {"city": "Paris"}}`,
	"Llama 3.1 python_tag": `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}`,
	"DeepSeek R1":          "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"DeepSeek V3.1":        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"LFM2":                 `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`,
	"LFM2 bare":            `[get_weather(city="Paris")]`,
	"Gemma 4":              `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>`,
	"Qwen3-Coder":          "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
	"the module's fence":   "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```",
}

// contentStream is a server-sent event stream of content (and reasoning first, when
// given), a few characters a chunk, never splitting a character.
func contentStream(reasoning, content string) string {
	var b strings.Builder
	event := func(member, s string) {
		b.WriteString(`data: {"choices":[{"index":0,"delta":{"` + member + `":`)
		b.Write(jsonv.AppendString(nil, s))
		b.WriteString("}}]}\n\n")
	}
	for _, part := range []struct{ member, s string }{{"reasoning_content", reasoning}, {"content", content}} {
		for s := part.s; s != ""; {
			n := 0
			for i := 0; i < 3 && n < len(s); i++ {
				_, size := utf8.DecodeRuneInString(s[n:])
				n += size
			}
			event(part.member, s[:n])
			s = s[n:]
		}
	}
	b.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func weatherTool(t *testing.T, execute bool) []session.Tool {
	t.Helper()
	tools, err := session.ParseTools([]any{map[string]any{"name": "get_weather", "description": "Weather", "hasExecute": execute,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}}, !execute)
	require.NoError(t, err)
	return tools
}

func TestContentCalls_ClosedLoop(t *testing.T) {
	for family, content := range familyContent {
		t.Run(family, func(t *testing.T) {
			m, srv, _ := newModel(t, answer{body: contentStream("", content)}, answer{body: contentStream("", "Sunny in Paris, 21°C.")})
			var ran []string
			runner := loop.RunnerFunc(func(ctx loop.Context, c session.ToolCall, _ func(jsonv.RawMessage)) ([]session.ResultPart, error) {
				ran = append(ran, c.Name+" "+string(c.Arguments))
				return []session.ResultPart{{Type: "text", Text: "21°C, sunny"}}, nil
			})
			s, err := loop.New(loop.Options{Model: textproto.Read(loop.Thinking(m, false)), Runner: runner, Tools: weatherTool(t, true)})
			require.NoError(t, err)
			defer s.Destroy()
			r, err := s.Prompt(context.Background(), "Weather in Paris?", loop.PromptOptions{})
			require.NoError(t, err)
			require.Equal(t, "Sunny in Paris, 21°C.", r.Text)
			require.Equal(t, []string{`get_weather {"city":"Paris"}`}, ran)
			msgs := s.Messages()
			require.Len(t, msgs, 4, "user, call, result, answer")
			require.Equal(t, session.RoleToolCall, msgs[1].Role)
			require.Len(t, srv.requests, 2)
			// The second request carries the call natively, its id as templates need it
			// (a server's tool message has no name: OpenAI's API refuses one).
			sent := srv.requests[1].body["messages"].([]any)
			require.Len(t, sent, 3)
			call := sent[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
			require.Regexp(t, `^[0-9A-Za-z]{9}$`, call["id"])
			require.Equal(t, map[string]any{"role": "tool", "tool_call_id": call["id"], "content": "21°C, sunny"}, sent[2])
		})
	}
}

func TestContentCalls_OpenLoop(t *testing.T) {
	for family, content := range familyContent {
		t.Run(family, func(t *testing.T) {
			m, _, _ := newModel(t, answer{body: contentStream("", content)})
			s, err := loop.New(loop.Options{Model: textproto.Read(loop.Thinking(m, false)), Tools: weatherTool(t, false)})
			require.NoError(t, err)
			defer s.Destroy()
			var streamed strings.Builder
			r, err := s.Prompt(context.Background(), "Weather in Paris?", loop.PromptOptions{OnChunk: func(c loop.Chunk) { streamed.WriteString(c.Text) }})
			require.NoError(t, err)
			require.Empty(t, r.Text)
			require.Empty(t, streamed.String(), "no delimiter, no call text reaches the page")
			require.Len(t, r.Calls, 1)
			require.Equal(t, "get_weather", r.Calls[0].Name)
			require.JSONEq(t, `{"city":"Paris"}`, string(r.Calls[0].Arguments))
		})
	}
}

// A reasoning model whose server split its reasoning (reasoning_content) and left the
// "\n\n" after </think> and the call in the content, or whose template opened <think>
// itself and whose server split nothing: the call runs, and no assistant message of
// white space enters the history; the answer does not start with it either.
func TestContentCalls_AfterReasoning(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		reasoning, call, text string // the first reply's reasoning_content and content, the second's content
		secondReasoning       string
	}{
		{"split by the server", "The user wants the weather.", "\n\n" + familyContent["DeepSeek R1"], "\n\nSunny in Paris.", "It said sunny."},
		{"the template opened <think>, nothing split", "", "The user wants the weather.</think>\n\n" + familyContent["DeepSeek R1"], "It said sunny.</think>\n\nSunny in Paris.", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newModel(t, answer{body: contentStream(tc.reasoning, tc.call)}, answer{body: contentStream(tc.secondReasoning, tc.text)})
			runner := loop.RunnerFunc(func(ctx loop.Context, c session.ToolCall, _ func(jsonv.RawMessage)) ([]session.ResultPart, error) {
				return []session.ResultPart{{Type: "text", Text: "21°C, sunny"}}, nil
			})
			s, err := loop.New(loop.Options{Model: textproto.Read(loop.Thinking(m, true)), Runner: runner, Tools: weatherTool(t, true)})
			require.NoError(t, err)
			defer s.Destroy()
			r, err := s.Prompt(context.Background(), "Weather in Paris?", loop.PromptOptions{})
			require.NoError(t, err)
			require.Equal(t, "Sunny in Paris.", r.Text)
			var roles []session.Role
			for _, msg := range s.Messages() {
				roles = append(roles, msg.Role)
			}
			require.Equal(t, []session.Role{session.RoleUser, session.RoleToolCall, session.RoleToolResult, session.RoleAssistant}, roles)
		})
	}
}
