package chaos

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const key = "sk-test-key"

// post sends a Chat Completions request whose last user message is prompt, after
// `assistants` assistant messages, declaring a tool unless textProtocol.
func post(t *testing.T, url, prompt string, assistants int, textProtocol bool) (*http.Response, string) {
	t.Helper()
	msgs := []map[string]any{{"role": "user", "content": prompt}}
	for range assistants {
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil}, map[string]any{"role": "tool", "content": "x"})
	}
	req := map[string]any{"model": "m", "stream": true, "messages": msgs}
	if !textProtocol {
		req["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "ok", "parameters": map[string]any{"type": "object"}}}}
	}
	body, _ := json.Marshal(req)
	r, _ := http.NewRequest("POST", url+"/chat/completions", strings.NewReader(string(body)))
	r.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// deltas reads a stream's events: the content and argument deltas joined, the finish
// reasons, whether a usage-only chunk came, and whether it ended with [DONE].
func deltas(t *testing.T, stream string) (content, args string, finish []string, usage, done bool) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int `json:"index"`
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct{ Total int } `json:"usage"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &c), "chunk %s", data)
		if c.Usage != nil {
			require.Empty(t, c.Choices, "usage comes in a chunk of its own")
			usage = true
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				content += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == 0 {
					args += tc.Function.Arguments
				}
			}
			if ch.Finish != nil {
				finish = append(finish, *ch.Finish)
			}
		}
	}
	return
}

func TestServer_Answers(t *testing.T) {
	srv := &Server{Key: key}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tests := []struct {
		name, prompt string
		assistants   int
		usage, text  bool
		status       int
		check        func(t *testing.T, body string)
	}{
		{name: "no schedule: text", prompt: "hello", status: 200, check: func(t *testing.T, body string) {
			content, _, finish, usage, done := deltas(t, body)
			require.Equal(t, strings.Join(words, " "), content)
			require.Equal(t, []string{"stop"}, finish)
			require.False(t, usage)
			require.True(t, done)
		}},
		{name: "usage under /usage/v1", prompt: "chaos[text]", usage: true, status: 200, check: func(t *testing.T, body string) {
			_, _, _, usage, done := deltas(t, body)
			require.True(t, usage)
			require.True(t, done)
		}},
		{name: "a call, its arguments a byte a delta", prompt: "chaos[call:ok|text]", status: 200, check: func(t *testing.T, body string) {
			_, args, finish, _, _ := deltas(t, body)
			require.Equal(t, arguments, args)
			require.Equal(t, []string{"tool_calls"}, finish)
			require.Equal(t, len([]rune(arguments)), strings.Count(body, `"index":0,"function":{"arguments"`))
		}},
		{name: "a call block in the text protocol", prompt: "chaos[call2:ok]", text: true, status: 200, check: func(t *testing.T, body string) {
			content, args, finish, _, _ := deltas(t, body)
			block := "```tool_call\n{\"name\": \"ok\", \"arguments\": " + arguments + "}\n```\n"
			require.Equal(t, "Let me check.\n"+block+block, content)
			require.Empty(t, args)
			require.Equal(t, []string{"stop"}, finish)
		}},
		{name: "two calls, two ids", prompt: "chaos[call2:ok]", status: 200, check: func(t *testing.T, body string) {
			require.Len(t, ids(body), 2)
		}},
		{name: "two calls, one id", prompt: "chaos[dup2:ok]", status: 200, check: func(t *testing.T, body string) {
			require.Len(t, ids(body), 1)
		}},
		{name: "the step after one tool round", prompt: "chaos[call:ok|503]", assistants: 1, status: 503},
		{name: "the last step repeats", prompt: "chaos[call:ok|401]", assistants: 5, status: 401, check: func(t *testing.T, body string) {
			require.Contains(t, body, key, "a 401 that echoes the key")
		}},
		{name: "Retry-After", prompt: "chaos[429ra]", status: 429},
		{name: "badjson", prompt: "chaos[badjson]", status: 200, check: func(t *testing.T, body string) {
			require.Contains(t, body, `{"content":"lo"`+"\n")
		}},
		{name: "html", prompt: "chaos[html]", status: 200, check: func(t *testing.T, body string) {
			require.True(t, strings.HasPrefix(body, "<html>"))
		}},
		{name: "huge", prompt: "chaos[huge]", status: 200, check: func(t *testing.T, body string) {
			require.Greater(t, len(body), HugeSize)
		}},
		{name: "an unknown answer", prompt: "chaos[dance]", status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := hs.URL + "/plain/v1"
			if tt.usage {
				base = hs.URL + "/usage/v1"
			}
			resp, body := post(t, base, tt.prompt+" "+tt.name, tt.assistants, tt.text)
			require.Equal(t, tt.status, resp.StatusCode, "%s", body)
			if tt.name == "Retry-After" {
				require.Equal(t, "0", resp.Header.Get("Retry-After"))
			}
			if tt.check != nil {
				tt.check(t, body)
			}
		})
	}
	n, faults := srv.Requests()
	require.Equal(t, len(tests), n)
	require.Empty(t, faults)
}

