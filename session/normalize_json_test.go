package session_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// slowNormalize is what NormalizeJSON must agree with: the decoded value, normalised.
func slowNormalize(raw []byte, o session.NormalizeOptions) ([]session.Message, error) {
	v, err := session.DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return session.Normalize(v, o)
}

func TestNormalizeJSON_AgreesWithNormalize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		raw   string
		prior bool
	}{
		{"a string", `"hi"`, false},
		{"a string with escapes", `"a\"b\\c\u00e9\ud83d\ude00\n"`, false},
		{"invalid UTF-8 becomes U+FFFD", "\"a\xffb\"", false},
		{"empty array", `[]`, false},
		{"empty array with spaces", " [ ] ", false},
		{"history", `[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a"}]`, false},
		{"spaces everywhere", " [ { \"role\" : \"user\" , \"content\" : \"u\" } , {\"content\":\"a\",\"role\":\"assistant\"} ] ", false},
		{"prefix last", `[{"role":"user","content":"u"},{"role":"assistant","content":"a:","prefix":true}]`, false},
		{"prefix false and null", `[{"role":"user","content":"u","prefix":false},{"role":"assistant","content":"a","prefix":null}]`, false},
		{"escaped key", `[{"rol\u0065":"user","content":"u"}]`, false},
		{"empty content", `[{"role":"user","content":""}]`, false},
		// The fast path steps aside for each of these; the slow path answers.
		{"system after a prior message", `[{"role":"system","content":"s"}]`, true},
		{"system second", `[{"role":"user","content":"u"},{"role":"system","content":"s"}]`, false},
		{"prefix not last", `[{"role":"assistant","content":"a","prefix":true},{"role":"user","content":"u"}]`, false},
		{"prefix on a user message", `[{"role":"user","content":"u","prefix":true}]`, false},
		{"prefix not a boolean", `[{"role":"assistant","content":"a","prefix":1}]`, false},
		{"unknown role", `[{"role":"robot","content":"x"}]`, false},
		{"tool role with a string", `[{"role":"tool-call","content":"x"}]`, false},
		{"tool-response role with a string", `[{"role":"tool-response","content":"x"}]`, false},
		{"no role", `[{"content":"x"}]`, false},
		{"no content", `[{"role":"user"}]`, false},
		{"empty object", `[{}]`, false},
		{"a key twice", `[{"role":"user","content":"a","content":"b"}]`, false},
		{"an extra key", `[{"role":"user","content":"a","name":"x"}]`, false},
		{"content parts", `[{"role":"user","content":[{"type":"text","value":"a"},{"type":"text","value":"b"}]}]`, false},
		{"content a number", `[{"role":"user","content":5}]`, false},
		{"not an object", `[5]`, false},
		{"a number", `5`, false},
		{"an object", `{"role":"user"}`, false},
		{"trailing comma", `[{"role":"user","content":"u"},]`, false},
		{"cut short", `[{"role":"user","content":"u"}`, false},
		{"trailing data", `"hi" x`, false},
		{"bad escape", `[{"role":"user","content":"\q"}]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := session.NormalizeOptions{HasPrior: tc.prior, Expected: session.AllInputs}
			want, wantErr := slowNormalize([]byte(tc.raw), o)
			got, err := session.NormalizeJSON([]byte(tc.raw), o)
			if wantErr != nil {
				require.EqualError(t, err, wantErr.Error())
				require.Equal(t, session.KindOf(wantErr), session.KindOf(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// A history's texts are substrings of one copy of the input: the page's buffer may be
// reused at once.
func TestNormalizeJSON_KeepsNoReferenceToItsInput(t *testing.T) {
	raw := []byte(`[{"role":"user","content":"hello"}]`)
	msgs, err := session.NormalizeJSON(raw, session.NormalizeOptions{})
	require.NoError(t, err)
	copy(raw, strings.Repeat("x", len(raw)))
	require.Equal(t, "hello", msgs[0].Text())
}

func TestIsEmptyArray(t *testing.T) {
	for raw, want := range map[string]bool{`[]`: true, ` [ ] `: true, `[1]`: false, `""`: false, `[`: false, `[] x`: false, ``: false} {
		require.Equal(t, want, session.IsEmptyArray([]byte(raw)), raw)
	}
}

// FuzzNormalizeJSON: NormalizeJSON and the decoded value's Normalize agree on every input,
// messages and errors alike; and so does NormalizeMessageJSON, which reads one message of
// a packed history (its tool calls and results straight from the JSON), with the message
// first or after another, last or followed by another, and tool calls and responses
// declared or not.
func FuzzNormalizeJSON(f *testing.F) {
	for _, seed := range []string{
		`"hi"`, `[]`, `[{"role":"user","content":"u"}]`,
		`[{"role":"system","content":"s"},{"role":"assistant","content":"a:","prefix":true}]`,
		`[{"role":"user","content":[{"type":"text","value":"x"}]}]`,
		` [ {"content":"a\u00e9","role":"assistant","prefix":null} ] `,
		`{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"f","arguments":{"a":[1,{"b":null}],"z":"\u00e9<"}}}]}`,
		`{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"text","value":"ok"},{"type":"object","value":{"n":-1.5e3}}],"untrusted":true}}]}`,
		`{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"f","arguments":{"a":1,"b":[true,null,"x"]}}}]}`,
		`{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"f","errorMessage":"e"}}]}`,
		`{"role":"tool-response","content":[{"type":"tool-response","value":{"callId":"c1","name":"f","errorMessage":"no"}}]}`,
		`{"role":"assistant","content":[{"value":{"name":"f","callID":"c","arguments":null},"type":"tool-call"}]}`,
		`{"role":"user","content":[{"type":"tool-result","value":{"callID":"c","name":"f","result":"x","result":"y"}}]}`,
		`{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c","name":"f","result":[{"type":"object","value":{"base64":"AA","type":"bytes"}}]}}]}`,
	} {
		f.Add([]byte(seed), byte(0))
	}
	f.Fuzz(func(t *testing.T, raw []byte, flags byte) {
		prior := flags&1 != 0
		o := session.NormalizeOptions{HasPrior: prior, Expected: session.AllInputs}
		want, wantErr := slowNormalize(raw, o)
		got, err := session.NormalizeJSON(raw, o)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
		} else {
			require.NoError(t, err)
			require.Equal(t, want, got)
		}

		// raw as message i of a prompt, as a packed history gives it.
		i, last := int(flags>>1&1), flags&4 == 0
		o.Expected.ToolCall, o.Expected.ToolResponse = flags&8 == 0, flags&16 == 0
		array := "[" + string(raw)
		if i == 1 {
			array = `[{"role":"user","content":"before"},` + string(raw)
		}
		if !last {
			array += `,{"role":"user","content":"after"}`
		}
		got, err = session.NormalizeMessageJSON(raw, string(raw), i, last, &o)
		if _, decodeErr := session.DecodeJSON(raw); decodeErr != nil {
			require.EqualError(t, err, decodeErr.Error()) // malformed JSON is named as it stands alone
			return
		}
		want, wantErr = slowNormalize([]byte(array+"]"), o)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, want[i:len(want)-1+map[bool]int{true: 1, false: 0}[last]], got)
	})
}
