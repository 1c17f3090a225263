package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/session"
)

// TestReadStream_Reasoning: what servers stream as reasoning reaches the loop as
// Delta.Reasoning, never as text: reasoning_content (DeepSeek, vLLM, llama.cpp and
// wllama) and reasoning (OpenRouter, Ollama).
func TestReadStream_Reasoning(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
	}
	for _, tc := range []struct {
		name string
		body string
		want []string
	}{
		{"reasoning_content deltas, then the answer (llama.cpp sends content null beside them)",
			chunk(`{"role":"assistant","content":null,"reasoning_content":"Think"}`) + chunk(`{"content":null,"reasoning_content":"ing."}`) + chunk(`{"content":"Hi.","reasoning_content":null}`),
			[]string{"reasoning Think", "reasoning ing.", "text Hi."}},
		{"reasoning deltas (OpenRouter, Ollama)",
			chunk(`{"reasoning":"Hmm."}`) + chunk(`{"content":"Hi."}`),
			[]string{"reasoning Hmm.", "text Hi."}},
		{"both names in one delta: read once",
			chunk(`{"reasoning_content":"Hmm.","reasoning":"Hmm."}`),
			[]string{"reasoning Hmm."}},
		{"a reasoning that is no string is skipped, not an error",
			chunk(`{"reasoning":{"effort":"low"},"content":"Hi."}`),
			[]string{"text Hi."}},
		{"reasoning then a call: the call is assembled as ever",
			chunk(`{"reasoning_content":"Use the tool."}`) + chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`),
			[]string{"reasoning Use the tool.", `call c1 get_weather {"city":"Paris"}`}},
		{"a whole message (stream ignored) with its reasoning",
			`data: {"choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Short.","content":"Hi."}}]}` + "\n\n",
			[]string{"reasoning Short. text Hi."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []string
			err := readStream(context.Background(), &Response{Status: 200, Header: map[string]string{"content-type": "text/event-stream"}, Body: io.NopCloser(strings.NewReader(tc.body + "data: [DONE]\n\n"))},
				func(d loop.Delta) error {
					switch {
					case d.Call != nil:
						out = append(out, "call "+d.Call.CallID+" "+d.Call.Name+" "+string(d.Call.Arguments))
					case d.Reasoning != "" && d.Text != "":
						out = append(out, "reasoning "+d.Reasoning+" text "+d.Text)
					case d.Reasoning != "":
						out = append(out, "reasoning "+d.Reasoning)
					default:
						out = append(out, "text "+d.Text)
					}
					return nil
				})
			require.NoError(t, err)
			require.Equal(t, tc.want, out)
		})
	}
}

// TestBuildRequest_Reasoning: a reasoning part (kept under keepReasoning) goes back as the
// assistant message's reasoning_content, beside its text or its calls; an assistant message
// without one has no reasoning_content.
func TestBuildRequest_Reasoning(t *testing.T) {
	think := func(s string) session.Part { return session.Part{Type: session.PartReasoning, Text: s} }
	call := session.ToolCall{CallID: "call00001", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}
	for _, tc := range []struct {
		name string
		msgs []session.Message
		want string
	}{
		{"beside text: content stays a string",
			[]session.Message{{Role: session.RoleAssistant, Parts: []session.Part{think("Easy."), {Type: session.PartText, Text: "Hi."}}}},
			`[{"role":"assistant","content":"Hi.","reasoning_content":"Easy."}]`},
		{"before calls: one assistant message with both",
			[]session.Message{{Role: session.RoleAssistant, Parts: []session.Part{think("Ask the tool.")}}, session.CallMessage(call)},
			`[{"role":"assistant","content":"","tool_calls":[{"id":"call00001","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}],"reasoning_content":"Ask the tool."}]`},
		{"none: no member",
			[]session.Message{session.TextMessage(session.RoleAssistant, "Hi.")},
			`[{"role":"assistant","content":"Hi."}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := buildRequest(Config{Model: "m"}, &loop.Request{Messages: tc.msgs})
			require.NoError(t, err)
			s := string(body)
			i := strings.Index(s, `"messages":`) + len(`"messages":`)
			require.Equal(t, tc.want, s[i:len(s)-1])
		})
	}
}
