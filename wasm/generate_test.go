package wasm

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pieces makes the fake page's generate answer step i (0-based) with steps[i]: the
// pieces, then generate-end (with errMsg's error when set). It records each request.
func pieces(requests *[]msg, steps ...[]any) func(p *fakePage, m msg, ctx context.Context) {
	i := 0
	return func(p *fakePage, m msg, ctx context.Context) {
		p.mu.Lock()
		*requests = append(*requests, m["request"].(map[string]any))
		step := steps[min(i, len(steps)-1)]
		i++
		p.mu.Unlock()
		id := num(m["id"])
		for _, v := range step {
			if _, ok := v.(hold); ok {
				<-ctx.Done()
				continue
			}
			if e, ok := v.(generateErr); ok {
				p.sendMsg(msg{"type": "generate-end", "id": id, "error": msg{"name": e.name, "message": e.message}})
				return
			}
			p.sendMsg(msg{"type": "generate-piece", "id": id, "value": v})
		}
		p.sendMsg(msg{"type": "generate-end", "id": id})
	}
}

type generateErr struct{ name, message string }

// hold makes the fake generate wait for generate-abort before going on.
type hold struct{}

func customBackend(extra string) string {
	return `"backend":{"kind":"custom","generate":5` + extra + `}`
}

func TestGenerate_Pieces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []any
		want   string
	}{
		{"strings", []any{"Hel", "lo"}, "Hello"},
		{"text parts", []any{msg{"type": "text", "value": "Hi"}, msg{"type": "text", "value": "!"}}, "Hi!"},
		{"nothing", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var reqs []msg
			p.generate = pieces(&reqs, tc.pieces)
			p.ok("create", `"session":1,"options":{`+customBackend(`,"contextWindow":4096`)+`}`)
			r := p.ok("prompt", `"session":1,"input":"hi"`).(map[string]any)
			require.Equal(t, tc.want, r["text"])
			require.Equal(t, `{"messages":[{"content":[{"type":"text","value":"hi"}],"role":"user"}],"toolChoice":"auto"}`, compact(t, reqs[0]))
			require.Equal(t, jsonNumber("4096"), p.ok("usage", `"session":1`).(map[string]any)["contextWindow"])
		})
	}
}

// TestGenerate_NativeTools: a generate that handles tools itself gets them in the
// request and yields structured calls; the loop runs them and asks again.
func TestGenerate_NativeTools(t *testing.T) {
	p := newPage(t)
	var reqs []msg
	p.generate = pieces(&reqs,
		[]any{"Checking. ", msg{"type": "tool-call", "value": msg{"callId": "c1", "name": "weather", "arguments": msg{"city": "Oslo"}}},
			msg{"type": "usage", "value": msg{"inputTokens": 40, "outputTokens": 10}}},
		[]any{"Sunny."})
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sun", "" }
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+customBackend(`,"nativeTools":true`)+`}`)
	r := p.ok("prompt", `"session":1,"input":"weather?"`).(map[string]any)
	require.Equal(t, "Sunny.", r["text"])
	require.Len(t, reqs, 2)
	require.Equal(t, `[{"description":"Weather in a city","inputSchema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"weather"}]`, compact(t, reqs[0]["tools"]))
	require.Equal(t, `{"content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"weather","result":[{"type":"text","value":"sun"}]}}],"role":"tool-result"}`,
		compact(t, reqs[1]["messages"].([]any)[3]))
}

// TestGenerate_TextTools: by default a custom model gets tool use through the text
// protocol: the tools are in its system message, the call is read from its text.
func TestGenerate_TextTools(t *testing.T) {
	p := newPage(t)
	var reqs []msg
	p.generate = pieces(&reqs,
		[]any{"Let me look.\n```tool", "_call\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}\n```"},
		[]any{"Sunny."})
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sun", "" }
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+customBackend("")+`}`)
	id := p.request("prompt", `"session":1,"input":"weather?","stream":true`)
	require.Equal(t, "Sunny.", p.wait(id)["value"].(map[string]any)["text"])
	require.Nil(t, reqs[0]["tools"])
	first := reqs[0]["messages"].([]any)[0].(map[string]any)
	require.Equal(t, "system", first["role"])
	require.Contains(t, compact(t, first), "weather")
	var text string
	for _, m := range p.drain() {
		if s, ok := m["detail"].(string); ok && m["type"] == TypeChunk {
			text += s
		}
	}
	require.Equal(t, "Let me look.\nSunny.", text)
}

