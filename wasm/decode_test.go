package wasm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parse splits a message into its fields, keys unescaped and values as written, or
// names what is wrong with it in encoding/json's words.
func TestParse(t *testing.T) {
	nested := func(n int) string {
		return `{"type":"x","deep":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	}
	for _, tc := range []struct {
		name, raw string
		want      []string // key=value for each field
		err       string
	}{
		{"fields in order", `{"type":"prompt","id":12,"input":{"a":[1,"x"]},"stream":true}`, []string{`type="prompt"`, `id=12`, `input={"a":[1,"x"]}`, `stream=true`}, ""},
		{"white space around and between", " \t{ \"type\" : \"hello\" ,\n\"id\" :1 }\r\n", []string{`type="hello"`, `id=1`}, ""},
		{"keys with escapes, read", `{"t\u0079pe":"x","\"q\"":null}`, []string{`type="x"`, `"q"=null`}, ""},
		{"no fields", `{}`, nil, ""},
		{"more than eight fields", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, []string{"a=1", "b=2", "c=3", "d=4", "e=5", "f=6", "g=7", "h=8", "i=9", "j=10"}, ""},
		{"a repeated key, kept twice", `{"id":1,"id":2}`, []string{"id=1", "id=2"}, ""},
		{"a field 9,999 deep, 10,000 with the message", nested(9999), []string{`type="x"`, "deep=" + strings.Repeat("[", 9999) + strings.Repeat("]", 9999)}, ""},
		{"a field 10,000 deep, 10,001 with the message", nested(10000), nil, "invalid character '[' exceeded max depth"},
		{"not JSON", `hello`, nil, "invalid character 'h' looking for beginning of value"},
		{"empty", ``, nil, "unexpected end of JSON input"},
		{"null", `null`, nil, "expected an object"},
		{"an array", `[1,2]`, nil, "expected an object"},
		{"data after the object", `{"type":"hello"} x`, nil, "invalid character 'x' after top-level value"},
		{"a missing value", `{"a":}`, nil, "invalid character '}' looking for beginning of value"},
		{"a missing colon", `{"a" 1}`, nil, "invalid character '1' after object key"},
		{"a trailing comma", `{"a":1,}`, nil, "invalid character '}' looking for beginning of object key string"},
		{"a key that is not a string", `{a:1}`, nil, "invalid character 'a' looking for beginning of object key string"},
		{"an unclosed object", `{"a":1`, nil, "unexpected end of JSON input"},
		{"a bad value inside a field", `{"input":{"a":[1,]}}`, nil, "invalid character ']' looking for beginning of value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m message
			err := parse([]byte(tc.raw), &m)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var got []string
			for i := range m.n {
				got = append(got, m.at(i).key+"="+string(m.at(i).v))
			}
			require.Equal(t, tc.want, got)
		})
	}
}
