//go:build !js

package wasm

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/replay"
)

// importedHistory is a transcript passed back as initialPrompts, as a page does to compress
// context: it holds the ids the loop gives first (call_1, call_2) and the ids the test
// backends below give their own calls (c1, call_k2x9m4qa).
const importedHistory = `"initialPrompts":[
	{"role":"user","content":"Weather in Tokyo and Rome?"},
	{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"call_1","name":"get_weather","arguments":{"city":"Tokyo"}}}]},
	{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"call_2","name":"get_weather","arguments":{"city":"Rome"}}}]},
	{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"get_weather","arguments":{"city":"Lima"}}}]},
	{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"call_k2x9m4qa","name":"get_weather","arguments":{"city":"Kyiv"}}}]},
	{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"call_1","name":"get_weather","result":[{"type":"text","value":"sunny"}]}}]},
	{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"call_2","name":"get_weather","result":[{"type":"text","value":"rain"}]}}]},
	{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"get_weather","result":[{"type":"text","value":"fog"}]}}]},
	{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"call_k2x9m4qa","name":"get_weather","result":[{"type":"text","value":"snow"}]}}]},
	{"role":"assistant","content":"Sunny in Tokyo, rain in Rome."}]`

// historyInputs declares the types of an imported history's calls and results.
const historyInputs = `"expectedInputs":[{"type":"tool-call"},{"type":"tool-response"}]`

// TestCallIDs_UniqueAfterAnImportedHistory: whatever id a backend gives a call (none, or
// one an imported call already has), the call the page gets has an id no call of the
// session's history has, and the history's call ids stay distinct. One row per backend.
func TestCallIDs_UniqueAfterAnImportedHistory(t *testing.T) {
	imported := []string{"call_1", "call_2", "c1", "call_k2x9m4qa"}
	for _, tc := range []struct {
		name    string
		backend func(t *testing.T, p *fakePage) string
	}{
		{"scripted turns, a call without an id", func(*testing.T, *fakePage) string {
			return script(`{"calls":[{"name":"get_weather","arguments":{"city":"Oslo"}}]}`)
		}},
		{"scripted turns, a call whose own id an imported call has", func(*testing.T, *fakePage) string {
			return script(`{"calls":[{"callID":"call_1","name":"get_weather","arguments":{"city":"Oslo"}},{"callID":"call_2","name":"get_weather","arguments":{"city":"Bern"}}]}`)
		}},
		{"scripted rules (the demo's model)", func(*testing.T, *fakePage) string {
			return `"backend":{"kind":"scripted","rules":[{"match":"weather in","tool":"get_weather","arguments":{"city":"{{text}}"}}]}`
		}},
		{"custom generate with native tools, an id an imported call has", func(_ *testing.T, p *fakePage) string {
			var reqs []msg
			p.generate = pieces(&reqs, []any{msg{"type": "tool-call", "value": msg{"callId": "c1", "name": "get_weather", "arguments": msg{"city": "Oslo"}}}})
			return customBackend(`,"nativeTools":true`)
		}},
		{"custom generate through the text protocol, no id", func(_ *testing.T, p *fakePage) string {
			var reqs []msg
			p.generate = pieces(&reqs, []any{"```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n```"})
			return customBackend("")
		}},
		{"openai native tools, the server's id an imported call has", func(t *testing.T, p *fakePage) string {
			return openaiBackend(replayServer(t, p), "ollama.sse")
		}},
		{"openai through the text protocol, no id", func(t *testing.T, p *fakePage) string {
			return openaiBackend(replayServer(t, p), "textproto_call.sse", `"nativeTools":false`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			backend := tc.backend(t, p)
			p.ok("create", `"session":1,`+importedHistory+`,"options":{`+openOutputs+`,`+historyInputs+`,"tools":[`+getWeather+`],`+backend+`}`)
			r := p.ok("prompt", `"session":1,"input":"What is the weather in Oslo?"`).(map[string]any)
			calls := r["calls"].([]any)
			require.NotEmpty(t, calls)
			for _, c := range calls {
				c := c.(map[string]any)
				require.NotContains(t, imported, c["callID"], "a new call took an imported call's id")
				require.Equal(t, c["callID"], c["callId"])
			}
			requireDistinctCallIDs(t, p.ok("history", `"session":1`).([]any))

			// A clone continues the session: its calls take no id the original had.
			p.ok("clone", `"session":1,"clone":2`)
			requireDistinctCallIDs(t, p.ok("history", `"session":2`).([]any))
		})
	}
}

// requireDistinctCallIDs checks that no two tool calls of a history share an id.
func requireDistinctCallIDs(t *testing.T, hist []any) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range hist {
		m := m.(map[string]any)
		if m["role"] != "tool-call" {
			continue
		}
		for _, part := range m["content"].([]any) {
			id := part.(map[string]any)["value"].(map[string]any)["callID"].(string)
			require.False(t, seen[id], "two calls have the id %s", id)
			seen[id] = true
		}
	}
}

// replayServer points p's fetch at a new replay server and returns its address.
func replayServer(t *testing.T, p *fakePage) string {
	ts := httptest.NewServer(&replay.Server{})
	t.Cleanup(ts.Close)
	p.fetch = httpFetch(ts.Client(), 0)
	return ts.URL
}
