// Package clock is the module's time: a monotonic clock, the wall clock in seconds, and
// one-shot timers, without package time. Package time imports internal/godebug, which
// links bisect, sync.Map and runtime metrics into the module and runs their
// initialisation at every start: about 31 KB brotli of the module's size budget (the Makefile's SIZE_BUDGET), and
// package context goes with it (its Deadline returns a time.Time). The engine needs
// little of it: durations, a clock to time steps with, and timers for silences, a fetch
// body's grace and retry back-off.
//
// Natively (tests, Go callers) everything is package time's (clock_time.go): the zero
// state works. Under js/wasm the clocks are the runtime's own (clock_js.go) and the
// timers are the host's: the page's setTimeout, installed by wasm/cmd/langmodel with
// Install, the one file that may touch syscall/js (docs/design.md).
package clock

import "sync"

// Duration is a span of time in nanoseconds, as time.Duration is (a Duration converts to
// one and back without loss).
type Duration int64

// The units the module uses.
const (
	Nanosecond  Duration = 1
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
	Minute               = 60 * Second
)

// Microseconds is d in whole microseconds, truncated toward zero.
func (d Duration) Microseconds() int64 { return int64(d) / 1e3 }

// Milliseconds is d in whole milliseconds, truncated toward zero.
func (d Duration) Milliseconds() int64 { return int64(d) / 1e6 }

// Seconds is d in seconds.
func (d Duration) Seconds() float64 { return float64(d) / 1e9 }

// A Schedule calls fire once, on the host's event loop, after d (0 or less: as soon as
// it can), unless the cancel it returned is called first; cancel after fire does
// nothing. fire does not block. The host frees what it held for the timer once it has
// fired or been cancelled.
type Schedule func(d Duration, fire func()) (cancel func())

var (
	hostMu   sync.Mutex
	schedule Schedule // nil: the platform's default (clock_time.go, clock_js.go)
)

// Install makes s the timers' host. Under js/wasm the module's main package installs the
// page's setTimeout before anything starts a timer; natively package time is the
// default and Install is for tests. A nil s restores the default. Timers already
// running keep the schedule they started with.
func Install(s Schedule) {
	hostMu.Lock()
	schedule = s
	hostMu.Unlock()
}

func host() Schedule {
	hostMu.Lock()
	defer hostMu.Unlock()
	if schedule == nil {
		return defaultSchedule
	}
	return schedule
}

// Timer calls its func once, on a goroutine of its own, when its time comes, as
// time.AfterFunc's Timer does. Reset moves its time; a Reset that moves it later asks
// nothing of the host (the host's timer, on firing early, schedules the rest), so a
// timer reset at every chunk of a stream, as a silence is, costs no call to the page.
type Timer struct {
	mu       sync.Mutex
	f        func()
	s        Schedule
	active   bool     // f waits for its time (not fired, not stopped)
	when     Duration // Now() at which f is due
	armedFor Duration // Now() at which the host's timer fires, while cancel != nil
	cancel   func()   // the host's pending timer; nil when none
	gen      uint64   // which host timer is current: a late fire of an older one is ignored
}

// AfterFunc waits d, then calls f on its own goroutine. The Timer's Stop cancels it.
func AfterFunc(d Duration, f func()) *Timer {
	t := &Timer{f: f, s: host()}
	t.Reset(d)
	return t
}

// Stop keeps f from running; it reports whether it did (false when f has been started or
// the timer was stopped already).
func (t *Timer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.active
	t.active = false
	t.disarm()
	return was
}

// Reset makes f due d from now, whether or not it has run or been stopped; it reports
// whether the timer was waiting.
func (t *Timer) Reset(d Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.active
	t.active = true
	t.when = Now() + d
	if t.cancel != nil && t.armedFor > t.when {
		t.disarm() // the host's timer would fire too late
	}
	if t.cancel == nil {
		t.arm(d)
	}
	return was
}

// arm asks the host to fire in d; t.mu is held.
func (t *Timer) arm(d Duration) {
	t.gen++
	gen := t.gen
	t.armedFor = Now() + d
	t.cancel = t.s(d, func() { go t.expire(gen) })
}

// disarm cancels the host's pending timer, if any; t.mu is held.
func (t *Timer) disarm() {
	if t.cancel != nil {
		t.cancel()
		t.cancel = nil
		t.gen++
	}
}

// expire is the host's timer gen firing: f runs if its time has come, else the host is
// asked for the rest.
func (t *Timer) expire(gen uint64) {
	t.mu.Lock()
	if gen != t.gen {
		t.mu.Unlock()
		return
	}
	t.cancel = nil
	if !t.active {
		t.mu.Unlock()
		return
	}
	if left := t.when - Now(); left > 0 {
		t.arm(left)
		t.mu.Unlock()
		return
	}
	t.active = false
	t.mu.Unlock()
	t.f()
}
