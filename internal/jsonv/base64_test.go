package jsonv_test

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

func TestDecodeBase64(t *testing.T) {
	for _, tc := range []struct {
		name, b64 string
		want      string
		ok        bool
	}{
		{"empty", "", "", true},
		{"whole groups", "QUJDREVG", "ABCDEF", true},
		{"one byte, padded", "/w==", "\xff", true},
		{"two bytes, padded", "/9g=", "\xff\xd8", true},
		{"line breaks anywhere", "QU\r\nJD\nRA=\r\n=\n", "ABCD", true},
		{"a last group cut short: the whole groups before it", "QUJDRA", "ABC", false},
		{"a lone = after two characters", "QUJD/w=A", "ABC", false},
		{"= after one character", "QUJDQ===", "ABC", false},
		{"= at a group's start", "QUJD=QUJD", "ABC", false},
		{"data after the padding: the padded group counts", "/w==QUJD", "\xff", false},
		{"a character outside the alphabet", "QUJDR*hA", "ABC", false},
		{"the URL alphabet is not the standard one", "-_-_", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := jsonv.DecodeBase64(nil, tc.b64)
			require.Equal(t, tc.want, string(got))
			require.Equal(t, tc.ok, ok)
			want, err := base64.StdEncoding.DecodeString(tc.b64)
			require.Equal(t, string(want), string(got), "as package base64 decodes it")
			require.Equal(t, err == nil, ok, "as package base64 decodes it")
		})
	}
}

func TestDecodeBase64_AppendsToDst(t *testing.T) {
	got, ok := jsonv.DecodeBase64([]byte("x:"), "QUJD")
	require.True(t, ok)
	require.Equal(t, "x:ABC", string(got))
}

// FuzzDecodeBase64: on any text, DecodeBase64 gives what base64.StdEncoding.DecodeString
// gives, and fails exactly when it does.
func FuzzDecodeBase64(f *testing.F) {
	for _, s := range []string{"", "QUJD", "/w==", "/9g=", "QU\r\nJD", "/w=A", "Q===", "QUJDRA", "/w==x", "-_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := jsonv.DecodeBase64(nil, s)
		want, err := base64.StdEncoding.DecodeString(s)
		require.Equal(t, string(want), string(got), "%q", s)
		require.Equal(t, err == nil, ok, "%q", s)
	})
}
