package wasm

import (
	"io"
	"sync"
)

// stream carries what the page sends for a streaming call (a fetch's body, a generate's
// pieces) from the handler, which must never block, to the goroutine reading it. It is
// unbounded: the page sends as fast as its source produces, and the reader (the SSE
// parser, the loop) keeps up or buffers; a response body is bounded by the server.
type stream struct {
	mu    sync.Mutex
	items [][]byte
	ended bool
	err   error         // why it ended; nil for a clean end
	wake  chan struct{} // one token: something was pushed or it ended
}

func newStream() *stream { return &stream{wake: make(chan struct{}, 1)} }

// push appends one item; after end it is dropped.
func (s *stream) push(b []byte) {
	s.mu.Lock()
	if !s.ended {
		s.items = append(s.items, b)
	}
	s.mu.Unlock()
	s.signal()
}

// end marks the end, clean (err nil) or not; only the first end counts.
func (s *stream) end(err error) {
	s.mu.Lock()
	if !s.ended {
		s.ended, s.err = true, err
	}
	s.mu.Unlock()
	s.signal()
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next waits for items and returns all there are, in order. Once the stream has ended
// and every item has been taken, it returns io.EOF or the error it ended with.
func (s *stream) next() ([][]byte, error) {
	for {
		s.mu.Lock()
		items, ended, err := s.items, s.ended, s.err
		s.items = nil
		s.mu.Unlock()
		switch {
		case len(items) > 0:
			return items, nil
		case ended && err != nil:
			return nil, err
		case ended:
			return nil, io.EOF
		}
		<-s.wake
	}
}
