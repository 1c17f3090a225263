package sse

import (
	"errors"
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
		err      string
	}{
		{name: "events end at a blank line, data lines are joined", in: "data: a\ndata: b\n\ndata: c\n\n", want: []string{"a\nb", "c"}},
		{name: "CRLF line ends, comments and other fields are skipped", in: ": ping\r\nevent: message\r\nid: 1\r\ndata: {}\r\n\r\n", want: []string{"{}"}},
		{name: "[DONE] ends the stream", in: "data: x\n\ndata: [DONE]\n\ndata: after\n\n", want: []string{"x"}, done: true},
		{name: "the last event needs no blank line", in: "data: tail", want: []string{"tail"}},
		{name: "an error from handle stops the reading", in: "data: stop\n\ndata: never\n\n", want: []string{"stop"}, err: "stop"},
		{name: "an event over the limit is an error", in: "data: " + strings.Repeat("x", 200<<10) + "\n\n", err: "token too long"},
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
			if row.err != "" {
				require.ErrorContains(t, err, row.err)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, row.want, got)
			require.Equal(t, row.done, done)
		})
	}
}
