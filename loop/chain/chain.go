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
package chain

import (
	"strconv"
	"strings"

	"langmodel/loop"
	"langmodel/session"
)

// Model tries its members in order. Index[i] is Members[i]'s index in the page's
// backends (js/ leaves out the members that are not available when the session is
// created), which names the member that answered: the step's last delta is
// Delta{Backend: Index[i] + 1}.
type Model struct {
	Members []loop.Model
	Index   []int
}

// Step runs the first member that gives anything. When all fail, the error is the last
// member's kind, its message naming each member's failure.
func (m *Model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	var msg string
	var err error
	sep := ": "
	for i, member := range m.Members {
		started := false
		err = member.Step(ctx, req, func(d loop.Delta) error {
			started = true
			return emit(d)
		})
		if err == nil {
			return emit(loop.Delta{Backend: m.Index[i] + 1})
		}
		if started || ctx.Err() != nil {
			return err
		}
		msg += sep + "backends[" + strconv.Itoa(m.Index[i]) + "]: " + strings.TrimPrefix(err.Error(), "the model failed: ")
		sep = "; "
	}
	return session.Errorf(session.KindOf(err), session.ErrModel, "every backend of the chain failed%s", msg)
}

// ContextWindow is the smallest of the members' windows (loop.Windowed): the history
// must fit whichever member answers.
func (m *Model) ContextWindow() int {
	w := 0
	for _, member := range m.Members {
		mw := loop.DefaultContextWindow
		if x, ok := member.(loop.Windowed); ok && x.ContextWindow() > 0 {
			mw = x.ContextWindow()
		}
		if w == 0 || mw < w {
			w = mw
		}
	}
	return w
}

// ServesLanguage is the first member's answer (loop.Linguist): the one that answers
// unless it fails.
func (m *Model) ServesLanguage(tag string) bool {
	if l, ok := m.Members[0].(loop.Linguist); ok {
		return l.ServesLanguage(tag)
	}
	return session.CommonLanguage(tag)
}
