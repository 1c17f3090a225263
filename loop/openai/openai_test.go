package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/openai"
	"langmodel/session"
)

// server replays answers in order, one per request, and records the requests.
type server struct {
	mu       sync.Mutex
	answers  []answer
	requests []recorded
}

type answer struct {
	status int
	header map[string]string
	file   string // under testdata/
	body   string
	hang   bool // never answer (until the client gives up)
}

type recorded struct {
	auth string
	body map[string]any
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	s.requests = append(s.requests, recorded{auth: r.Header.Get("Authorization"), body: body})
	a := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	s.mu.Unlock()
	if a.hang {
		<-r.Context().Done()
		return
	}
	ct := "text/event-stream"
	if strings.HasSuffix(a.file, ".json") {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	data := []byte(a.body)
	if a.file != "" {
		var err error
		if data, err = os.ReadFile("testdata/" + a.file); err != nil {
			panic(err)
		}
	}
	_, _ = w.Write(data)
}

const key = "sk-test-0123456789abcdef"

func newModel(t *testing.T, answers ...answer) (*openai.Model, *server, *[]loop.Duration) {
	t.Helper()
	srv := &server{answers: answers}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	m := openai.New(openai.Config{BaseURL: ts.URL + "/v1/", Model: "m", APIKey: key}, httpTransport{client: ts.Client()})
	var waits []loop.Duration
	m.Sleep = func(ctx loop.Context, d loop.Duration) error { waits = append(waits, d); return ctx.Err() }
	return m, srv, &waits
}

// step runs one step and renders what came out as lines: text chunks, "call id name args",
// "usage in/out".
func step(m loop.Model, req *loop.Request) ([]string, error) {
	var out []string
	err := m.Step(context.Background(), req, func(d loop.Delta) error {
		switch {
		case d.Call != nil:
			out = append(out, "call "+d.Call.CallID+" "+d.Call.Name+" "+string(d.Call.Arguments))
		case d.Usage != nil:
			out = append(out, "usage "+itoa(d.Usage.InputTokens)+"/"+itoa(d.Usage.OutputTokens))
		default:
			out = append(out, d.Text)
		}
		return nil
	})
	return out, err
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func userAsks(text string) *loop.Request {
	return &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, text)}}
}

