package textproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// The reference: how readBody, callShaped and writeString read and wrote JSON with
// encoding/json's reflection-based coder, before they stopped linking it. The tests hold
// the new code to the same results on the same inputs.

type refCallJSON struct {
	Name       jsonv.RawMessage `json:"name"`
	Arguments  jsonv.RawMessage `json:"arguments"`
	Parameters jsonv.RawMessage `json:"parameters"`
	Function   jsonv.RawMessage `json:"function"`
}

func (c *refCallJSON) name() string {
	var name string
	if json.Unmarshal(c.Name, &name) != nil {
		return ""
	}
	return name
}

func refToCall(raw []byte) (Call, error) {
	var c refCallJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return Call{}, ErrNotCall
	}
	return c.call()
}

func (c *refCallJSON) call() (Call, error) {
	if c.Function != nil && c.Name == nil {
		return refToCall(c.Function)
	}
	name := c.name()
	if name == "" {
		return Call{}, ErrNotCall
	}
	args := c.Arguments
	if args == nil {
		args = c.Parameters
	}
	if args == nil || string(args) == "null" {
		return Call{Name: name, Arguments: jsonv.RawMessage("{}")}, nil
	}
	if args[0] == '"' {
		var s string
		_ = json.Unmarshal(args, &s)
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			args = jsonv.RawMessage("{}")
		case json.Valid([]byte(s)):
			args = jsonv.RawMessage(s)
		}
	}
	a, _ := compact(args)
	return Call{Name: name, Arguments: a}, nil
}

