package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

// A RegExp crosses as {"pattern": source}, an object with that one member; anything else
// is a JSON Schema, including a schema that has a pattern among other keywords.
func TestConstraintPattern(t *testing.T) {
	for _, tc := range []struct {
		raw, src string
		re       bool
	}{
		{`{"pattern":"^a+$"}`, "^a+$", true},
		{` { "pattern" : "x" } `, "x", true},
		{`{"type":"string","pattern":"^a+$"}`, "", false},
		{`{"pattern":7}`, "", false},
		{`{"type":"object"}`, "", false},
		{`true`, "", false},
		{`["pattern"]`, "", false},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			src, re := session.ConstraintPattern(jsonv.RawMessage(tc.raw))
			require.Equal(t, tc.re, re)
			require.Equal(t, tc.src, src)
		})
	}
}

func TestConstraint_Check(t *testing.T) {
	for _, tc := range []struct{ name, constraint, answer, err string }{
		{"JSON that matches", `{"type":"array","items":{"type":"number"}}`, ` [1, 2.5] `, ""},
		{"JSON followed by text", `{"type":"array"}`, `[1] and more`, "the model's answer does not match the responseConstraint: it is not JSON (trailing text after the JSON value)"},
		{"a boolean schema", `true`, `"anything"`, ""},
		{"false accepts nothing", `false`, `1`, "the model's answer does not match the responseConstraint: it does not match the JSON Schema at /: no value is allowed here (the schema is false)"},
		{"a RegExp tests anywhere in the answer", `{"pattern":"\\d{3}"}`, "call 555-1234", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := session.CompileConstraint(jsonv.RawMessage(tc.constraint))
			require.NoError(t, err)
			err = c.Check(tc.answer)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Equal(t, session.KindSyntax, session.KindOf(err))
			require.ErrorIs(t, err, session.ErrConstraint)
			require.EqualError(t, err, tc.err)
		})
	}
	_, err := session.CompileConstraint(jsonv.RawMessage(`"a string"`))
	require.Equal(t, session.KindType, session.KindOf(err))
	require.EqualError(t, err, "invalid responseConstraint: a JSON Schema or a RegExp, not a string")
}
