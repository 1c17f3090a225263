package jshost

// The event loop: one goroutine owns the goja VM and the wasm module. It runs
// tasks (posted closures) in FIFO order, then timers that are due, and drains
// promise jobs after each of them. Time is virtual: see advance.

import (
	"container/heap"
	"math"
	"time"

	"github.com/dop251/goja"
)

const (
	// clockStart is the virtual monotonic clock at startup: performance.now()
	// returns 1000 at first, so wasm_exec.js's nanotime is never 0.
	clockStart = int64(time.Second)
	// minDelay is the smallest timer delay, as in Node: a chain of
	// setTimeout(f, 0) still moves the clock, so it cannot spin in place.
	minDelay = int64(time.Millisecond)
)

// wallStart is Date.now() when the virtual clock reads clockStart.
var wallStart = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

type timer struct {
	id       int64
	due      int64 // virtual ns
	seq      uint64
	interval int64 // ns; 0 for setTimeout
	fn       goja.Callable
	args     []goja.Value
	index    int
}

type timerHeap []*timer

func (q timerHeap) Len() int { return len(q) }
func (q timerHeap) Less(i, j int) bool {
	if q[i].due != q[j].due {
		return q[i].due < q[j].due
	}
	return q[i].seq < q[j].seq
}
func (q timerHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *timerHeap) Push(x any) { t := x.(*timer); t.index = len(*q); *q = append(*q, t) }
func (q *timerHeap) Pop() any {
	old := *q
	t := old[len(old)-1]
	*q = old[:len(old)-1]
	t.index = -1
	return t
}

// post queues fn to run on the loop; false once the Host is closed.
func (h *Host) post(fn func()) bool {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false
	}
	h.tasks = append(h.tasks, fn)
	h.mu.Unlock()
	h.wakeUp()
	return true
}

// call runs fn on the loop and waits for it to return.
func (h *Host) call(fn func()) error {
	done := make(chan struct{})
	if !h.post(func() { defer close(done); fn() }) {
		return ErrClosed
	}
	select {
	case <-done:
		return nil
	case <-h.done:
		return ErrClosed
	}
}

func (h *Host) wakeUp() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// run is the loop goroutine.
func (h *Host) run() {
	defer close(h.done)
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return
		}
		if len(h.tasks) > 0 {
			fn := h.tasks[0]
			h.tasks[0] = nil
			h.tasks = h.tasks[1:]
			h.mu.Unlock()
			h.runTask(fn)
			continue
		}
		holds := h.holds
		h.mu.Unlock()

		if len(h.timers) > 0 && h.timers[0].due <= h.now {
			h.runTask(h.fireTimer)
			continue
		}
		if len(h.waits) > 0 && holds == 0 {
			h.advance()
			continue
		}
		if holds > 0 && len(h.timers) > 0 {
			h.waitReal()
			continue
		}
		<-h.wake
	}
}

// waitReal waits while outside work is announced (Hold) and a timer is pending: the
// virtual clock then moves with real time, up to the next timer, since what the loop
// waits for happens in real time. A script that polls with setTimeout while a real
// request is out (or never answers) keeps running instead of freezing.
func (h *Host) waitReal() {
	wait := time.Duration(h.timers[0].due - h.now)
	start := time.Now()
	t := time.NewTimer(wait)
	select {
	case <-h.wake:
	case <-t.C:
	}
	t.Stop()
	h.now += int64(min(time.Since(start), wait))
}

// advance is called when nothing can run now, someone waits for a promise and
// no outside work is announced: the virtual clock jumps to the next timer. With
// no timer left the loop is stuck for good; see stall.
func (h *Host) advance() {
	if len(h.timers) > 0 {
		h.now = h.timers[0].due
		return
	}
	h.runTask(h.stall)
}

// runTask runs one macrotask, then the promise jobs it queued, then settles
// the Evals whose promise it settled and reports unhandled rejections.
func (h *Host) runTask(fn func()) {
	func() {
		defer func() {
			if r := recover(); r != nil {
				h.uncaught(r)
			}
		}()
		fn()
	}()
	// goja runs its job queue when the outermost call returns; a task that
	// only resolved a promise from Go has not made such a call yet.
	if _, err := h.vm.RunProgram(noopProgram); err != nil {
		h.uncaught(err)
	}
	h.reportRejections()
}

var noopProgram = goja.MustCompile("jshost:noop", "", true)

func (h *Host) fireTimer() {
	t := heap.Pop(&h.timers).(*timer)
	if t.interval > 0 {
		h.timerSeq++
		t.seq = h.timerSeq
		t.due = h.now + t.interval
		heap.Push(&h.timers, t)
	} else {
		delete(h.timerByID, t.id)
	}
	if _, err := t.fn(goja.Undefined(), t.args...); err != nil {
		h.uncaught(err)
	}
}

// delay converts a JS delay in milliseconds to virtual nanoseconds.
func delay(v goja.Value) int64 {
	ms := 0.0
	if v != nil && !goja.IsUndefined(v) {
		ms = v.ToFloat()
	}
	if math.IsNaN(ms) || ms < 0 {
		ms = 0
	}
	ns := int64(math.MaxInt64 / 4)
	if ms < float64(ns)/1e6 {
		ns = int64(ms * 1e6)
	}
	return max(ns, minDelay)
}

func (h *Host) setTimer(call goja.FunctionCall, repeat bool) goja.Value {
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		panic(h.vm.NewTypeError("jshost: timers take a function (string handlers are not supported)"))
	}
	d := delay(call.Argument(1))
	var args []goja.Value
	if len(call.Arguments) > 2 {
		args = append(args, call.Arguments[2:]...)
	}
	h.timerSeq++
	h.nextTimer++
	t := &timer{id: h.nextTimer, due: h.now + d, seq: h.timerSeq, fn: fn, args: args}
	if repeat {
		t.interval = d
	}
	heap.Push(&h.timers, t)
	h.timerByID[t.id] = t
	return h.vm.ToValue(t.id)
}

func (h *Host) clearTimer(call goja.FunctionCall) goja.Value {
	id := call.Argument(0).ToInteger()
	if t, ok := h.timerByID[id]; ok {
		delete(h.timerByID, id)
		if t.index >= 0 {
			heap.Remove(&h.timers, t.index)
		}
	}
	return goja.Undefined()
}

// installTimers defines setTimeout, clearTimeout, setInterval and
// clearInterval on the virtual clock.
func (h *Host) installTimers() {
	h.timerByID = map[int64]*timer{}
	h.now = clockStart
	h.vm.SetTimeSource(func() time.Time { return wallStart.Add(time.Duration(h.now - clockStart)) })
	g := h.vm.GlobalObject()
	_ = g.Set("setTimeout", func(c goja.FunctionCall) goja.Value { return h.setTimer(c, false) })
	_ = g.Set("setInterval", func(c goja.FunctionCall) goja.Value { return h.setTimer(c, true) })
	_ = g.Set("clearTimeout", h.clearTimer)
	_ = g.Set("clearInterval", h.clearTimer)
}
