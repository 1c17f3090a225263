package clock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimer: a Timer behaves as time.AfterFunc's does, on package time's timers (the
// default natively). Waits are guards against a hang, not measurements.
func TestTimer(t *testing.T) {
	const soon, never = 5 * Millisecond, Minute
	for _, tc := range []struct {
		name  string
		play  func(tm *Timer, fired <-chan struct{}) []bool // what Stop and Reset reported, in order
		fires int                                           // how many times f ran
		said  []bool
	}{
		{"it fires once its time has come", func(tm *Timer, fired <-chan struct{}) []bool { return nil }, 1, nil},
		{"Stop before it fires keeps f from running and says so", func(tm *Timer, fired <-chan struct{}) []bool {
			tm.Reset(never)
			return []bool{tm.Stop()}
		}, 0, []bool{true}},
		{"Stop after it fired says false", func(tm *Timer, fired <-chan struct{}) []bool {
			waitFired(t, fired)
			return []bool{tm.Stop()}
		}, 1, []bool{false}},
		{"a second Stop says false", func(tm *Timer, fired <-chan struct{}) []bool {
			tm.Reset(never)
			return []bool{tm.Stop(), tm.Stop()}
		}, 0, []bool{true, false}},
		{"Reset after it fired runs f again", func(tm *Timer, fired <-chan struct{}) []bool {
			waitFired(t, fired)
			r := tm.Reset(soon)
			waitFired(t, fired)
			return []bool{r}
		}, 2, []bool{false}},
		{"Reset after Stop starts it again", func(tm *Timer, fired <-chan struct{}) []bool {
			tm.Reset(never)
			s := tm.Stop()
			return []bool{s, tm.Reset(soon)}
		}, 1, []bool{true, false}},
		{"Reset to later keeps it from firing at the first time", func(tm *Timer, fired <-chan struct{}) []bool {
			r := tm.Reset(never)
			time.Sleep(time.Duration(4 * soon))
			return []bool{r, tm.Stop()}
		}, 0, []bool{true, true}},
		{"Reset to sooner fires at the sooner time", func(tm *Timer, fired <-chan struct{}) []bool {
			tm.Reset(never)
			return []bool{tm.Reset(soon)}
		}, 1, []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fires atomic.Int32
			fired := make(chan struct{}, 4)
			tm := AfterFunc(soon, func() { fires.Add(1); fired <- struct{}{} })
			said := tc.play(tm, fired)
			if tc.fires > int(fires.Load()) {
				waitFired(t, fired)
			}
			time.Sleep(time.Duration(4 * soon)) // a fire that should not come has had its time
			require.Equal(t, tc.said, said)
			require.Equal(t, int32(tc.fires), fires.Load())
		})
	}
}

// waitFired waits until the timer's f has run once more.
func waitFired(t *testing.T, fired <-chan struct{}) {
	t.Helper()
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer did not fire")
	}
}

// fakeHost is a Schedule whose timers fire when the test says.
type fakeHost struct {
	mu     sync.Mutex
	asked  []Duration
	fires  []func()
	cancel int
}

func (h *fakeHost) schedule(d Duration, fire func()) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, d)
	h.fires = append(h.fires, fire)
	return func() { h.mu.Lock(); h.cancel++; h.mu.Unlock() }
}

func (h *fakeHost) state() (asked int, cancelled int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.asked), h.cancel
}

// TestTimer_Host: what a Timer asks of the host (under js/wasm the page's setTimeout, a
// call to JS each): once per time it waits for, nothing for a Reset to later, and the
// rest when the host fires early.
func TestTimer_Host(t *testing.T) {
	for _, tc := range []struct {
		name      string
		play      func(h *fakeHost, tm *Timer)
		asked     int // host timers asked for
		cancelled int
		fires     int32
	}{
		{"AfterFunc asks once", func(h *fakeHost, tm *Timer) {}, 1, 0, 0},
		{"Stop cancels the host's timer", func(h *fakeHost, tm *Timer) { tm.Stop() }, 1, 1, 0},
		{"Reset to later asks nothing", func(h *fakeHost, tm *Timer) {
			for range 100 {
				tm.Reset(Minute)
			}
		}, 1, 0, 0},
		{"Reset to sooner cancels and asks again", func(h *fakeHost, tm *Timer) { tm.Reset(Millisecond) }, 2, 1, 0},
		{"a host timer that fires early asks for the rest, and f waits", func(h *fakeHost, tm *Timer) {
			h.fires[0]()
			require.Eventually(t, func() bool { a, _ := h.state(); return a == 2 }, 10*time.Second, time.Millisecond)
		}, 2, 0, 0},
		{"a cancelled host timer that fires all the same runs nothing", func(h *fakeHost, tm *Timer) {
			tm.Stop()
			tm.Reset(Minute)
			h.fires[0]()
			time.Sleep(20 * time.Millisecond)
		}, 2, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{}
			Install(h.schedule)
			t.Cleanup(func() { Install(nil) })
			var fires atomic.Int32
			tm := AfterFunc(Minute, func() { fires.Add(1) })
			tc.play(h, tm)
			asked, cancelled := h.state()
			require.Equal(t, tc.asked, asked, "host timers asked for")
			require.Equal(t, tc.cancelled, cancelled, "host timers cancelled")
			require.Equal(t, tc.fires, fires.Load())
		})
	}
}

// TestTimer_HostFiresOnTime: a host timer that fires when f is due runs f, once.
func TestTimer_HostFiresOnTime(t *testing.T) {
	h := &fakeHost{}
	Install(h.schedule)
	t.Cleanup(func() { Install(nil) })
	done := make(chan struct{})
	AfterFunc(0, func() { close(done) })
	h.fires[0]()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("f did not run")
	}
	asked, _ := h.state()
	require.Equal(t, 1, asked)
}

// TestDuration: the units and conversions the module uses agree with package time's.
func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Duration
		std  time.Duration
	}{
		{"a millisecond", Millisecond, time.Millisecond},
		{"a second", Second, time.Second},
		{"a minute", Minute, time.Minute},
		{"1.5 s", 1500 * Millisecond, 1500 * time.Millisecond},
		{"minus 2.5 ms", -2500 * Microsecond, -2500 * time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, int64(tc.std), int64(tc.d))
			require.Equal(t, tc.std.Milliseconds(), tc.d.Milliseconds())
			require.Equal(t, tc.std.Microseconds(), tc.d.Microseconds())
			require.Equal(t, tc.std.Seconds(), tc.d.Seconds())
		})
	}
}

// TestNow_Monotonic: Now moves forward with package time's clock; Unix is the wall clock.
func TestNow_Monotonic(t *testing.T) {
	a := Now()
	time.Sleep(10 * time.Millisecond)
	require.GreaterOrEqual(t, Now()-a, 10*Millisecond)
	require.InDelta(t, time.Now().Unix(), Unix(), 1)
}
