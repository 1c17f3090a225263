package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandler_Tools: a tools message gives a session a new set from its next model step
// on; a call to a new tool runs the execute the page stored for it, and a call to a tool
// the set dropped is a tool error for the model. A set the engine refuses is dropped.
func TestHandler_Tools(t *testing.T) {
	p := newPage(t)
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sunny", "" }
	p.tools[8] = func(*fakePage, msg) (any, string) { return "calm", "" }
	news := `{"name":"news","description":"Latest news","hasExecute":true,"execute":8,"mcpResult":true}`
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+
		script(`{"calls":[{"name":"news","arguments":{}}]}`, `{"text":"a"}`, `{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"b"}`)+`}`)
	p.send(`{"type":"tools","session":1,"tools":[{"name":""}]}`) // refused: dropped
	p.send(`{"type":"tools","session":1,"tools":[` + news + `]}`)
	p.send(`{"type":"tools","session":99,"tools":[]}`) // no such session: dropped
	p.ok("prompt", `"session":1,"input":"news?"`)
	p.ok("prompt", `"session":1,"input":"weather?"`)
	h := p.ok("history", `"session":1`).([]any)
	require.Equal(t, `{"callID":"call_1","callId":"call_1","name":"news","result":[{"type":"text","value":"calm"}]}`, compact(t, h[2].(map[string]any)["content"].([]any)[0].(map[string]any)["value"]))
	require.Equal(t, `{"callID":"call_2","callId":"call_2","errorMessage":"tool weather is no longer available: the page unregistered it","name":"weather"}`, compact(t, h[6].(map[string]any)["content"].([]any)[0].(map[string]any)["value"]))
}
