package jsonv_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

func TestUnescape(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"plain", `abc`, "abc"},
		{"one-letter escapes", `\" \\ \/ \b \f \n \r \t`, "\" \\ / \b \f \n \r \t"},
		{"a BMP escape", `caf\u00e9 \u00E9`, "café é"},
		{"a surrogate pair", `\ud83d\ude00`, "😀"},
		{"a lone high surrogate", `\ud83dx`, "\ufffdx"},
		{"a lone low surrogate", `\ude00`, "\ufffd"},
		{"a high surrogate, then another escape", `\ud83d\u0041`, "\ufffdA"},
		{"two high surrogates, then a low one", `\ud83d\ud83d\ude00`, "\ufffd😀"},
		{"a high surrogate at the end", `ab\ud83d`, "ab\ufffd"},
		{"raw UTF-8", "é😀", "é😀"},
		{"invalid UTF-8, byte by byte", "a\xff\xfeb\xe2\x82", "a\ufffd\ufffdb\ufffd\ufffd"},
		{"invalid UTF-8 beside an escape", "\xff\\n", "\ufffd\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, string(jsonv.Unescape(nil, []byte(tc.text))))
			var want string
			require.NoError(t, json.Unmarshal([]byte(`"`+tc.text+`"`), &want))
			require.Equal(t, want, tc.want, "encoding/json agrees")
		})
	}
}

// FuzzUnescape: StringEnd accepts a string exactly when encoding/json does, and
// Unescape (where StringEnd says it is needed) gives encoding/json's value.
func FuzzUnescape(f *testing.F) {
	f.Add([]byte(`a\u00e9\ud83d\ude00\n`))
	f.Add([]byte("\xff\\ud800\\u0041"))
	f.Fuzz(func(t *testing.T, text []byte) {
		quoted := append(append([]byte{'"'}, text...), '"')
		end, plain, _, ok := jsonv.StringEnd(quoted, 0)
		var want string
		err := json.Unmarshal(quoted, &want)
		if !ok || end != len(quoted) {
			require.Error(t, err, "encoding/json read %q", quoted)
			return
		}
		require.NoError(t, err)
		got := quoted[1 : end-1]
		if !plain {
			got = jsonv.Unescape(nil, got)
		}
		require.Equal(t, want, string(got))
	})
}

// stringEndByBytes is StringEnd as it was before it read eight bytes at a time: the
// reference the faster loop must agree with.
func stringEndByBytes(data []byte, i int) (end int, plain, ascii, ok bool) {
	start := i + 1
	escaped, high := false, false
	for i = start; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, !escaped && (!high || utf8.Valid(data[start:i])), !high, true
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return i + 1, false, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, err := strconv.ParseUint(string(data[i+2:min(i+6, len(data))]), 16, 16); err != nil || i+6 > len(data) {
					return i + 2, false, false, false
				}
				i += 5
			default:
				return i + 1, false, false, false
			}
		case c < 0x20:
			return i, false, false, false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return i, false, false, false
}

// TestStringEnd_EveryPosition puts each kind of byte the word-at-a-time loop must stop at
// (or note) at every position of strings up to 40 bytes, and compares with the
// byte-at-a-time reference.
func TestStringEnd_EveryPosition(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for at := 0; at < n; at++ {
			for _, special := range []string{`"`, `\\`, `\n`, `\u00e9`, "\x01", "\x1f", "é", "\xff", "\x7f", " ", "~"} {
				text := []byte(strings.Repeat("a", at) + special + strings.Repeat("b", n))[:max(n, at+len(special))]
				data := append(append([]byte{'"'}, text...), '"')
				e1, p1, a1, ok1 := jsonv.StringEnd(data, 0)
				e2, p2, a2, ok2 := stringEndByBytes(data, 0)
				require.Equal(t, []any{e2, p2, a2, ok2}, []any{e1, p1, a1, ok1}, "%q", data)
			}
		}
	}
}
