package wasm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreate_ToolSearchOption: toolUseConfig.toolSearch as the face sends it (checked
// there): false keeps every declaration (300 tools then do not fit 4,096 tokens), absent
// or any other value searches.
func TestCreate_ToolSearchOption(t *testing.T) {
	var tools []string
	for i := 0; i < 300; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"page_action_%d","description":"Runs action %d of this page.","hasExecute":true,"execute":7}`, i, i))
	}
	create := `"session":1,"options":{"tools":[` + strings.Join(tools, ",") + `],"backend":{"kind":"scripted","window":4096},"toolUseConfig":`
	for _, tc := range []struct{ name, search, fails string }{
		{"absent: search", `{}`, ""},
		{"true: search", `{"toolSearch":true}`, ""},
		{"a share and pins: search", `{"toolSearch":{"share":0.5,"pinned":["page_action_1",3]}}`, ""},
		{"false: every declaration, which do not fit", `{"toolSearch":false}`, "QuotaExceededError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			if tc.fails != "" {
				p.fails("create", create+tc.search+"}", tc.fails)
				return
			}
			p.ok("create", create+tc.search+"}")
		})
	}
}

// TestHandler_ToolSearch: 300 tools on a 4,096-token window: the session is created
// (the declarations are the active set's), the model searches, calls the tool found,
// and the events mark the search as the engine's own tool.
func TestHandler_ToolSearch(t *testing.T) {
	p := newPage(t)
	p.tools[7] = func(*fakePage, msg) (any, string) { return "92 EUR", "" }
	var tools []string
	for i := 0; i < 300; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"page_action_%d","description":"Runs action %d of this page.","inputSchema":{"type":"object","properties":{"target":{"type":"string"}}},"hasExecute":true,"execute":7}`, i, i))
	}
	tools[150] = `{"name":"convert_currency","description":"Convert an amount of money from one currency to another.","inputSchema":{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}}},"hasExecute":true,"execute":7}`
	p.ok("create", `"session":1,"options":{"tools":[`+strings.Join(tools, ",")+`],"backend":{"kind":"scripted","window":4096,"turns":[`+
		`{"calls":[{"name":"search_tools","arguments":{"query":"convert currency"}}]},`+
		`{"calls":[{"name":"convert_currency","arguments":{"amount":100,"from":"USD","to":"EUR"}}]},`+
		`{"text":"92 EUR."}]}}`)
	require.Equal(t, "92 EUR.", p.ok("prompt", `"session":1,"input":"100 USD in EUR?"`).(map[string]any)["text"])
	var events []string
	for _, m := range p.log {
		if m["type"] == "toolcall" || m["type"] == "toolresult" {
			d := m["detail"].(map[string]any)
			events = append(events, fmt.Sprint(m["type"], " ", d["call"].(map[string]any)["name"], " builtin=", d["builtin"]))
		}
	}
	require.Equal(t, []string{
		"toolcall search_tools builtin=true", "toolresult search_tools builtin=true",
		"toolcall convert_currency builtin=<nil>", "toolresult convert_currency builtin=<nil>",
	}, events)
}
