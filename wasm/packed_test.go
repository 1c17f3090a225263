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
