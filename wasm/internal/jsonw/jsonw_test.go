package jsonw

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestString: what String writes decodes to the same string, for the awkward cases.
func TestString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "\n\r\t\b\f\x00\x1f", "é ü 日本 🎉", "\u2028\u2029", "<>&", "bad \xff utf8"} {
		var w Writer
		w.String(s)
		b, err := w.BuildBytes()
		require.NoError(t, err)
		var got string
		require.NoError(t, json.Unmarshal(b, &got), "%q → %s", s, b)
		want, _ := json.Marshal(s) // encoding/json replaces invalid UTF-8 the same way
		var wantS string
		require.NoError(t, json.Unmarshal(want, &wantS))
		require.Equal(t, wantS, got)
	}
}

func TestRaw(t *testing.T) {
	var w Writer
	w.RawByte('[')
	w.Raw(nil, nil)
	w.RawByte(',')
	w.Raw([]byte(`{"a":1}`), nil)
	w.RawByte(',')
	w.Int(-3)
	w.RawByte(',')
	w.Int64(1 << 40)
	w.RawByte(',')
	w.Bool(true)
	w.RawByte(']')
	b, err := w.BuildBytes()
	require.NoError(t, err)
	require.Equal(t, `[null,{"a":1},-3,1099511627776,true]`, string(b))

	w.Raw(nil, json.Unmarshal([]byte("x"), new(any)))
	_, err = w.BuildBytes()
	require.Error(t, err)
}
