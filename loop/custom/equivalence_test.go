// What the custom backend reads as encoding/json read it: a call's structured arguments,
// written back as json.Marshal writes the decoded value.
package custom_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop/custom"
	"langmodel/session"
)

// TestParsePiece_ArgumentsMatchEncodingJSON: structured arguments are written as
// json.Marshal wrote the decoded value: keys sorted, numbers as given, HTML escaped.
func TestParsePiece_ArgumentsMatchEncodingJSON(t *testing.T) {
	tests := []struct{ name, arguments, want string }{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"numbers as given", `{"n":[1.50,1e3,-0,12345678901234567890]}`, `{"n":[1.50,1e3,-0,12345678901234567890]}`},
		{"HTML and separators escaped", `{"s":"<b>&amp;</b>\u2028"}`, `{"s":"\u003cb\u003e\u0026amp;\u003c/b\u003e\u2028"}`},
		{"nested, spaced", `{ "o" : { "z" : [ true , false , null , {} , [] ] } }`, `{"o":{"z":[true,false,null,{},[]]}}`},
		{"an array", `[1,"x"]`, `[1,"x"]`},
		{"a number", `42`, `42`},
		{"true", `true`, `true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := custom.ParsePiece([]byte(`{"type":"tool-call","value":{"name":"f","arguments":` + tc.arguments + `}}`))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(d.Call.Arguments))
			v, err := session.DecodeJSON([]byte(tc.arguments))
			require.NoError(t, err)
			old, err := json.Marshal(v)
			require.NoError(t, err)
			require.Equal(t, string(old), string(d.Call.Arguments))
		})
	}
}
