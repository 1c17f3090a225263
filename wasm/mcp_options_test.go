//go:build !js

package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The mcpServers options of consent and bounds: unannotated ("destructive", MCP's
// default, or "readOnly") and maxCallTime (milliseconds), refused with a TypeError when
// malformed.
func TestMCPServers_ConsentAndBoundOptions(t *testing.T) {
	tests := []struct {
		name, entry, message string
	}{
		{"unannotated not a known word", `{"url":"/mcp","unannotated":"harmless"}`, `invalid mcpServers: mcpServers[0].unannotated must be "destructive" or "readOnly"`},
		{"unannotated not a string", `{"url":"/mcp","unannotated":true}`, `invalid mcpServers: mcpServers[0].unannotated must be "destructive" or "readOnly"`},
		{"maxCallTime zero", `{"url":"/mcp","maxCallTime":0}`, "invalid mcpServers: mcpServers[0].maxCallTime must be a positive number of milliseconds"},
		{"maxCallTime not a number", `{"url":"/mcp","maxCallTime":"60s"}`, "invalid mcpServers: mcpServers[0].maxCallTime must be a positive number of milliseconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{"mcpServers":[`+tc.entry+`]}`, "TypeError")
			require.Equal(t, tc.message, e["message"])
		})
	}
}