func TestStep_RecordedStreams(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
	}{
		{"OpenAI: two parallel calls, arguments interleaved and split mid-token", "openai_parallel.sse",
			[]string{"usage 82/36", `call call_paris get_weather {"city": "Paris"}`, `call call_tokyo get_weather {"city": "Tokyo"}`}},
		{"Ollama: a whole call in one chunk", "ollama.sse",
			[]string{"usage 151/21", `call call_k2x9m4qa get_weather {"city":"Paris"}`}},
		{"llama.cpp: a token per delta, a call whose arguments split around escapes, usage in a last chunk of its own", "llamacpp.sse",
			[]string{"Let", " me", " check", ".", "usage 240/14", `call Vb7Kq2ZtX9mRw4LpN0cYhE5sJd8GfA3u search {"q":"say \"hi\" été"}`}},
		{"llama.cpp: a call alone, its arguments a token per delta", "llamacpp_call.sse",
			[]string{"usage 151/5", `call k9Tz2QmW7xPb4NcV1sLr8YhF0dGj3EaK get_weather {"city":"Paris"}`}},
		{"llama.cpp: text a token per delta", "llamacpp_text.sse",
			[]string{"Sunny", " in", " Paris", ",", " ", "21", "°C", ".", "usage 183/8"}},
		{"vLLM: CRLF lines, a keep-alive comment, text only", "vllm.sse",
			[]string{"Sunny", " in Paris, 21°C.", "usage 45/8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newModel(t, answer{file: tc.file})
			got, err := step(m, userAsks("weather?"))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestStep_Faults(t *testing.T) {
	tests := []struct {
		name    string
		answers []answer
		kind    session.Kind
		message string
		waits   []loop.Duration
		got     []string
	}{
		{"401 with the server's message, key redacted", []answer{{status: 401, file: "openai_401.json"}}, session.KindNotAllowed,
			"the model failed: the server answered 401: Incorrect API key provided: [redacted]************************[redacted]. You can find your API key at https://platform.openai.com/account/api-keys.", nil, nil},
		{"Ollama's 404 error body", []answer{{status: 404, file: "ollama_404.json"}}, session.KindOperation,
			`the model failed: the server answered 404: model "llama9" not found, try pulling it first`, nil, nil},
		{"429 retried after Retry-After, then success", []answer{{status: 429, header: map[string]string{"Retry-After": "2"}, body: `{"error":{"message":"slow down"}}`}, {file: "vllm.sse"}}, "",
			"", []loop.Duration{2 * loop.Second}, []string{"Sunny", " in Paris, 21°C.", "usage 45/8"}},
		{"500 retried with growing backoff, then the error", []answer{{status: 500, body: "upstream exploded"}}, session.KindOperation,
			"the model failed: the server answered 500: upstream exploded", []loop.Duration{500 * loop.Millisecond, loop.Second, 2 * loop.Second}, nil},
		{"Retry-After beyond the cap is capped", []answer{{status: 503, header: map[string]string{"Retry-After": "3600"}}, {file: "ollama.sse"}}, "",
			"", []loop.Duration{20 * loop.Second}, []string{"usage 151/21", `call call_k2x9m4qa get_weather {"city":"Paris"}`}},
		{"invalid JSON in a chunk", []answer{{file: "invalid_chunk.sse"}}, session.KindOperation,
			"the model failed: malformed data from the server: unexpected end of JSON input", nil, []string{"Hel"}},
		{"connection dropped mid-stream", []answer{{file: "dropped.sse"}}, session.KindNetwork,
			"the model failed: the stream ended before [DONE]: the connection was dropped", nil, []string{"Once upon", " a time"}},
		{"a plain JSON completion from a server that ignores stream:true", []answer{{file: "completion.json"}}, "",
			"", nil, []string{"Plain answer.", "usage 10/3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, waits := newModel(t, tc.answers...)
			got, err := step(m, userAsks("hi"))
			require.Equal(t, tc.got, got)
			require.Equal(t, tc.waits, *waits)
			if tc.kind == "" {
				require.NoError(t, err)
				return
			}
			require.Equal(t, tc.kind, session.KindOf(err))
			require.Equal(t, tc.message, err.Error())
			require.NotContains(t, err.Error(), key)
		})
	}
}

func TestStep_AbortWhileTheServerNeverAnswers(t *testing.T) {
	m, _, _ := newModel(t, answer{hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	err := m.Step(ctx, userAsks("hi"), func(loop.Delta) error { return nil })
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
}

func TestRequest_Rendering(t *testing.T) {
	m, srv, _ := newModel(t, answer{file: "vllm.sse"})
	tools, err := session.ParseTools([]any{map[string]any{"name": "get_weather", "description": "Weather", "hasExecute": true,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}, false)
	require.NoError(t, err)
	c := session.ToolCall{CallID: "call00001", Name: "get_weather", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}
	c2 := session.ToolCall{CallID: "call00002", Name: "get_weather", Arguments: jsonv.RawMessage(`{"city":"Oslo"}`)}
	req := &loop.Request{
		Messages: []session.Message{
			session.TextMessage(session.RoleSystem, "Be brief."),
			session.TextMessage(session.RoleUser, "Weather in Rome and Oslo?"),
			session.TextMessage(session.RoleAssistant, "Checking."),
			session.CallMessage(c), session.CallMessage(c2),
			session.ResultMessage(session.ToolResult{CallID: "call00001", Name: "get_weather", Parts: []session.ResultPart{{Type: "object", Value: jsonv.RawMessage(`{"t":21}`)}}}),
			session.ResultMessage(session.ErrorResult(c2, "no data")),
		},
		Tools:              tools,
		ToolChoice:         loop.ToolChoice{Mode: "tool", Name: "get_weather"},
		ResponseConstraint: jsonv.RawMessage(`{"type":"object"}`),
		SamplingMode:       "most-predictable",
	}
	_, err = step(m, req)
	require.NoError(t, err)
	got, _ := json.Marshal(srv.requests[0].body)
	require.JSONEq(t, `{
		"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0,
		"messages":[
			{"role":"system","content":"Be brief."},
			{"role":"user","content":"Weather in Rome and Oslo?"},
			{"role":"assistant","content":"Checking.","tool_calls":[
				{"id":"call00001","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
				{"id":"call00002","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},
			{"role":"tool","tool_call_id":"call00001","content":"{\"t\":21}"},
			{"role":"tool","tool_call_id":"call00002","content":"Error: no data"}],
		"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"}}}],
		"tool_choice":{"type":"function","function":{"name":"get_weather"}},
		"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object"}}}
	}`, string(got))
	require.Equal(t, "Bearer "+key, srv.requests[0].auth)
	require.NotContains(t, string(got), key, "the key travels in the header only")
}

func TestRequest_ImageResultIsNotSupported(t *testing.T) {
	m, _, _ := newModel(t, answer{file: "vllm.sse"})
	c := session.ToolCall{CallID: "c1", Name: "snap", Arguments: jsonv.RawMessage(`{}`)}
	_, err := step(m, &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "snap"), session.CallMessage(c),
		session.ResultMessage(session.ToolResult{CallID: "c1", Name: "snap", Parts: []session.ResultPart{{Type: "image", Value: jsonv.RawMessage(`"data:image/png;base64,AA"`)}}})}})
	require.Equal(t, session.KindNotSupported, session.KindOf(err))
}

// TestClosedLoop_OverOpenAI runs a whole closed-loop prompt against the replayed server.
func TestClosedLoop_OverOpenAI(t *testing.T) {
	m, srv, _ := newModel(t, answer{file: "ollama.sse"}, answer{file: "vllm.sse"})
	tools, err := session.ParseTools([]any{map[string]any{"name": "get_weather", "description": "Weather", "hasExecute": true,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}}, false)
	require.NoError(t, err)
	runner := loop.RunnerFunc(func(ctx loop.Context, c session.ToolCall, _ func(jsonv.RawMessage)) ([]session.ResultPart, error) {
		return []session.ResultPart{{Type: "text", Text: "21°C, sunny"}}, nil
	})
	s, err := loop.New(loop.Options{Model: m, Runner: runner, Tools: tools})
	require.NoError(t, err)
	defer s.Destroy()
	r, err := s.Prompt(context.Background(), "Weather in Paris?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "Sunny in Paris, 21°C.", r.Text)
	require.Equal(t, 45+8, s.ContextUsage(), "the server's usage figures replace the estimate")
	require.Len(t, srv.requests, 2)
	msgs := srv.requests[1].body["messages"].([]any)
	// The server's id (call_k2x9m4qa) goes back as its nine-character wire id, the same
	// in the call and in its result; the result names no tool (OpenAI's API refuses a
	// name on a tool message; an in-page engine gets one, TestEngine_ToolMessageNames).
	wire := msgs[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["id"]
	require.Regexp(t, `^[0-9A-Za-z]{9}$`, wire)
	require.Equal(t, map[string]any{"role": "tool", "tool_call_id": wire, "content": "21°C, sunny"}, msgs[2])
}

// A server gets samplingMode as the temperature alone: OpenAI's API has no top_k or min_p
// (an engine gets them too, TestEngineModel_SamplingMode).
func TestStep_SamplingModeOnAServer(t *testing.T) {
	m, srv, _ := newModel(t, answer{file: "ollama.sse"})
	req := userAsks("Hi")
	req.SamplingMode = "predictable"
	_, err := step(m, req)
	require.NoError(t, err)
	body := srv.requests[0].body
	require.Equal(t, 0.3, body["temperature"])
	for _, k := range []string{"top_k", "top_p", "min_p"} {
		require.NotContains(t, body, k)
	}
}

// countingBody is a response body that counts the bytes the client read.
type countingBody struct {
	r    io.Reader
	read *int
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	*b.read += n
	return n, err
}

func (countingBody) Close() error { return nil }

// bodyTransport answers every request with body, as contentType, with status (0: 200).
type bodyTransport struct {
	status            int
	body, contentType string
	read              *int
}

func (t bodyTransport) Do(ctx loop.Context, req *openai.Request) (*openai.Response, error) {
	status := t.status
	if status == 0 {
		status = 200
	}
	return &openai.Response{Status: status, Header: map[string]string{"content-type": t.contentType},
		Body: countingBody{r: strings.NewReader(t.body), read: t.read}}, nil
}

// A server cannot make the backend hold a message of more than 4 MB, however it splits
// it: an event of many data lines (each far under the limit) or a JSON answer over 4 MB
// is a NetworkError naming the server by origin and path (never the user-info or query
// of baseURL), after the client read at most the limit and a few lines more.
func TestStep_MessageBounds(t *testing.T) {
	mb := strings.Repeat("x", 1<<20)
	rows := []struct {
		name, contentType, body string
		got                     []string
	}{
		{name: "an event of 16 data lines of 1 MB", contentType: "text/event-stream",
			body: strings.Repeat("data: "+mb+"\n", 16) + "\ndata: [DONE]\n\n"},
		{name: "an event under the limit, then one over it", contentType: "text/event-stream",
			body: `data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\n\n" + strings.Repeat("data: "+mb+"\n", 5) + "\n",
			got:  []string{"Hi"}},
		{name: "one line of 16 MB", contentType: "text/event-stream", body: "data: " + strings.Repeat(mb, 16) + "\n\n"},
		{name: "a JSON answer of 5 MB", contentType: "application/json",
			body: `{"choices":[{"index":0,"message":{"content":"` + strings.Repeat(mb, 5) + `"}}]}`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			read := 0
			m := openai.New(openai.Config{BaseURL: "https://user:secret@llm.example/v1?api-key=secret#frag", Model: "m"},
				bodyTransport{body: row.body, contentType: row.contentType, read: &read})
			got, err := step(m, userAsks("hi"))
			require.Equal(t, row.got, got)
			require.Equal(t, session.KindNetwork, session.KindOf(err), "%v", err)
			require.Equal(t, "the model failed: the server at https://llm.example/v1 sent a message larger than 4 MB", err.Error())
			require.LessOrEqual(t, read, 4<<20+3<<20, "bytes read before the error")
		})
	}
}

// An error answer's body is read no further than 64 KB, whatever its size.
func TestStep_ErrorBodyBound(t *testing.T) {
	read := 0
	m := openai.New(openai.Config{BaseURL: "https://llm.example/v1", Model: "m"},
		bodyTransport{status: 400, body: strings.Repeat("x", 16<<20), contentType: "text/plain", read: &read})
	_, err := step(m, userAsks("hi"))
	require.Equal(t, "the model failed: the server answered 400: "+strings.Repeat("x", 300)+"…", err.Error())
	require.LessOrEqual(t, read, 64<<10, "bytes read")
}