func TestGenerate_Errors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pieces  []any
		kind    string
		message string
		aborted bool // the engine told the page to stop
	}{
		{"NotSupportedError kept", []any{generateErr{"NotSupportedError", "no French"}}, "NotSupportedError", "the model failed: no French", false},
		{"NetworkError kept", []any{"par", generateErr{"NetworkError", "offline"}}, "NetworkError", "the model failed: offline", false},
		{"TypeError is the page's bug", []any{generateErr{"TypeError", "x is undefined"}}, "OperationError", "the model failed: x is undefined", false},
		{"a bad piece", []any{42, hold{}, "more"}, "TypeError", `the model failed: the page's generate yielded a bad piece: a piece must be a string or {type: "text" | "reasoning" | "tool-call" | "usage", value}`, true},
		{"undefined piece", []any{nil, hold{}}, "TypeError", `the model failed: the page's generate yielded a bad piece: a piece must be a string or {type: "text" | "reasoning" | "tool-call" | "usage", value}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var reqs []msg
			p.generate = pieces(&reqs, tc.pieces)
			p.ok("create", `"session":1,"options":{`+customBackend(`,"nativeTools":true`)+`}`)
			e := p.fails("prompt", `"session":1,"input":"hi"`, tc.kind)
			require.Equal(t, tc.message, e["message"])
			if tc.aborted {
				require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeGenerateAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
			} else {
				p.drain()
				require.Empty(t, p.logged(TypeGenerateAbort), "the generate had ended")
			}
		})
	}
}

func TestGenerate_Abort(t *testing.T) {
	p := newPage(t)
	stopped := make(chan struct{})
	p.generate = func(p *fakePage, m msg, ctx context.Context) {
		p.sendMsg(msg{"type": "generate-piece", "id": num(m["id"]), "value": "Once"})
		<-ctx.Done() // generate-abort
		close(stopped)
		p.sendMsg(msg{"type": "generate-piece", "id": num(m["id"]), "value": "late"})
		p.sendMsg(msg{"type": "generate-end", "id": num(m["id"])})
	}
	p.ok("create", `"session":1,"options":{`+customBackend("")+`}`)
	id := p.request("prompt", `"session":1,"input":"hi","stream":true`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeChunk)) == 1 }, 5*time.Second, 5*time.Millisecond)
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeGenerateAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
	<-stopped
	require.Empty(t, p.ok("history", `"session":1`))
	p.ok("hello", helloVersion)
}

// TestGenerate_Destroy: destroying the session aborts its generate.
func TestGenerate_Destroy(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{`+customBackend("")+`}`)
	id := p.request("prompt", `"session":1,"input":"hi"`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeGenerate)) == 1 }, 5*time.Second, 5*time.Millisecond)
	p.ok("destroy", `"session":1`)
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeGenerateAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
}

