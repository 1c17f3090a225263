package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 9's rules as the channel carries them: one row each, the exact name and message
// the page sees (js/ builds the exception from them).

func TestHandler_ResponseConstraint(t *testing.T) {
	for _, tc := range []struct {
		name, turns, constraint, text, want, message string
	}{
		{"a custom or scripted model that ignores the schema is repaired once", `{"text":"not json at all"},{"text":"{\"ok\":true}"}`, `{"type":"object","required":["ok"]}`, `{"ok":true}`, "", ""},
		{"an answer that fails twice is a SyntaxError", `{"text":"not json at all"},{"text":"still not"}`, `{"type":"object"}`, "", "SyntaxError",
			`the model's answer does not match the responseConstraint: it is not JSON (invalid character 's' looking for beginning of value)`},
		{"a RegExp crosses as {pattern}", `{"text":"nope"},{"text":"42"}`, `{"pattern":"^\\d+$"}`, "42", "", ""},
		{"an unsupported schema feature", `{"text":"x"}`, `{"$dynamicRef":"#x"}`, "", "NotSupportedError", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.ok("create", `"session":1,"options":{`+script(tc.turns)+`}`)
			fields := `"session":1,"input":"q","responseConstraint":` + tc.constraint
			if tc.want != "" {
				e := p.fails("prompt", fields, tc.want)
				if tc.message != "" {
					require.Equal(t, tc.message, e["message"])
				}
				require.Equal(t, "[]", compact(t, p.ok("history", `"session":1`)), "history unchanged")
				return
			}
			r := p.ok("prompt", fields).(map[string]any)
			require.Equal(t, tc.text, r["text"])
		})
	}
}
