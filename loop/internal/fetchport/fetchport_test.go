package fetchport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// ReadAll returns what io.ReadAll returns: the bytes read and the first error but EOF.
func TestReadAll_AsIOReadAll(t *testing.T) {
	long := strings.Repeat("0123456789", 300) // past the first 512 bytes' growth
	failed := errors.New("the connection was reset")
	for _, tc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"empty", func() io.Reader { return strings.NewReader("") }},
		{"short", func() io.Reader { return strings.NewReader("short") }},
		{"longer than its first buffer", func() io.Reader { return strings.NewReader(long) }},
		{"a byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(long)) }},
		{"EOF with the last bytes", func() io.Reader { return iotest.DataErrReader(strings.NewReader(long)) }},
		{"an error midway", func() io.Reader {
			return io.MultiReader(strings.NewReader(long), iotest.ErrReader(failed))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := io.ReadAll(tc.r())
			got, err := ReadAll(tc.r())
			require.Equal(t, string(want), string(got))
			require.Equal(t, wantErr, err)
		})
	}
}
