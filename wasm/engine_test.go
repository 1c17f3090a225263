package wasm

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func engineBackend(extra string) string {
	return `"backend":{"kind":"engine","generate":5` + extra + `}`
}

// engineChunk is a streamed chunk in llama-server's shape, as wllama sends it (id and
// model ""), with one choice whose delta is d.
func engineChunk(d msg, finish string) msg {
	c := msg{"index": 0, "delta": d}
	if finish != "" {
		c["finish_reason"] = finish
	}
	return msg{"id": "", "model": "", "object": "chat.completion.chunk", "choices": []any{c}}
}

// engineCall is wllama's stream of one tool call: id and name first, then the arguments
// in fragments, then the usage chunk.
func engineCall(id, name string, args ...string) []any {
	out := []any{engineChunk(msg{"tool_calls": []any{msg{"index": 0, "id": id, "type": "function", "function": msg{"name": name, "arguments": ""}}}}, "")}
	for _, a := range args {
		out = append(out, engineChunk(msg{"tool_calls": []any{msg{"index": 0, "function": msg{"arguments": a}}}}, ""))
	}
	return append(out, engineChunk(msg{}, "tool_calls"), msg{"id": "", "choices": []any{}, "usage": msg{"prompt_tokens": 120, "completion_tokens": 12}})
}

func engineText(parts ...string) []any {
	var out []any
	for _, s := range parts {
		out = append(out, engineChunk(msg{"content": s}, ""))
	}
	return append(out, engineChunk(msg{}, "stop"), msg{"id": "", "choices": []any{}, "usage": msg{"prompt_tokens": 150, "completion_tokens": 5}})
}

// TestEngine_ClosedLoop: the page's engine gets the Chat Completions request (the
// openai backend's own, model left for js/ to drop), streams a tool call in
// fragments, the tool runs, and the next request carries the call and its result.
func TestEngine_ClosedLoop(t *testing.T) {
	p := newPage(t)
	var reqs []msg
	p.generate = pieces(&reqs, engineCall("a1b2c3d4e", "weather", `{"city"`, `: "Paris"}`), engineText("It is ", "sunny."))
	p.tools[7] = func(_ *fakePage, m msg) (any, string) {
		require.Equal(t, map[string]any{"city": "Paris"}, m["call"].(map[string]any)["arguments"])
		return "sun", ""
	}
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+engineBackend(`,"contextWindow":2048`)+`}`)
	r := p.ok("prompt", `"session":1,"input":"Weather in Paris?"`).(map[string]any)
	require.Equal(t, "It is sunny.", r["text"])
	require.Len(t, reqs, 2)
	require.Equal(t, true, reqs[0]["stream"])
	require.Equal(t, map[string]any{"include_usage": true}, reqs[0]["stream_options"])
	require.Equal(t, "", reqs[0]["model"])
	require.Equal(t, `[{"function":{"description":"Weather in a city","name":"weather","parameters":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"type":"function"}]`, compact(t, reqs[0]["tools"]))
	// The engine's id (nine letters and digits) goes back as it came; the result names its tool.
	require.Equal(t, `[{"content":"Weather in Paris?","role":"user"},{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"city\":\"Paris\"}","name":"weather"},"id":"a1b2c3d4e","type":"function"}]},{"content":"sun","name":"weather","role":"tool","tool_call_id":"a1b2c3d4e"}]`,
		compact(t, reqs[1]["messages"]))
	info := p.ok("usage", `"session":1`).(map[string]any)
	require.Equal(t, jsonNumber("2048"), info["contextWindow"])
	require.Len(t, p.ok("history", `"session":1`), 4)
}

