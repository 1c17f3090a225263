//go:build js && wasm

package main

import (
	"sync"
	"syscall/js"

	"langmodel/internal/clock"
)

// pageTimers are the engine's timers (internal/clock) on the page's setTimeout: one
// js.Func made once for the module's life, to which setTimeout passes the timer's id
// (its third argument), so a timer costs no js.FuncOf and leaves no js.Func to release;
// pending holds what each id fires until it fires or is cancelled. The callback never
// blocks: clock's fire only starts a goroutine.
type pageTimers struct {
	mu      sync.Mutex
	next    int
	pending map[int]*pageTimer
	set     js.Value // setTimeout
	clear   js.Value // clearTimeout
	fire    js.Func
}

type pageTimer struct {
	fire   func()
	handle js.Value // what setTimeout returned, for clearTimeout
}

// pages is the module's pageTimers, once installTimers has run.
var pages *pageTimers

// installTimers makes the page's setTimeout the engine's timers; main calls it before
// anything can start one.
func installTimers() {
	g := js.Global()
	p := &pageTimers{pending: map[int]*pageTimer{}, set: g.Get("setTimeout"), clear: g.Get("clearTimeout")}
	p.fire = js.FuncOf(func(_ js.Value, args []js.Value) any {
		if t := p.take(args[0].Int()); t != nil {
			t.fire()
		}
		return nil
	})
	pages = p
	clock.Install(p.schedule)
}

// take removes timer id from pending and returns it; nil if it fired or was cancelled.
func (p *pageTimers) take(id int) *pageTimer {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.pending[id]
	delete(p.pending, id)
	return t
}

// schedule is clock.Schedule on setTimeout, in whole milliseconds rounded up (a page's
// timer may fire early all the same: clock then asks for the rest).
func (p *pageTimers) schedule(d clock.Duration, fire func()) (cancel func()) {
	ms := int64(0)
	if d > 0 {
		ms = (int64(d) + int64(clock.Millisecond) - 1) / int64(clock.Millisecond)
	}
	t := &pageTimer{fire: fire}
	p.mu.Lock()
	p.next++
	id := p.next
	p.pending[id] = t
	p.mu.Unlock()
	t.handle = p.set.Invoke(p.fire, ms, id) // setTimeout never calls back before it returns
	return func() {
		if p.take(id) != nil {
			p.clear.Invoke(t.handle)
		}
	}
}
