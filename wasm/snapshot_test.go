package wasm

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// until reads the engine's messages until one of type typ, acting on the others, and
// returns it.
func (p *fakePage) until(typ string) msg {
	p.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b := <-p.out:
			m := decodeMsg(p.t, b)
			if m["type"] == TypeReply {
				p.replies[num(m["id"])] = m
				continue
			}
			p.act(m)
			if m["type"] == typ {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no %s; log: %v", typ, p.log)
		}
	}
}

// TestHandler_Restore saves a closed session as the face does (its history and usage,
// read while a call waits for the page) and restores it under a new key, as a reloaded
// page would: what was running or waiting for approval becomes what docs/snapshots.md
// says, and the restored session goes on.
func TestHandler_Restore(t *testing.T) {
	tests := []struct {
		name    string
		waitFor string // the page's call in flight when the snapshot is taken
		tail    string // the restored history's last message, compact
		asks    string // the page call the restored session's next prompt makes ("" none)
	}{
		{
			name:    "a call whose execute was running is answered as interrupted",
			waitFor: TypeToolExecute,
			tail:    `{"content":[{"type":"tool-result","value":{"callID":"call_1","callId":"call_1","errorMessage":"interrupted: the page was closed or reloaded while this tool call ran","name":"weather"}}],"role":"tool-result"}`,
		},
		{
			name:    "a call waiting for approval is asked again at the next prompt",
			waitFor: TypeToolApprove,
			tail:    `{"content":[{"type":"tool-call","value":{"arguments":{"city":"Oslo"},"callID":"call_1","callId":"call_1","name":"weather"}}],"role":"tool-call"}`,
			asks:    TypeToolApprove,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(t)
			opts := `"tools":[` + weatherTool + `],"toolUseConfig":{"approve":1}`
			p.ok("create", `"session":1,"options":{`+opts+`,`+
				script(`{"calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}`, `{"text":"never"}`)+`},"initialPrompts":[{"role":"system","content":"Be brief."}]`)
			approveNow := tt.waitFor == TypeToolExecute
			p.approve = func(msg) any { return approveNow }
			if !approveNow {
				p.approve = nil // the page never answers: the approval stays pending
			}
			p.request("prompt", `"session":1,"input":"weather?"`)
			call := p.until(tt.waitFor)
			require.Equal(t, "call_1", call["call"].(map[string]any)["callID"])

			// The snapshot: what the face reads synchronously.
			hist := compact(t, decodeMsg(t, p.h.Query([]byte(`{"type":"history","id":0,"session":1}`)))["value"])
			usage := num(decodeMsg(t, p.h.Query([]byte(`{"type":"usage","id":0,"session":1}`)))["value"].(map[string]any)["contextUsage"])
			running := `{}`
			if tt.waitFor == TypeToolExecute {
				running = `{"call_1":true}`
			}

			// The page reloads: a new page, the same module state gone with it.
			q := newPage(t)
			q.tools[7] = func(*fakePage, msg) (any, string) { return "sunny", "" }
			q.approve = func(msg) any { return true }
			info := q.ok("create", fmt.Sprintf(`"session":5,"options":{%s,%s},"initialPrompts":%s,"restore":{"initial":1,"usage":%d,"running":%s}`,
				opts, script(`{"text":"Sunny."}`), hist, usage, running)).(map[string]any)
			require.Equal(t, "closed", info["mode"])
			require.Equal(t, json1, info["initial"], "the system prompt is still the one initial prompt")
			got := q.ok("history", `"session":5`).([]any)
			require.Equal(t, tt.tail, compact(t, got[len(got)-1]))
			if tt.waitFor == TypeToolApprove {
				require.Equal(t, jsonNumber(fmt.Sprint(usage)), info["contextUsage"], "nothing was added: the usage is the saved one")
			}

			r := q.ok("prompt", `"session":5,"input":"and now?"`).(map[string]any)
			require.Equal(t, "Sunny.", r["text"])
			require.Len(t, q.logged(TypeToolApprove), map[bool]int{true: 1, false: 0}[tt.asks != ""])
		})
	}
}

// TestHandler_RestoreRefused checks that a restore the engine cannot make is refused
// with the right error, and leaves the key free.
func TestHandler_RestoreRefused(t *testing.T) {
	tests := []struct {
		name    string
		fields  string
		errName string
	}{
		{"more initial prompts than messages", `"initialPrompts":[{"role":"user","content":"hi"}],"restore":{"initial":2}`, "DataError"},
		{"running is not an object of call ids", `"initialPrompts":[],"restore":{"running":["a"]}`, "TypeError"},
		{"a result for an answered call", `"initialPrompts":[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"a","name":"t","arguments":{}}}]},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"a","name":"t","arguments":{}}}]}],"restore":{}`, "SyntaxError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(t)
			p.fails("create", `"session":1,"options":{},`+tt.fields, tt.errName)
			p.ok("create", `"session":1,"options":{}`)
		})
	}
}