// TestServer_RetriesAndFaults: a retry of the same body gets the next answer of the
// step; the server reports a key in a body, a wrong Authorization and a stray path; the
// usage of the last whole stream is kept by prompt.
func TestServer_RetriesAndFaults(t *testing.T) {
	srv := &Server{Key: key}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var got []int
	for range 4 {
		resp, _ := post(t, hs.URL+"/usage/v1", "chaos[429+500+text]", 0, false)
		got = append(got, resp.StatusCode)
	}
	require.Equal(t, []int{429, 500, 200, 200}, got)
	resp, err := http.Get(hs.URL + "/usage/v1/chaos/usage?text=" + "chaos%5B429%2B500%2Btext%5D")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Regexp(t, `^\{"total":\d+\}$`, string(b))

	req, _ := http.NewRequest("POST", hs.URL+"/elsewhere/chat/completions", strings.NewReader(`{"messages":[{"role":"user","content":"`+key+`"}]}`))
	req.Header.Set("Authorization", "Bearer other")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	_, faults := srv.Requests()
	require.Equal(t, []string{"request to /elsewhere/chat/completions", "the key in a request body", `Authorization "Bearer other"`}, faults)
}

// ids are the distinct call ids of a stream, each 32 characters.
func ids(body string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`"id":"([0-9a-f]{32})","type":"function"`).FindAllStringSubmatch(body, -1) {
		out[m[1]] = true
	}
	return out
}

// TestServer_RepairRound: a repair round of the text protocol (loop/textproto) is
// answered by the step it repairs, not the next one: its broken reply is no step of the
// loop, and the history keeps neither it nor the repair message, so the loop's next
// request is numbered as if there had been no repair. Numbered by its assistant
// messages, the repair took the next step's answer and the loop then got that answer a
// second time: seed 3795455276, whose call:nosuch|…dup2:ok|text made four
// calls where the page's oracle counted three.
func TestServer_RepairRound(t *testing.T) {
	srv := &Server{Key: key}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	repair := "The tool nosuch is not offered.\n\nReply again with all the tool calls you meant to make, corrected, each in its own block exactly like this:\n\n```tool_call\n{}\n```"
	tests := []struct {
		name   string
		msgs   []map[string]any
		status int
		calls  string // the tool the answer's call block names
	}{
		{name: "the first step's repair", status: 200, calls: "nosuch", msgs: []map[string]any{
			{"role": "system", "content": "tools"},
			{"role": "user", "content": "chaos[call:nosuch|503] first"},
			{"role": "assistant", "content": "```tool_call\n{\"name\": \"nosuch\", \"arguments\": {}}\n```"},
			{"role": "user", "content": repair},
		}},
		{name: "a later step's repair", status: 200, calls: "nosuch", msgs: []map[string]any{
			{"role": "system", "content": "tools"},
			{"role": "user", "content": "chaos[call:ok|call:nosuch|call:ok|503] later"},
			{"role": "assistant", "content": "```tool_call\n{\"name\": \"ok\", \"arguments\": {}}\n```"},
			{"role": "user", "content": "```tool_result\n{}\n```"},
			{"role": "assistant", "content": "```tool_call\n{\"name\": \"nosuch\", \"arguments\": {}}\n```"},
			{"role": "user", "content": repair},
		}},
		{name: "the step after a repaired one", status: 200, calls: "ok", msgs: []map[string]any{
			{"role": "system", "content": "tools"},
			{"role": "user", "content": "chaos[call:nosuch|call:ok|503] after"},
			{"role": "assistant", "content": "```tool_call\n{\"name\": \"nosuch\", \"arguments\": {}}\n```"},
			{"role": "user", "content": "```tool_result\n{}\n```"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": tt.msgs})
			r, _ := http.NewRequest("POST", hs.URL+"/plain/v1/chat/completions", strings.NewReader(string(body)))
			r.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(r)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, tt.status, resp.StatusCode, "%s", b)
			content, _, _, _, _ := deltas(t, string(b))
			require.Contains(t, content, `{"name": "`+tt.calls+`"`)
		})
	}
}
