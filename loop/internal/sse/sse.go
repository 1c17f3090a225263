// Package sse reads server-sent events (the HTML standard's text/event-stream), for the
// engine's network clients: the openai backend's streamed completions and the MCP
// client's Streamable HTTP responses (loop/mcp).
package sse

import (
	"bufio"
	"bytes"
	"io"
)

// Read parses server-sent events from r and calls handle with each event's data (its
// data: lines joined by newlines). It returns done when the stream ended with
// "data: [DONE]" (the OpenAI API's end), and the first error handle returns, which stops
// the reading. Comments, event:, id: and retry: lines are skipped.
//
// max bounds each event: its data (the lines and the newlines that join them) and every
// line of the stream, a comment's too. An event or a line over it is ErrTooLarge, found
// as the line that crosses the limit arrives, so a hostile server cannot make the reader
// hold more than about two limits (the line being read and the event so far) whatever it
// sends, nor make it read much past the limit before it stops.
func Read(r io.Reader, max int, handle func([]byte) error) (done bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, max)), max)
	var data bytes.Buffer
	dispatch := func() error {
		if data.Len() == 0 {
			return nil
		}
		d := data.Bytes()
		defer data.Reset()
		if bytes.Equal(bytes.TrimSpace(d), []byte("[DONE]")) {
			done = true
			return nil
		}
		return handle(d)
	}
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		switch {
		case len(line) == 0:
			if err := dispatch(); err != nil {
				return false, err
			}
		case line[0] == ':': // a comment (keep-alive)
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte(" "))
			if data.Len() > 0 {
				if data.Len()+1+len(v) > max {
					return false, ErrTooLarge
				}
				data.WriteByte('\n')
			}
			data.Write(v)
		default: // event:, id:, retry: carry nothing the clients use
		}
		if done {
			return true, nil
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			err = ErrTooLarge
		}
		return false, err
	}
	if err := dispatch(); err != nil {
		return false, err
	}
	return done, nil
}
