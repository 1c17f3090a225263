// Package chain is the backend {kind: "chain", backends: [...]}: members tried in order
// for each step, so that a page can prefer one model (the browser's own, a GGUF in the
// page) and fall back to another (a server) when it fails. It sits beside the backends
// and imports none: wasm/ builds the members, as it builds any backend.
//
// A step goes to the next member only when its member failed before giving anything (no
// text, call or usage): a server that is down, a 5xx after its own retries, an engine
// that cannot load. The next member gets the same request (history and tools). Once a
// member has given a delta, its failure is the step's: two members' answers are never
// spliced. An abort (the context done) stops the chain at once.
//
// A member that failed is skipped for the rest of the prompt's steps (Request.Failed), so
// that an engine that cannot load or a server that is down costs its time once a prompt;
// the next prompt starts again from the first member (a page that prefers its on-device
// model wants it back when it can).
package chain

import (
	"strconv"
	"strings"

	"langmodel/loop"
	"langmodel/session"
)

// Model tries its members in order; a nil member is one js/ left out (not available when
// the session was created), so that the others keep the index they have in the page's
// backends, which names the member that answered (Request.Backend).
type Model struct {
	Members []loop.Model
}

// Step runs the first member that gives anything. When all fail, the error is the last
// member's kind, its message naming each member's failure.
func (m *Model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	msg := "the model failed: every backend of the chain failed"
	var err error
	for i, member := range m.Members {
		if member == nil {
			continue
		}
		var bit uint64 // past 64 members, none is remembered
		if i < 64 {
			bit = 1 << i
		}
		if req.Failed != nil && *req.Failed&bit != 0 {
			msg += "; backends[" + strconv.Itoa(i) + "]: failed earlier in this prompt"
			continue
		}
		started := false
		err = member.Step(ctx, req, func(d loop.Delta) error {
			started = true
			return emit(d)
		})
		if err == nil || started || ctx.Err() != nil {
			req.Backend = i + 1
			return err
		}
		msg += "; backends[" + strconv.Itoa(i) + "]: " + strings.TrimPrefix(err.Error(), "the model failed: ")
		if req.Failed != nil {
			*req.Failed |= bit
		}
	}
	return &session.Error{Kind: session.KindOf(err), Rule: session.ErrModel, Msg: msg}
}

// ContextWindow is the smallest of the members' windows (loop.Windowed): the history
// must fit whichever member answers. The languages a chain serves are not its own:
// js/chain.js leaves out the members that do not serve the session's.
func (m *Model) ContextWindow() int {
	w := 1 << 30
	for _, member := range m.Members {
		if member == nil {
			continue
		}
		mw := loop.DefaultContextWindow // a member that does not say has the loop's default
		if x, ok := member.(loop.Windowed); ok && x.ContextWindow() > 0 {
			mw = x.ContextWindow()
		}
		w = min(w, mw)
	}
	return w
}
