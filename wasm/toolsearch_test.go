package wasm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreate_ToolSearchOptions: toolUseConfig.toolSearch is true, false or {share,
// pinned}; anything else is a TypeError that names the field.
func TestCreate_ToolSearchOptions(t *testing.T) {
	for _, tc := range []struct {
		name, search, want string
	}{
		{"a number", `3`, "toolUseConfig.toolSearch must be true, false or {share, pinned}"},
		{"a string", `"on"`, "toolUseConfig.toolSearch must be true, false or {share, pinned}"},
		{"share 0", `{"share":0}`, "toolUseConfig.toolSearch.share must be a number above 0 and at most 1"},
		{"share above 1", `{"share":1.5}`, "toolUseConfig.toolSearch.share must be a number above 0 and at most 1"},
		{"share a string", `{"share":"half"}`, "toolUseConfig.toolSearch.share must be a number above 0 and at most 1"},
		{"pinned a string", `{"pinned":"weather"}`, "toolUseConfig.toolSearch.pinned must be a list of tool names"},
		{"pinned with a number", `{"pinned":["weather",3]}`, "toolUseConfig.toolSearch.pinned must be a list of tool names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{"toolUseConfig":{"toolSearch":`+tc.search+`}}`, "TypeError")
			require.Contains(t, e["message"], tc.want)
		})
	}
	p := newPage(t)
	for i, s := range []string{`true`, `false`, `null`, `{}`, `{"share":1}`, `{"share":0.1,"pinned":["weather","nope"]}`} {
		p.ok("create", fmt.Sprintf(`"session":%d,"options":{"tools":[%s],"toolUseConfig":{"toolSearch":%s}}`, i+1, weatherTool, s))
	}
}

// TestPrompt_ActiveToolsOption: a prompt's activeTools is a list of tool names, else a
// TypeError naming it, and the prompt does not start.
func TestPrompt_ActiveToolsOption(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+script(`{"text":"a"}`)+`}`)
	for _, bad := range []string{`"weather"`, `[1]`, `{"weather":true}`} {
		e := p.fails("prompt", `"session":1,"input":"x","activeTools":`+bad, "TypeError")
		require.Equal(t, "invalid option: activeTools must be a list of tool names", e["message"])
	}
	require.Equal(t, "a", p.ok("prompt", `"session":1,"input":"x","activeTools":["weather"]`).(map[string]any)["text"])
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
