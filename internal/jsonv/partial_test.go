package jsonv_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"a whole object stands as it is", `{"city":"Paris"}`, `{"city":"Paris"}`, true},
		{"an object just opened is empty", `{`, `{}`, true},
		{"an array just opened is empty", `[`, `[]`, true},
		{"a string value cut short is closed", `{"city": "Par`, `{"city": "Par"}`, true},
		{"a key cut short is left out", `{"a": 1, "ci`, `{"a": 1}`, true},
		{"a key without its value is left out", `{"a": 1, "city": `, `{"a": 1}`, true},
		{"a key before its colon is left out", `{"a": 1, "city"`, `{"a": 1}`, true},
		{"a trailing comma is dropped", `{"a": 1,`, `{"a": 1}`, true},
		{"a number is taken as it stands", `{"n": 12`, `{"n": 12}`, true},
		{"a number cut before its fraction is left out", `{"n": 1.`, `{}`, true},
		{"a minus alone is left out", `[1, -`, `[1]`, true},
		{"a literal cut short is left out", `[true, fa`, `[true]`, true},
		{"nested containers are closed innermost first", `{"a": [{"b": "x`, `{"a": [{"b": "x"}]}`, true},
		{"an escape cut short is cut before it", `{"s": "a\`, `{"s": "a"}`, true},
		{"a unicode escape cut short goes back to the last bracket", `{"s": "a\u00e`, `{}`, true},
		{"a whole unicode escape stays", `{"s": "a\u00e9`, `{"s": "a\u00e9"}`, true},
		{"an incomplete UTF-8 character stands (the page decodes it as U+FFFD)", "{\"s\": \"caf\xc3", "{\"s\": \"caf\xc3\"}", true},
		{"an empty array in an object closes", `{"a": [], "b`, `{"a": []}`, true},
		{"an empty object in an array closes", `[{}, {`, `[{}, {}]`, true},
		{"text after a whole value goes back to the last bracket", `{"a":1}` + "\n```", `{}`, true},
		{"a broken escape ends the prefix before the string", `{"a": 1, "s": "\q`, `{"a": 1}`, true},
		{"a raw newline in a string ends the prefix", "{\"a\": 1, \"s\": \"x\ny", `{"a": 1}`, true},
		{"garbage after a member goes back to the last comma", `{"a": 1, "b": 2 x`, `{"a": 1}`, true},
		{"a closer of the wrong kind goes back to the last bracket", `{"a": [1}`, `{"a": []}`, true},
		{"a key that is no string ends the prefix", `{a: 1}`, `{}`, true},
		{"a bare number stands", `42`, `42`, true},
		{"nothing is no value", "  ", ``, false},
		{"a bare string cut short is closed", `"abc`, `"abc"`, true},
		{"a bare literal cut short is no value", `tru`, ``, false},
		{"text that is not JSON is no value", `hello`, ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := jsonv.Complete(nil, []byte(tc.in))
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, string(out))
			if ok {
				require.True(t, json.Valid(out), "%s", out)
			}
		})
	}
}

// TestComplete_EveryPrefix: every prefix of a call's arguments completes to valid JSON
// that, decoded, says no more than the whole does, and the whole completes to itself.
func TestComplete_EveryPrefix(t *testing.T) {
	whole := `{"city": "Paris \"15e\" \u00e9 café", "days": [1, 2.5, -3e2], "opts": {"metric": true, "note": null}, "empty": {}}`
	for n := 1; n <= len(whole); n++ {
		out, ok := jsonv.Complete(nil, []byte(whole[:n]))
		require.True(t, ok, "prefix %q", whole[:n])
		require.True(t, json.Valid(out), "prefix %q gave %s", whole[:n], out)
		var v map[string]any
		require.NoError(t, json.Unmarshal(out, &v))
	}
	out, _ := jsonv.Complete(nil, []byte(whole))
	require.Equal(t, whole, string(out))
}

func TestComplete_AppendsToDst(t *testing.T) {
	out, ok := jsonv.Complete([]byte(`x=`), []byte(`{"a":"b`))
	require.True(t, ok)
	require.Equal(t, `x={"a":"b"}`, string(out))
}

// FuzzComplete: whatever the text, a completion is valid JSON; every prefix of valid JSON
// text completes.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{`{"a": [1, "b\u00e9", {"c": null}], "d": -1.5e3}`, `[`, `{"a`, "\"\xc3", `{"a": tru`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := jsonv.Complete(nil, []byte(s))
		if ok {
			require.True(t, json.Valid(out), "%q gave %q", s, out)
		}
		if json.Valid([]byte(s)) && len(s) < 256 {
			for n := 1; n <= len(s); n++ {
				p := s[:n]
				if out, ok := jsonv.Complete(nil, []byte(p)); ok {
					require.True(t, json.Valid(out), "%q gave %q", p, out)
				}
			}
		}
	})
}
