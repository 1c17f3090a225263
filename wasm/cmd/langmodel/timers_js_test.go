//go:build js && wasm

package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/clock"
)

// TestPageTimers: the engine's timers on the page's setTimeout (here Node's, through Go's
// wasm runner: make test-wasm-js's way, GOOS=js go test -run TestPageTimers) fire, stop,
// and leave nothing behind: no timer waits in pending once it fired or was stopped, so
// a timer per request leaks nothing.
func TestPageTimers(t *testing.T) {
	installTimers()
	t.Cleanup(func() { clock.Install(nil) })
	p := pages
	for _, tc := range []struct {
		name string
		play func(t *testing.T) []bool // what Stop reported
		said []bool
	}{
		{"a timer fires once, and leaves pending", func(t *testing.T) []bool {
			fired := make(chan struct{})
			clock.AfterFunc(clock.Millisecond, func() { close(fired) })
			wait(t, fired)
			return nil
		}, nil},
		{"a stopped timer does not fire, and leaves pending", func(t *testing.T) []bool {
			tm := clock.AfterFunc(clock.Minute, func() { t.Error("a stopped timer fired") })
			return []bool{tm.Stop()}
		}, []bool{true}},
		{"Stop after it fired says false", func(t *testing.T) []bool {
			fired := make(chan struct{})
			tm := clock.AfterFunc(0, func() { close(fired) })
			wait(t, fired)
			return []bool{tm.Stop()}
		}, []bool{false}},
		{"a silence reset a thousand times to later asks for one timer", func(t *testing.T) []bool {
			tm := clock.AfterFunc(clock.Minute, func() { t.Error("the silence fired") })
			for range 1000 {
				tm.Reset(clock.Minute)
			}
			p.mu.Lock()
			n := len(p.pending)
			p.mu.Unlock()
			require.Equal(t, 1, n, "timers waiting in the page")
			return []bool{tm.Stop()}
		}, []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.said, tc.play(t))
			time.Sleep(20 * time.Millisecond)
			p.mu.Lock()
			defer p.mu.Unlock()
			require.Empty(t, p.pending, "timers left waiting in the page")
		})
	}
}

// wait waits for fired; the bound is a guard against a hang, not a measurement.
func wait(t *testing.T, fired <-chan struct{}) {
	t.Helper()
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer did not fire")
	}
}