func TestBackend_Config(t *testing.T) {
	for _, tc := range []struct {
		name, backend, kind, message string
	}{
		{"not an object", `"openai"`, "TypeError", "invalid backend: the backend must be an object {kind, ...}"},
		{"kind not a string", `{"kind":7}`, "TypeError", "invalid backend: backend.kind must be a non-empty string"},
		{"unknown kind", `{"kind":"llama"}`, "NotSupportedError", `invalid backend: unknown backend kind "llama"`},
		{"openai without baseURL", `{"kind":"openai","model":"m"}`, "TypeError", "invalid backend: backend.baseURL is required"},
		{"openai without model", `{"kind":"openai","baseURL":"http://x/v1"}`, "TypeError", "invalid backend: backend.model is required"},
		{"openai empty model", `{"kind":"openai","baseURL":"http://x/v1","model":""}`, "TypeError", "invalid backend: backend.model must be a non-empty string"},
		{"openai baseURL scheme", `{"kind":"openai","baseURL":"ftp://x/v1","model":"m"}`, "TypeError", "invalid backend: backend.baseURL must start with http://, https:// or /"},
		{"openai apiKey not a string", `{"kind":"openai","baseURL":"/v1","model":"m","apiKey":12345678}`, "TypeError", "invalid backend: backend.apiKey must be a non-empty string"},
		{"openai headers", `{"kind":"openai","baseURL":"/v1","model":"m","headers":["a"]}`, "TypeError", "invalid backend: backend.headers must be an object of strings"},
		{"openai header value", `{"kind":"openai","baseURL":"/v1","model":"m","headers":{"x-key":5}}`, "TypeError", `invalid backend: backend.headers["x-key"] must be a string`},
		{"openai nativeTools", `{"kind":"openai","baseURL":"/v1","model":"m","nativeTools":"yes"}`, "TypeError", "invalid backend: backend.nativeTools must be true or false"},
		{"contextWindow zero", `{"kind":"openai","baseURL":"/v1","model":"m","contextWindow":0}`, "TypeError", "invalid backend: backend.contextWindow must be a positive integer"},
		{"contextWindow fraction", `{"kind":"custom","generate":5,"contextWindow":1.5}`, "TypeError", "invalid backend: backend.contextWindow must be a non-negative integer"},
		{"custom without generate", `{"kind":"custom"}`, "TypeError", "invalid backend: backend.generate must be a function"},
		{"browser without a native model", `{"kind":"browser"}`, "NotSupportedError", "invalid backend: this browser has no built-in LanguageModel"},
		{"scripted turns", `{"kind":"scripted","turns":5}`, "TypeError", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{"backend":`+tc.backend+`}`, tc.kind)
			if tc.message != "" {
				require.Equal(t, tc.message, e["message"])
			}
		})
	}
	// The key is never echoed, whatever is wrong.
	p := newPage(t)
	e := p.fails("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"`+testKey+`","model":"m","apiKey":"`+testKey+`"}}`, "TypeError")
	require.NotContains(t, e["message"], testKey)
}

func TestBackend_Availability(t *testing.T) {
	p := newPage(t)
	for backend, want := range map[string]string{
		`null`:                           "available",
		`{"kind":"scripted","turns":[]}`: "available",
		`{"kind":"openai","baseURL":"http://127.0.0.1:11434/v1","model":"qwen2.5"}`: "available",
		`{"kind":"custom","generate":3}`:                                            "available",
		`{"kind":"browser","generate":3}`:                                           "available",
		`{"kind":"browser"}`:                                                        "unavailable",
		`{"kind":"llama"}`:                                                          "unavailable",
	} {
		require.Equal(t, want, p.ok("availability", `"options":{"backend":`+backend+`}`), backend)
	}
	e := p.fails("availability", `"options":{"backend":{"kind":"openai"}}`, "TypeError")
	require.Equal(t, "invalid backend: backend.baseURL is required", e["message"])
}

func TestToolChoice(t *testing.T) {
	tools := `"tools":[` + weatherTool + `]`
	for _, tc := range []struct {
		name, create, prompt, want, kind, message string
	}{
		{"default", "", "", `"auto"`, "", ""},
		{"session none", `"none"`, "", `"none"`, "", ""},
		{"session required", `"required"`, "", `"required"`, "", ""},
		{"session tool", `{"type":"tool","name":"weather"}`, "", `{"name":"weather","type":"tool"}`, "", ""},
		{"session name only", `{"name":"weather"}`, "", `{"name":"weather","type":"tool"}`, "", ""},
		{"prompt overrides", `"none"`, `"required"`, `"required"`, "", ""},
		{"prompt tool", "", `{"name":"weather"}`, `{"name":"weather","type":"tool"}`, "", ""},
		{"unknown string", `"always"`, "", "", "TypeError", `invalid option: toolChoice must be "auto", "none", "required" or {type: "tool", name}, not "always"`},
		{"unknown tool", `{"name":"stocks"}`, "", "", "TypeError", `invalid option: toolChoice names the tool "stocks", which the session does not declare`},
		{"prompt unknown tool", "", `{"type":"tool","name":"stocks"}`, "", "TypeError", `invalid option: toolChoice names the tool "stocks", which the session does not declare`},
		{"wrong type", `{"type":"function","name":"weather"}`, "", "", "TypeError", `invalid option: toolChoice {type, name}: type must be "tool"`},
		{"no name", `{"type":"tool"}`, "", "", "TypeError", `invalid option: toolChoice {type: "tool", name}: name must be a non-empty string`},
		{"a number", `3`, "", "", "TypeError", `invalid option: toolChoice must be "auto", "none", "required" or {type: "tool", name}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var reqs []msg
			p.generate = pieces(&reqs, []any{"ok"})
			create := `"session":1,"options":{` + tools + `,` + customBackend(`,"nativeTools":true`)
			if tc.create != "" {
				create += `,"toolChoice":` + tc.create
			}
			create += "}"
			prompt := `"session":1,"input":"hi"`
			if tc.prompt != "" {
				prompt += `,"toolChoice":` + tc.prompt
			}
			var e msg
			switch {
			case tc.kind == "":
				p.ok("create", create)
				p.ok("prompt", prompt)
				require.Equal(t, tc.want, compact(t, reqs[0]["toolChoice"]))
				return
			case tc.prompt == "":
				e = p.fails("create", create, tc.kind)
			default:
				p.ok("create", create)
				e = p.fails("prompt", prompt, tc.kind)
			}
			require.Equal(t, tc.message, e["message"])
		})
	}
	p := newPage(t)
	e := p.fails("create", `"session":1,"options":{"toolChoice":"required"}`, "TypeError")
	require.Equal(t, `invalid option: toolChoice "required" needs at least one tool`, e["message"])
}

// TestApprove_Abort: an approval still pending when the prompt is aborted is told
// (tool-abort), so that approve's signal aborts.
func TestApprove_Abort(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],"toolUseConfig":{"approve":3},`+
		script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"x"}`)+`}`)
	id := p.request("prompt", `"session":1,"input":"go"`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeToolApprove)) == 1 }, 5*time.Second, 5*time.Millisecond)
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeToolAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, num(p.logged(TypeToolApprove)[0]["id"]), num(p.logged(TypeToolAbort)[0]["id"]))
	require.Empty(t, p.logged(TypeToolExecute))
}
