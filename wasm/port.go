package wasm

import (
	"bytes"
	"langmodel/internal/redact"
	"sync"

	"langmodel/wasm/internal/jsonw"
)

// Port is the module's end of the channel when the page moves the bytes itself, through
// the module's linear memory (wasm/cmd/langmodel's exports, js/port.js): the page writes
// a message into the inbox and hands it over with Send, then runs the module until every
// goroutine waits (wasm_exec.js's resume), then takes everything the module wrote
// meanwhile with Take, as one JSON array. A message crosses as bytes, never as a JS
// string or a js.Value, and no js.FuncOf is called: under syscall/js each call into a
// Func and each string handed to JS makes js.Values whose finalizers cost more than the
// engine's own step (RATIONALE.md "Why does the page read the module's memory?").
//
// Output the page does not pull (written when a timer or a fetch ran the module, not the
// page's Send) is announced once with wake, which the page answers by taking it later. A
// Port is safe for concurrent use, so that the native tests drive it from goroutines as
// the module does from its one thread.
type Port struct {
	h *Handler

	mu        sync.Mutex
	out       []byte // the messages written since the last Take: "[m1,m2,…", no closing bracket
	spare     []byte // the buffer of the last batch Take returned, reused by the next batch
	pulling   bool   // the page called Send, and takes what the run writes
	woken     bool   // wake was called and the page has not taken since
	wake      func() // nil until Connect
	in        []byte // the inbox the page writes its message into
	answer    []byte // the last Query's answer, kept until the page has read it
	connected bool
	w         jsonw.Writer // writeTo's, under mu
}

// inboxKeep is the largest inbox a Port keeps between messages: a larger message (a
// create with a long history) gets a buffer of its own, handed to the handler whole.
const inboxKeep = 64 << 10

// NewPort returns a port with a new Handler behind it; nothing is announced until Connect.
func NewPort() *Port {
	p := &Port{}
	p.h = NewHandler(p.write)
	p.h.port = p
	return p
}

// Handler is the handler behind the port.
func (p *Port) Handler() *Handler { return p.h }

// Inbox returns a buffer of n bytes for the page's next message (Send or Query).
func (p *Port) Inbox(n int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n < 0 {
		n = 0
	}
	if n > cap(p.in) {
		p.in = make([]byte, n)
	}
	return p.in[:n]
}

// Send hands the first n bytes of the inbox to the handler as one message, the last tail
// of them its attachment (a create request's packed history, packed.go). The handler
// acts on it before Send returns (it never blocks); goroutines it wakes run when the page
// next runs the module, and what they write is the page's to Take.
func (p *Port) Send(n, tail int) {
	p.mu.Lock()
	p.pulling = true
	msg := p.in[:min(max(n, 0), cap(p.in))]
	owned := cap(p.in) > inboxKeep
	if owned {
		p.in = nil // the handler keeps this one, and the next message gets a smaller inbox
	} else {
		msg = bytes.Clone(msg)
	}
	p.mu.Unlock()
	p.h.post(inItem{raw: msg, tail: min(max(tail, 0), len(msg))})
}

// Take returns what the module wrote since the last Take, as one JSON array of messages,
// or nil when it wrote nothing. The bytes stay valid until the next Take.
func (p *Port) Take() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pulling, p.woken = false, false
	if len(p.out) == 0 {
		return nil
	}
	batch := append(p.out, ']')
	next := p.spare[:0]
	if cap(next) > inboxKeep {
		next = nil // one long history read does not stay allocated
	}
	p.out, p.spare = next, batch
	return batch
}

// Query answers the first n bytes of the inbox as Handler.Query does, at once. The answer
// stays valid until the next Query.
func (p *Port) Query(n int) []byte {
	p.mu.Lock()
	msg := p.in[:min(max(n, 0), cap(p.in))]
	p.mu.Unlock()
	a := p.h.Query(msg)
	p.mu.Lock()
	p.answer = a
	p.mu.Unlock()
	return a
}

// Connect sets the function that tells the page there is output to take, and reports
// whether there is some already (written before the page connected).
func (p *Port) Connect(wake func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wake, p.connected = wake, true
	p.woken = false
	return len(p.out) > 0
}

// write appends msg to the batch (see writeTo).
func (p *Port) write(msg []byte) {
	p.add(func(out []byte) []byte { return append(out, msg...) })
}

// writeTo encodes m at the end of the batch; what fails to encode leaves nothing.
func (p *Port) writeTo(m marshaler, red *redact.Redactor) {
	p.add(func(out []byte) []byte {
		// The port's own writer (add holds the lock): one on the stack would escape
		// through the interface call, an allocation per message.
		w := &p.w
		start := len(out)
		*w = jsonw.Writer{Buffer: jsonw.Buffer{Buf: out}}
		m.MarshalEasyJSON(w)
		out, w.Buffer.Buf = w.Buffer.Buf, nil
		if w.Error != nil {
			w.Error = nil
			return nil
		}
		if red != nil { // the message's secrets (Handler.write)
			if clean := red.JSON(out[start:]); len(clean) != len(out)-start || &clean[0] != &out[start] {
				out = append(out[:start], clean...)
			}
		}
		return out
	})
}

// add appends one message to the batch with put (nil: it wrote nothing after all), and
// wakes the page when no Send is waiting for this output and the page has not been
// woken since it last took.
func (p *Port) add(put func(out []byte) []byte) {
	if wake := p.append(put); wake != nil {
		wake()
	}
}

// append is add's part under the lock (a put that panics leaves neither the lock held
// nor a part of its message in the batch); it returns the wake to call, if any.
func (p *Port) append(put func(out []byte) []byte) (wake func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sep := byte(',')
	if len(p.out) == 0 {
		sep = '['
	}
	out := put(append(p.out, sep)) // p.out itself changes only once put has succeeded
	if out == nil {
		return nil
	}
	p.out = out
	if !p.connected || p.pulling || p.woken {
		return nil
	}
	p.woken = true
	return p.wake
}
