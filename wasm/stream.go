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
	// After leave: the bytes dropped so far, how many may be, and what runs (once) past that.
	dropped, tail int
	over          func()
}

func newStream() *stream { return &stream{wake: make(chan struct{}, 1)} }

// push appends one item; after end it is dropped.
func (s *stream) push(b []byte) {
	s.mu.Lock()
	var over func()
	if !s.ended {
		s.items = append(s.items, b)
	} else {
		s.dropped += len(b)
		over = s.spilled()
	}
	s.mu.Unlock()
	s.signal()
	if over != nil {
		over()
	}
}

// leave ends the stream for a reader that stops before its end, with extra bytes it held
// and did not read: what the stream holds is dropped too, and once more than tail bytes
// have been dropped (held now or pushed later), over runs, once.
func (s *stream) leave(err error, extra, tail int, over func()) {
	s.mu.Lock()
	if !s.ended {
		s.ended, s.err = true, err
	}
	s.dropped = extra
	for _, b := range s.items {
		s.dropped += len(b)
	}
	s.items, s.tail, s.over = nil, tail, over
	over = s.spilled()
	s.mu.Unlock()
	s.signal()
	if over != nil {
		over()
	}
}

// spilled is over, taken, once more than tail bytes were dropped after leave; s.mu held.
func (s *stream) spilled() func() {
	f := s.over
	if f == nil || s.dropped <= s.tail {
		return nil
	}
	s.over = nil
	return f
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