// TestEngine_Failures: an engine that throws, before or mid-stream, or streams what is
// not a chunk, fails the prompt with a named error and leaves the history as it was (the
// page's driver, js/engine.js, words the engine's own exceptions; here they cross as
// they are).
func TestEngine_Failures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pieces  []any
		kind    string
		message string
	}{
		{"throws mid-stream", append(engineCall("c", "weather", `{"ci`)[:2], generateErr{"Error", "memory access out of bounds"}),
			"OperationError", "the model failed: memory access out of bounds"},
		{"throws before streaming", []any{generateErr{"Error", "no model is loaded"}},
			"OperationError", "the model failed: no model is loaded"},
		{"its own AbortError, not the prompt's", []any{engineChunk(msg{"content": "It"}, ""), generateErr{"AbortError", "aborted elsewhere"}},
			"OperationError", "the model failed: aborted elsewhere"},
		{"a NotSupportedError kept", []any{generateErr{"NotSupportedError", "this engine has no tools"}},
			"NotSupportedError", "the model failed: this engine has no tools"},
		{"a piece that is not a chunk", []any{"text"},
			"OperationError", "the model failed: malformed data from the engine: the chunk is a string, not an object"},
		{"an error chunk", []any{msg{"error": msg{"message": "the context is full"}}},
			"OperationError", "the model failed: the engine reported an error mid-stream: the context is full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			var reqs []msg
			p.generate = pieces(&reqs, engineText("Hi."), tc.pieces)
			p.tools[7] = func(*fakePage, msg) (any, string) { return "sun", "" }
			p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+engineBackend("")+`}`)
			p.ok("prompt", `"session":1,"input":"hello"`)
			before := compact(t, p.ok("history", `"session":1`))
			e := p.fails("prompt", `"session":1,"input":"Weather in Paris?"`, tc.kind)
			require.Equal(t, tc.message, e["message"])
			require.Equal(t, before, compact(t, p.ok("history", `"session":1`)), "the history is as it was")
		})
	}
}

// TestEngine_Abort: an abort mid-stream tells the page to stop the engine
// (generate-abort), rejects with AbortError and keeps nothing of the turn.
func TestEngine_Abort(t *testing.T) {
	p := newPage(t)
	var reqs []msg
	p.generate = pieces(&reqs, []any{engineChunk(msg{"content": "Once"}, ""), hold{}, engineChunk(msg{"content": " upon"}, "")})
	p.ok("create", `"session":1,"options":{`+engineBackend("")+`}`)
	id := p.request("prompt", `"session":1,"input":"hi","stream":true`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeChunk)) == 1 }, 5*time.Second, 5*time.Millisecond)
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeGenerateAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Empty(t, p.ok("history", `"session":1`))
}

// TestEngine_TextTools: nativeTools false, for a model whose template has no tools: the
// tools go into the system message and the call is read from the engine's text.
func TestEngine_TextTools(t *testing.T) {
	p := newPage(t)
	var reqs []msg
	p.generate = pieces(&reqs,
		engineText("Let me look.\n```tool", "_call\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}\n```"),
		engineText("Sunny."))
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sun", "" }
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+engineBackend(`,"nativeTools":false,"model":"qwen"`)+`}`)
	r := p.ok("prompt", `"session":1,"input":"weather?"`).(map[string]any)
	require.Equal(t, "Sunny.", r["text"])
	require.Nil(t, reqs[0]["tools"])
	require.Equal(t, "qwen", reqs[0]["model"])
	first := reqs[0]["messages"].([]any)[0].(map[string]any)
	require.Equal(t, "system", first["role"])
	require.Contains(t, first["content"], "weather")
}

func TestEngine_Config(t *testing.T) {
	for _, tc := range []struct {
		name, backend, message string
	}{
		{"no engine (js/ found no call to make)", `{"kind":"engine"}`, "invalid backend: backend.engine is required"},
		{"model not a string", `{"kind":"engine","generate":5,"model":5}`, "invalid backend: backend.model must be a non-empty string"},
		{"nativeTools not a boolean", `{"kind":"engine","generate":5,"nativeTools":1}`, "invalid backend: backend.nativeTools must be true or false"},
		{"contextWindow zero", `{"kind":"engine","generate":5,"contextWindow":0}`, "invalid backend: backend.contextWindow must be a positive integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{"backend":`+tc.backend+`}`, "TypeError")
			require.Equal(t, tc.message, e["message"])
		})
	}
}