func refReadBody(f Format, name, body string) ([]Call, error) {
	s := stripWrapper(strings.TrimSpace(body))
	if f == FormatFunction {
		if s == "" {
			s = "{}"
		}
		args, err := compact([]byte(s))
		if err != nil {
			return nil, err
		}
		return []Call{{Name: name, Arguments: args}}, nil
	}
	if s == "" {
		return nil, ErrEmptyBlock
	}
	if s[0] == '{' {
		var c refCallJSON
		if json.Unmarshal([]byte(s), &c) == nil {
			call, err := c.call()
			if err != nil {
				return nil, err
			}
			return []Call{call}, nil
		}
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var calls []Call
	for {
		var v jsonv.RawMessage
		err := dec.Decode(&v)
		if err == io.EOF {
			return calls, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadJSON, err)
		}
		if v[0] == '[' {
			var items []jsonv.RawMessage
			_ = json.Unmarshal(v, &items)
			if len(items) == 0 {
				return nil, ErrNotCall
			}
			for _, it := range items {
				c, err := refToCall(it)
				if err != nil {
					return nil, err
				}
				calls = append(calls, c)
			}
			continue
		}
		c, err := refToCall(v)
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
}

func refCallShaped(v []byte) bool {
	if len(v) > 0 && v[0] == '[' {
		var items []jsonv.RawMessage
		if json.Unmarshal(v, &items) != nil || len(items) == 0 {
			return false
		}
		for _, it := range items {
			if !refCallShaped(it) {
				return false
			}
		}
		return true
	}
	var c refCallJSON
	if json.Unmarshal(v, &c) != nil {
		return false
	}
	if c.Function != nil && c.Name == nil {
		return refCallShaped(c.Function)
	}
	return c.name() != "" && (c.Arguments != nil || c.Parameters != nil)
}

// requireSameBody checks readBody against refReadBody on body: the same calls, the same
// error text, and the same sentinels in the error.
func requireSameBody(t *testing.T, f Format, body string) {
	t.Helper()
	want, wantErr := refReadBody(f, "f", body)
	got, err := readBody(f, "f", body)
	require.Equal(t, want, got, "calls of %q", body)
	if wantErr == nil {
		require.NoError(t, err, "body %q", body)
		return
	}
	require.Error(t, err, "body %q", body)
	require.Equal(t, wantErr.Error(), err.Error(), "error of %q", body)
	for _, e := range []error{ErrBadJSON, ErrNotCall, ErrEmptyBlock} {
		require.Equal(t, errors.Is(wantErr, e), errors.Is(err, e), "%v in the error of %q", e, body)
	}
}

// callJSONCases are bodies that reach every branch of the call reader, and the edges
// where encoding/json's behaviour is easy to miss.
var callJSONCases = []struct {
	name, body string
}{
	{"one call", `{"name":"get_weather","arguments":{"city":"Paris"}}`},
	{"white space everywhere", " {\n \"name\" : \"get_weather\" ,\t\"arguments\" : { \"city\" : [ 1 , 2.5e3 , true , null ] } } "},
	{"parameters", `{"name":"f","parameters":{"a":1}}`},
	{"arguments win over parameters", `{"parameters":{"p":1},"name":"f","arguments":{"a":1}}`},
	{"null arguments", `{"name":"f","arguments":null}`},
	{"null arguments fall back to nothing, not to parameters", `{"name":"f","arguments":null,"parameters":{"p":1}}`},
	{"no arguments", `{"name":"f"}`},
	{"arguments as a string holding JSON", `{"name":"f","arguments":"{\"a\": \"\\u003c\"}"}`},
	{"arguments as a string holding JSON and spaces", `{"name":"f","arguments":"  [1, 2]\n"}`},
	{"arguments as an empty string", `{"name":"f","arguments":" "}`},
	{"arguments as a string holding no JSON", `{"name":"f","arguments":"Paris"}`},
	{"arguments as a number", `{"name":"f","arguments":42}`},
	{"arguments keep their escapes and order", `{"name":"f","arguments":{"z":"<\u003e&","a":"\u00e9"}}`},
	{"no name", `{"arguments":{}}`},
	{"empty name", `{"name":"","arguments":{}}`},
	{"null name", `{"name":null,"arguments":{}}`},
	{"a number for a name", `{"name":42,"arguments":{}}`},
	{"an object for a name", `{"name":{"a":1},"arguments":{}}`},
	{"a name with escapes", `{"name":"get\u005fweather\n\ud83d\ude00","arguments":{}}`},
	{"a name with a lone surrogate", `{"name":"a\ud800b","arguments":{}}`},
	{"a name of invalid UTF-8", "{\"name\":\"a\xffb\",\"arguments\":{}}"},
	{"keys in another case", `{"Name":"f","ARGUMENTS":{"a":1}}`},
	{"PARAMETERS", `{"nAmE":"f","Parameters":{"a":1}}`},
	{"a key folded from the long s", "{\"name\":\"f\",\"argument\u017f\":{\"a\":1}}"},
	{"a key with the Kelvin sign is no key of a call", "{\"name\":\"f\",\"\u212aarguments\":{\"a\":1}}"},
	{"a key with a dotted I is no key of a call", "{\"name\":\"f\",\"functİon\":{}}"},
	{"a key with escapes", `{"n\u0061me":"f","\u0041rguments":{"a":1}}`},
	{"a key of invalid UTF-8", "{\"name\":\"f\",\"argument\xff\":{\"a\":1}}"},
	{"the last duplicate wins", `{"name":"f","name":"g","arguments":{"a":1},"arguments":{"b":2}}`},
	{"the last duplicate wins across cases", `{"NAME":"g","name":"f","Arguments":{"b":2},"arguments":{"a":1}}`},
	{"a duplicate null wins", `{"name":"f","name":null}`},
	{"other keys are ignored", `{"type":"function","id":"x","name":"f","arguments":{},"extra":[{"name":"g"}]}`},
	{"OpenAI function form", `{"type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}`},
	{"a function of null", `{"function":null}`},
	{"a function that is no object", `{"function":"f"}`},
	{"a function nested twice", `{"function":{"function":{"name":"f"}}}`},
	{"a name beside a function wins", `{"name":"f","function":{"name":"g"},"arguments":{}}`},
	{"FUNCTION", `{"Function":{"name":"f","arguments":{}}}`},
	{"an empty object", `{}`},
	{"null", `null`},
	{"a string", `"x"`},
	{"a number", `42`},
	{"true", `true`},
	{"an array of calls", `[{"name":"f","arguments":{}}, {"name":"g","parameters":{"a":[1]}}]`},
	{"an empty array", `[]`},
	{"an array holding null", `[null]`},
	{"an array holding a number", `[1]`},
	{"an array of arrays", `[[{"name":"f","arguments":{}}]]`},
	{"an array with a bad call after a good one", `[{"name":"f"},{"x":1}]`},
	{"objects one after another", `{"name":"f","arguments":{}}{"name":"g","arguments":{}}`},
	{"objects on lines", "{\"name\":\"f\",\"arguments\":{}}\n\n{\"name\":\"g\"}\n"},
	{"an array then an object", `[{"name":"f"}] {"name":"g"}`},
	{"a call then a scalar", `{"name":"f"} 1`},
	{"a call then null", `{"name":"f"} null`},
	{"scalars one after another", `1 2`},
	{"a literal run into a number", `true1`},
	{"a leading zero", `01`},
	{"a call then bad JSON", `{"name":"f"} {bad`},
	{"a call then a bad call", `{"name":"f"} {"x":1} {bad`},
	{"bad JSON", `{city: Paris}`},
	{"bad JSON after a key", `{"name" "f"}`},
	{"a trailing comma", `{"name":"f",}`},
	{"cut short in an object", `{"name":"f","arguments":{"city":"Pa`},
	{"cut short after a key", `{"name"`},
	{"cut short in a number", `{"name":"f","arguments":{"n":1.`},
	{"cut short after a minus", `[-`},
	{"cut short in an exponent", `[1e+`},
	{"cut short in a literal", `[tr`},
	{"cut short in an escape", `["a\`},
	{"cut short in a unicode escape", `["\u00`},
	{"a space in a number", `[- 1]`},
	{"a space after a decimal point", `[1. ]`},
	{"a space in a literal", `[tr ue]`},
	{"a space in an escape", `["\ "]`},
	{"a space in a unicode escape", `["\u00 1"]`},
	{"a raw newline in a string", "{\"name\":\"f\",\"arguments\":{\"s\":\"a\nb\"}}"},
	{"a control character in a string", "[\"a\x01\"]"},
	{"a NUL outside a string", "[1,\x00]"},
	{"a NUL at the end", "{\"name\":\"f\"}\x00"},
	{"a lone closer", `]`},
	{"a lone quote", `"`},
	{"a lone minus", `-`},
	{"a lone brace", `{`},
	{"a wrapping fence", "```json\n{\"name\":\"f\",\"arguments\":{}}\n```"},
	{"a wrapping tag", "<tool_call>\n{\"name\":\"f\"}\n</tool_call>"},
	{"deep nesting", strings.Repeat("[", 10001) + strings.Repeat("]", 10001)},
}

func TestReadBody_AsEncodingJSON(t *testing.T) {
	for _, tc := range callJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []Format{FormatFence, FormatTag, FormatFunction} {
				requireSameBody(t, f, tc.body)
			}
		})
	}
}

