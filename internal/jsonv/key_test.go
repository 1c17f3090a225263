package jsonv_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

func TestKey_Is(t *testing.T) {
	tests := []struct {
		key, name string
		want      bool
	}{
		{"choices", "choices", true},
		{"CHOICES", "choices", true},
		{"Choices", "choices", true},
		{"choice", "choices", false},
		{"choices ", "choices", false},
		{"mimetype", "mimeType", true},
		{"MIMETYPE", "mimeType", true},
		{"prompt_to\u212aens", "prompt_tokens", true}, // the Kelvin sign folds to k
		{"choice\u017f", "choices", true},             // the long s folds to s
		{"fın", "fin", false},                         // the dotless i does not fold to i
		{"tool_calls", "tool\x7fcalls", false},
		{"[", "{", false},
		{"", "", true},
		{"\xff", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.key+"/"+tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, jsonv.MakeKey([]byte(tc.key)).Is(tc.name))
		})
	}
}

// FuzzKey_Is: Key.Is is encoding/json's rule (exact, else bytes.EqualFold)
// for ASCII names.
func FuzzKey_Is(f *testing.F) {
	f.Add([]byte("Choices"), "choices")
	f.Add([]byte("prompt_to\u212aens"), "prompt_tokens")
	f.Fuzz(func(t *testing.T, key []byte, name string) {
		for i := 0; i < len(name); i++ {
			if name[i] >= 0x80 {
				t.Skip("names are ASCII")
			}
		}
		require.Equal(t, string(key) == name || bytes.EqualFold(key, []byte(name)), jsonv.MakeKey(key).Is(name))
	})
}
