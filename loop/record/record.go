// Package record wraps a Model and records its steps, for the scripted backend to replay
// (backend {kind: "record", backend}, DESIGN.md §4, docs/recordings.md). It sits beside
// the backends and imports none: it records any of them at the Model port, so what it
// keeps is what the session asked and what the model answered, never how a backend
// reached its model (no API key, no header, no URL).
package record

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// Model records the steps of the model it wraps. Sink, when set, receives each step as
// it ends, in the order the steps ran: one turn of the scripted backend's script,
//
//	{"request": {…}, "chunks": ["…"], "calls": [{callID, name, arguments}],
//	 "usage": {inputTokens, outputTokens, cachedTokens?}, "backend": 0, "error": {name, message}, "hang": true}
//
// with request as loop.Request.AppendJSON writes it and only the other fields that are
// set (backend: the index of the chain's member that answered, loop/chain). A step that failed records its error; one aborted (its context done) records
// hang, so that the replay waits for the same abort; one the loop stopped (emit
// returned an error) records the deltas it was given, which stop the replay the same way.
type Model struct {
	inner loop.Model
	Sink  func(step []byte)
	// Clean, when set, cleans a step's text chunks, read as one text, before they are
	// recorded: the module's redactor (internal/redact's Parts), which must see a
	// secret a model split over two chunks whole.
	Clean func(chunks []string) []string
}

// Wrap returns a recorder of m.
func Wrap(m loop.Model) *Model { return &Model{inner: m} }

// Step runs the wrapped model's step and records it.
func (r *Model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	if r.Sink == nil {
		return r.inner.Step(ctx, req, emit)
	}
	b := append(make([]byte, 0, 256), `{"request":`...)
	b = req.AppendJSON(b) // before the step: the messages are the session's, not to keep
	var chunks []string
	var calls []byte
	var usage *loop.Usage
	var stopped error
	err := r.inner.Step(ctx, req, func(d loop.Delta) error {
		if d.Text != "" {
			chunks = append(chunks, d.Text)
		}
		if d.Call != nil {
			c, _ := d.Call.MarshalJSON()
			calls = append(append(calls, ','), c...)
		}
		if d.Usage != nil {
			u := *d.Usage
			usage = &u
		}
		stopped = emit(d)
		return stopped
	})
	if chunks != nil {
		if r.Clean != nil {
			chunks = r.Clean(chunks)
		}
		b = append(b, `,"chunks":`...)
		for i, c := range chunks {
			b = jsonv.AppendString(append(b, "[,"[min(i, 1)]), c)
		}
		b = append(b, ']')
	}
	if calls != nil {
		b = append(append(append(b, `,"calls":[`...), calls[1:]...), ']')
	}
	if usage != nil {
		b = usage.AppendJSON(append(b, `,"usage":`...))
	}
	if req.Backend > 0 { // which member of a chain answered (loop/chain)
		b = strconv.AppendInt(append(b, `,"backend":`...), int64(req.Backend-1), 10)
	}
	switch {
	case err == nil || err == stopped:
	case ctx.Err() != nil:
		b = append(b, `,"hang":true`...)
	default:
		b = append(b, `,"error":{"name":`...)
		b = jsonv.AppendString(b, string(session.KindOf(err)))
		b = append(b, `,"message":`...)
		b = append(jsonv.AppendString(b, err.Error()), '}')
	}
	r.Sink(append(b, '}'))
	return err
}

// ContextWindow is the wrapped model's (loop.Windowed), 0 when it does not say.
func (r *Model) ContextWindow() int {
	if w, ok := r.inner.(loop.Windowed); ok {
		return w.ContextWindow()
	}
	return 0
}

// ServesLanguage is the wrapped model's answer (loop.Linguist), or
// session.CommonLanguage's when it does not say.
func (r *Model) ServesLanguage(tag string) bool {
	if l, ok := r.inner.(loop.Linguist); ok {
		return l.ServesLanguage(tag)
	}
	return session.CommonLanguage(tag)
}
