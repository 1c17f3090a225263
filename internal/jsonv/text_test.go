package jsonv_test

import (
	"encoding/json"
	"testing"

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