func TestCallShaped_AsEncodingJSON(t *testing.T) {
	for _, tc := range callJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			v := []byte(strings.TrimSpace(tc.body))
			require.Equal(t, refCallShaped(v), callShaped(v), "callShaped(%q)", v)
		})
	}
}

// TestReadBody_Errors pins the error texts the repair message quotes, json.Decoder's:
// a stream cut short is "unexpected EOF", a byte that cannot be JSON is named.
func TestReadBody_Errors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"cut short in a string", `{"name":"f","arguments":{"city":"Pa`, "the block is not valid JSON: unexpected EOF"},
		{"cut short in a number", `[1.`, "the block is not valid JSON: unexpected EOF"},
		{"cut short in a literal", `[nul`, "the block is not valid JSON: unexpected EOF"},
		{"a space in a number", `[- 1]`, "the block is not valid JSON: invalid character ' ' in numeric literal"},
		{"a key without quotes", `{city: 1}`, "the block is not valid JSON: invalid character 'c' looking for beginning of object key string"},
		{"garbage after a call", `{"name":"f"} x`, "the block is not valid JSON: invalid character 'x' looking for beginning of value"},
		{"an empty array", `[]`, ErrNotCall.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readBody(FormatFence, "", tc.body)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestWriteString_AsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and backslash \`, "<tool_call> & ```", "\x00\x01\x1f\t\n\r\b\f",
		"é 日本 🌦", "\u2028\u2029", "a\xffb\xc3", "\x7f",
	} {
		t.Run(s, func(t *testing.T) {
			enc, err := json.Marshal(s)
			require.NoError(t, err)
			var want, got bytes.Buffer
			neutralise(&want, enc)
			writeString(&got, s)
			require.Equal(t, want.String(), got.String())
		})
	}
}

// FuzzCallJSON holds readBody and callShaped to encoding/json's reading on any input.
func FuzzCallJSON(f *testing.F) {
	for _, tc := range callJSONCases {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 4096 {
			t.Skip("long inputs are slow in the reference (quadratic in depth) and find nothing new")
		}
		requireSameBody(t, FormatFence, body)
		v := []byte(strings.TrimSpace(body))
		require.Equal(t, refCallShaped(v), callShaped(v), "callShaped(%q)", v)
		var want, got bytes.Buffer
		enc, _ := json.Marshal(body)
		neutralise(&want, enc)
		writeString(&got, body)
		require.Equal(t, want.String(), got.String())
	})
}

// neutralise escapes exactly '<', '>', '&' and '`', wherever they stand, and copies the
// rest byte for byte.
func TestNeutralise(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", ``, ``},
		{"nothing to escape", `{"a":"é"}`, `{"a":"é"}`},
		{"each of the four", `"<>&` + "`" + `"`, `"\u003c\u003e\u0026\u0060"`},
		{"first and last bytes", `<a>`, `\u003ca\u003e`},
		{"runs between text", `"a<<b&&c"`, `"a\u003c\u003cb\u0026\u0026c"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			neutralise(&b, []byte(tc.in))
			require.Equal(t, tc.want, b.String())
		})
	}
}
