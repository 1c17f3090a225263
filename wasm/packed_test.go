package wasm

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// packed is one message as js/pack.js packs it: its role letter and text.
type packed struct {
	letter byte
	text   string
}

// pack packs msgs as js/pack.js does and returns the text and its length in UTF-16
// code units.
func pack(msgs ...packed) (string, int) {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteByte(m.letter)
		b.WriteString(strconv.Itoa(len(utf16.Encode([]rune(m.text)))))
		b.WriteByte(':')
		b.WriteString(m.text)
	}
	return b.String(), len(utf16.Encode([]rune(b.String())))
}

func TestUnpackText(t *testing.T) {
	text := func(role session.Role, s string) session.Message { return session.TextMessage(role, s) }
	prefix := func(s string) session.Message {
		m := session.TextMessage(session.RoleAssistant, s)
		m.Prefix = true
		return m
	}
	for _, tc := range []struct {
		name string
		msgs []packed
		want []session.Message
	}{
		{"ascii", []packed{{'s', "be brief"}, {'u', "hi"}, {'a', "hello"}}, []session.Message{text(session.RoleSystem, "be brief"), text(session.RoleUser, "hi"), text(session.RoleAssistant, "hello")}},
		{"empty text", []packed{{'u', ""}, {'a', ""}}, []session.Message{text(session.RoleUser, ""), text(session.RoleAssistant, "")}},
		{"digits and colons in the text", []packed{{'u', "12:30"}, {'a', ":9"}}, []session.Message{text(session.RoleUser, "12:30"), text(session.RoleAssistant, ":9")}},
		{"two-byte and three-byte runes", []packed{{'u', "é"}, {'a', "日本"}}, []session.Message{text(session.RoleUser, "é"), text(session.RoleAssistant, "日本")}},
		{"a rune beyond the BMP is two code units", []packed{{'u', "a😀b"}, {'a', "😀"}}, []session.Message{text(session.RoleUser, "a😀b"), text(session.RoleAssistant, "😀")}},
		{"a lone surrogate arrives as U+FFFD", []packed{{'u', "x\uFFFDy"}}, []session.Message{text(session.RoleUser, "x\uFFFDy")}},
		{"a prefix last", []packed{{'u', "go"}, {'p', "Sure"}}, []session.Message{text(session.RoleUser, "go"), prefix("Sure")}},
		{"a long history", func() []packed {
			out := make([]packed, 1000)
			for i := range out {
				out[i] = packed{"ua"[i%2], "message " + strconv.Itoa(i)}
			}
			return out
		}(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, units := pack(tc.msgs...)
			got, err := unpackText([]byte(b), len(tc.msgs), units)
			require.NoError(t, err)
			if tc.want == nil {
				for _, m := range tc.msgs {
					role := map[byte]session.Role{'u': session.RoleUser, 'a': session.RoleAssistant}[m.letter]
					tc.want = append(tc.want, text(role, m.text))
				}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestUnpackText_Refuses(t *testing.T) {
	ok, units := pack(packed{'u', "hi"}, packed{'a', "hello"})
	for _, tc := range []struct {
		name, b     string
		count, unit int
		want        string
	}{
		{"count too high", ok, 3, units, "cut short"},
		{"count too low", ok, 1, units, "holds more"},
		{"count zero", ok, 0, units, "does not match"},
		{"count beyond the bytes", ok, 100, units, "does not match"},
		{"cut short in a text", ok[:len(ok)-2], 2, units - 2, "cut short"},
		{"no role", "x2:hi", 1, 5, "no role"},
		{"no length", "u:hi", 1, 4, "no length"},
		{"no colon", "u2hi", 1, 4, "no length"},
		{"a length too long to read", "u12345678901:x", 1, 14, "no length"},
		{"a system message second", "u1:as1:b", 2, 8, "not the first"},
		{"a prefix not last", "p1:au1:b", 2, 8, "not the last"},
		{"a length past the end", "u9:hi", 1, 5, "cut short"},
		{"half a surrogate pair", "u1:😀", 1, 5, "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unpackText([]byte(tc.b), tc.count, tc.unit)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// FuzzUnpackText holds the packed form to the JSON one: a history packed as js/pack.js
// packs it reads as the same messages as its JSON through session.NormalizeJSON.
func FuzzUnpackText(f *testing.F) {
	f.Add("be brief|hi|hello 😀|x\x00y|é日本", true, false)
	f.Add("|||", false, true)
	f.Add("a\"b\\c\nd", true, true)
	f.Fuzz(func(t *testing.T, joined string, system, prefix bool) {
		texts := strings.Split(strings.ToValidUTF8(joined, "\uFFFD"), "|")
		var msgs []packed
		var js []map[string]any
		for i, s := range texts {
			m := packed{"ua"[i%2], s}
			role := []string{"user", "assistant"}[i%2]
			j := map[string]any{"role": role, "content": s}
			switch {
			case i == 0 && system:
				m.letter, j["role"] = 's', "system"
			case i == len(texts)-1 && prefix && m.letter == 'a':
				m.letter, j["prefix"] = 'p', true
			}
			msgs, js = append(msgs, m), append(js, j)
		}
		b, units := pack(msgs...)
		got, err := unpackText([]byte(b), len(msgs), units)
		require.NoError(t, err)
		raw, err := json.Marshal(js)
		require.NoError(t, err)
		want, err := session.NormalizeJSON(raw, session.NormalizeOptions{})
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

// packJSON packs a history given as the JSON text of each message as js/pack.js packText
// does: a text message that keeps the rules by its letter, any other as JSON ("j").
func packJSON(t testing.TB, msgs ...string) (string, int) {
	out := make([]packed, len(msgs))
	for i, raw := range msgs {
		out[i] = packed{'j', raw}
		var m map[string]any
		if json.Unmarshal([]byte(raw), &m) != nil { // keys beyond the three are the engine's to ignore
			continue
		}
		text, ok := m["content"].(string)
		prefix, hasPrefix := m["prefix"]
		if !ok || (hasPrefix && prefix != nil && prefix != false && prefix != true) {
			continue
		}
		switch m["role"] {
		case "system":
			if i == 0 && prefix != true {
				out[i] = packed{'s', text}
			}
		case "user":
			if prefix != true {
				out[i] = packed{'u', text}
			}
		case "assistant":
			switch {
			case prefix != true:
				out[i] = packed{'a', text}
			case i == len(msgs)-1:
				out[i] = packed{'p', text}
			}
		}
	}
	return pack(out...)
}

// readPacked reads what unpackText gave as the session does, with o.
func readPacked(v any, o session.NormalizeOptions) ([]session.Message, error) {
	if msgs, ok := v.([]session.Message); ok {
		return msgs, nil
	}
	return session.Normalize(v, o)
}

// A history with messages packed as JSON among its texts reads as the same history sent
// as one JSON array gives: the same messages, or the same error, naming the same
// message, with the session's options (an undeclared tool call refused, a declared one
// taken).
func TestUnpackText_JSONMessages(t *testing.T) {
	const (
		call     = `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{"q":"é😀"}}}]}`
		result   = `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"text","value":"ok"}]}}]}`
		failed   = `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","errorMessage":"no"}}]}`
		chrome   = `{"role":"assistant","content":[{"type":"text","value":"let me look"},{"type":"tool-call","value":{"callId":"c1","name":"f"}}]}`
		response = `{"role":"user","content":[{"type":"tool-response","value":{"callID":"c1","name":"f","result":"ok"}},{"type":"text","value":"and?"}]}`
		user     = `{"role":"user","content":"hi"}`
		answer   = `{"role":"assistant","content":"hello"}`
	)
	all := session.NormalizeOptions{Expected: session.AllInputs}
	for _, tc := range []struct {
		name string
		msgs []string
		o    session.NormalizeOptions
		err  string // what the error says, for both ways
	}{
		{"a call and its result among texts", []string{`{"role":"system","content":"be brief"}`, user, call, result, answer}, all, ""},
		{"a call answered with an error", []string{user, call, failed}, all, ""},
		{"only JSON messages", []string{call, result}, all, ""},
		{"Chrome's form: text and a call in one message, a response and text in another", []string{user, chrome, response, answer}, all, ""},
		{"JSON messages in place, then one that reads as two", []string{call, result, user, chrome, response, answer}, all, ""},
		{"the tool-response role and part", []string{call, `{"role":"tool-response","content":[{"type":"tool-response","value":{"callID":"c1","name":"f","result":[{"type":"object","value":{"a":1}}]}}]}`}, all, ""},
		{"one content object", []string{`{"role":"user","content":{"type":"text","value":"x"}}`, answer}, all, ""},
		{"text parts that collapse", []string{`{"role":"user","content":[{"type":"text","value":"a"},{"type":"text","value":"b"}]}`}, all, ""},
		{"an image", []string{`{"role":"user","content":[{"type":"image","value":{"type":"bytes","base64":"AAAA"}}]}`}, all, ""},
		{"empty content", []string{`{"role":"user","content":[]}`, `{"role":"assistant","content":""}`}, all, ""},
		{"a text message with a key beyond the three", []string{`{"role":"user","content":"hi","id":7}`}, all, ""},
		{"a prefix last, after a call", []string{call, result, `{"role":"assistant","content":"Sure","prefix":true}`}, all, ""},
		{"a prefix false", []string{`{"role":"assistant","content":"x","prefix":false}`}, all, ""},

		{"a system message not first", []string{user, `{"role":"system","content":"late"}`}, all, "message 1"},
		{"a prefix not last", []string{`{"role":"assistant","content":"x","prefix":true}`, user}, all, "message 0 is followed by others"},
		{"a prefix on a user message", []string{`{"role":"user","content":"x","prefix":true}`}, all, "message 0 has role"},
		{"a prefix that is not a boolean", []string{user, `{"role":"assistant","content":"x","prefix":"yes"}`}, all, "message 1: prefix must be a boolean"},
		{"a message that is not an object", []string{user, `5`}, all, "message 1 is not an object"},
		{"null", []string{`null`}, all, "message 0 is not an object"},
		{"an unknown role", []string{user, answer, `{"role":"tool","content":"x"}`}, all, `message 2: "tool"`},
		{"a call without an id", []string{user, `{"role":"tool-call","content":[{"type":"tool-call","value":{"name":"f"}}]}`}, all, "message 1 part 0: callID is missing"},
		{"a call not declared in expectedInputs", []string{user, call}, session.NormalizeOptions{}, `message 1 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
		{"a response not declared", []string{response}, session.NormalizeOptions{Expected: session.Expected{ToolCall: true}}, "message 0 part 0: tool-response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, units := packJSON(t, tc.msgs...)
			v, err := unpackText([]byte(b), len(tc.msgs), units)
			require.NoError(t, err)
			got, gotErr := readPacked(v, tc.o)
			want, wantErr := session.NormalizeJSON([]byte("["+strings.Join(tc.msgs, ",")+"]"), tc.o)
			if tc.err != "" {
				require.Error(t, wantErr)
				require.ErrorContains(t, wantErr, tc.err)
				require.Equal(t, wantErr, gotErr)
				return
			}
			require.NoError(t, wantErr)
			require.NoError(t, gotErr)
			require.Equal(t, want, got)
		})
	}
}

// A packed JSON message that is cut short or is no JSON is refused: the engine names it
// as it names malformed JSON.
func TestUnpackText_RefusesJSON(t *testing.T) {
	for _, tc := range []struct {
		name, b     string
		count, unit int
		want        string
	}{
		{"JSON that is not", "j6:{role:u1:x", 2, 13, "malformed message"},
		{"JSON with more after it", `j3:{}xu1:x`, 2, 10, "trailing data"},
		{"JSON cut short", `u1:xj9:{}`, 2, 9, "cut short"},
		{"text cut short after JSON", `j2:{}u5:ab`, 2, 10, "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := unpackText([]byte(tc.b), tc.count, tc.unit)
			if err == nil {
				_, err = readPacked(v, session.NormalizeOptions{Expected: session.AllInputs})
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
