package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandler_ToolList: a tool-list request answers the session's tools as approve is
// shown them, with active; a set a tools message left is listed before the next step
// takes it; a session that does not exist is InvalidStateError.
func TestHandler_ToolList(t *testing.T) {
	p := newPage(t)
	news := `{"name":"news","description":"Latest news","hasExecute":true,"execute":8,"mcpResult":true}`
	p.ok("create", `"session":1,"options":{"tools":[`+weatherTool+`],`+script(`{"text":"a"}`)+`}`)
	require.Equal(t, `[{"active":true,"annotations":{},"description":"Weather in a city","inputSchema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"weather","source":{"kind":"page"}}]`,
		compact(t, p.ok("tool-list", `"session":1`)))
	p.send(`{"type":"tools","session":1,"tools":[` + weatherTool + `,` + news + `]}`)
	require.Equal(t, []any{"weather page", "news webmcp"}, names(p.ok("tool-list", `"session":1`)))
	e := p.fails("tool-list", `"session":9`, "InvalidStateError")
	require.Contains(t, e["message"], "(session key 9)")
}

// names is each listed tool's name and source kind.
func names(v any) []any {
	var out []any
	for _, t := range v.([]any) {
		m := t.(map[string]any)
		out = append(out, m["name"].(string)+" "+m["source"].(map[string]any)["kind"].(string))
	}
	return out
}
