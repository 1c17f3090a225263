package session_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// Annotations are written by hand (no reflection in the module): the same bytes as
// encoding/json would write from the struct tags.
func TestAnnotationsMarshalAsTheirTagsSay(t *testing.T) {
	yes, no := true, false
	type tagged session.Annotations // no methods: encoding/json reads the tags
	for _, tc := range []struct {
		name string
		a    session.Annotations
		want string
	}{
		{"none set", session.Annotations{}, `{}`},
		{"title only", session.Annotations{Title: "Get <weather>"}, `{"title":"Get \u003cweather\u003e"}`},
		{"hints in MCP's order", session.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no, IdempotentHint: &yes, OpenWorldHint: &no}, `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`},
		{"title and one hint", session.Annotations{Title: "x", OpenWorldHint: &yes}, `{"title":"x","openWorldHint":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.a.MarshalJSON()
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			std, err := json.Marshal(tagged(tc.a))
			require.NoError(t, err)
			require.Equal(t, string(std), string(got))
		})
	}
}

// DecodeJSON takes one value with white space around it, and nothing after it.
func TestDecodeJSON_TrailingData(t *testing.T) {
	for _, tc := range []struct{ name, raw, err string }{
		{"a value alone", `{"a":1}`, ""},
		{"JSON white space after the value", "[1] \t\r\n", ""},
		{"a second value", `{"a":1} {}`, "trailing data after the JSON value"},
		{"a byte after white space", "\"x\"\n,", "trailing data after the JSON value"},
		{"a form feed, which is not JSON white space", "1\f", "trailing data after the JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := session.DecodeJSON([]byte(tc.raw))
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}
