package wasm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompact_BadRules: compaction's rules, in create()'s compactOnOverflow and in
// compact() (a clone with rules), are checked by the engine too: a TypeError that names
// the field.
func TestCompact_BadRules(t *testing.T) {
	for _, tc := range []struct {
		name, typ, body, want string
	}{
		{"compactOnOverflow.keepTurns negative", "create", `"session":1,"options":{"compactOnOverflow":{"keepTurns":-1}}`, "compactOnOverflow.keepTurns must not be negative"},
		{"compactOnOverflow.keepTurns fractional", "create", `"session":1,"options":{"compactOnOverflow":{"keepTurns":1.5}}`, "compactOnOverflow: keepTurns: expected an integer"},
		{"compactOnOverflow.summarize a string", "create", `"session":1,"options":{"compactOnOverflow":{"summarize":"yes"}}`, "compactOnOverflow: summarize: expected a boolean"},
		{"compact.keepTurns negative", "clone", `"session":1,"clone":2,"compact":{"keepTurns":-3}`, "compact.keepTurns must not be negative"},
		{"compact.dropToolResults a number", "clone", `"session":1,"clone":2,"compact":{"dropToolResults":1}`, "compact: dropToolResults: expected a boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			if tc.typ == "clone" {
				p.ok("create", `"session":1,"options":{}`)
			}
			e := p.fails(tc.typ, tc.body, "TypeError")
			require.Contains(t, e["message"], tc.want)
		})
	}
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"compactOnOverflow":{"keepTurns":0,"dropToolResults":false,"summarize":true}}`)
	p.ok("create", `"session":2,"options":{"compactOnOverflow":null}`)
	p.ok("clone", `"session":1,"clone":3,"compact":{}`)
}
