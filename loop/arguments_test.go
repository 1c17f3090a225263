package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// A call's arguments are taken as they are only when they are one JSON object.
func TestIsJSONObject(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		want bool
	}{
		{"an object", `{"a":1}`, true},
		{"an empty object after white space", " \t\r\n{}", true},
		{"an array", `[{}]`, false},
		{"a string", `"{}"`, false},
		{"white space alone", "  ", false},
		{"empty", "", false},
		{"an unclosed object", `{"a":1`, false},
		{"an object with trailing data", `{} x`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, isJSONObject(jsonv.RawMessage(tc.raw)))
		})
	}
}
