package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	stop := errors.New("stop")
	rows := []struct {
		name, in string
		want     []string
		done     bool
		err      error
	}{
		{name: "events end at a blank line, data lines are joined", in: "data: a\ndata: b\n\ndata: c\n\n", want: []string{"a\nb", "c"}},
		{name: "CRLF line ends, comments and other fields are skipped", in: ": ping\r\nevent: message\r\nid: 1\r\ndata: {}\r\n\r\n", want: []string{"{}"}},
		{name: "[DONE] ends the stream", in: "data: x\n\ndata: [DONE]\n\ndata: after\n\n", want: []string{"x"}, done: true},
		{name: "the last event needs no blank line", in: "data: tail", want: []string{"tail"}},
		{name: "an error from handle stops the reading", in: "data: stop\n\ndata: never\n\n", want: []string{"stop"}, err: stop},
		{name: "a line over the limit is an error", in: "data: " + strings.Repeat("x", 200<<10) + "\n\n", err: ErrTooLarge},
		{name: "a comment over the limit is an error", in: ": " + strings.Repeat("x", 200<<10) + "\n\ndata: after\n\n", err: ErrTooLarge},
		{name: "an event of data lines each under the limit, together over it, is an error",
			in: strings.Repeat("data: "+strings.Repeat("x", 40<<10)+"\n", 3) + "\n", err: ErrTooLarge},
		{name: "the events before the one over the limit are delivered",
			in: "data: a\n\n" + strings.Repeat("data: "+strings.Repeat("x", 40<<10)+"\n", 3), want: []string{"a"}, err: ErrTooLarge},
		{name: "an event of exactly the limit, newlines joining its lines counted, is delivered",
			in:   "data: " + strings.Repeat("x", 50<<10) + "\ndata: " + strings.Repeat("y", 50<<10-1) + "\n\n",
			want: []string{strings.Repeat("x", 50<<10) + "\n" + strings.Repeat("y", 50<<10-1)}},
		{name: "one byte more is an error",
			in: "data: " + strings.Repeat("x", 50<<10) + "\ndata: " + strings.Repeat("y", 50<<10) + "\n\n", err: ErrTooLarge},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var got []string
			done, err := Read(strings.NewReader(row.in), 100<<10, func(d []byte) error {
				got = append(got, string(d))
				if string(d) == "stop" {
					return stop
				}
				return nil
			})
			require.ErrorIs(t, err, row.err)
			if row.err == nil {
				require.NoError(t, err)
			}
			require.Equal(t, row.want, got)
			require.Equal(t, row.done, done)
		})
	}
}

// counting is a stream of n lines, each of size bytes, made as they are read; read is how
// many bytes the reader took.
type counting struct {
	line []byte
	n    int
	off  int
	read int
}

func (c *counting) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, c.line[c.off:])
	c.off += k
	if c.off == len(c.line) {
		c.off, c.n = 0, c.n-1
	}
	c.read += k
	return k, nil
}

// The reader holds no more than about two limits of one event, and stops reading soon
// after the limit: an event of 16 data lines of 1 MB each, under a 4 MB limit, is an
// error after at most the limit and two lines more were read, never delivered.
func TestRead_StopsSoonAfterTheLimit(t *testing.T) {
	const limit = 4 << 20
	for _, row := range []struct {
		name string
		line string
		n    int
	}{
		{name: "1 MB data lines", line: "data: " + strings.Repeat("x", 1<<20) + "\n", n: 16},
		{name: "64 KB data lines", line: "data: " + strings.Repeat("x", 64<<10) + "\n", n: 256},
		{name: "one 16 MB data line", line: "data: " + strings.Repeat("x", 16<<20) + "\n", n: 1},
	} {
		t.Run(row.name, func(t *testing.T) {
			body := &counting{line: []byte(row.line), n: row.n}
			delivered := 0
			_, err := Read(body, limit, func(d []byte) error { delivered += len(d); return nil })
			require.ErrorIs(t, err, ErrTooLarge)
			require.Zero(t, delivered)
			require.LessOrEqual(t, body.read, limit+2*(1<<20)+64, "bytes read before the error")
		})
	}
}
