package textproto

import (
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop"
)

// Read returns a Model over inner, a backend with native tools, that also reads the
// calls inner wrote as text: the calls a runtime (llama.cpp, Ollama, vLLM) leaves in the
// content when its parser for the model's syntax misses. The request goes to inner as it
// is, tools native; inner's own calls pass through. On a step that offered tools, the
// text inner streams (the answer: reasoning is not read) goes through the Parser in its
// Strict mode, and a block that reads as calls of tools offered this step becomes those
// calls, validated and repaired as Wrap's are (see "Calls read from content" in the
// package comment). A step that offers no tools passes straight through. It reports
// inner's context window when inner has one.
func Read(inner loop.Model) loop.Model {
	m := &reader{inner: inner}
	if w, ok := inner.(loop.Windowed); ok {
		return &windowedReader{reader: m, w: w}
	}
	return m
}

type reader struct{ inner loop.Model }

type windowedReader struct {
	*reader
	w loop.Windowed
}

func (w *windowedReader) ContextWindow() int { return w.w.ContextWindow() }

// Step runs one step of inner, reading its text for calls when the step offers tools,
// with at most one repair round.
func (m *reader) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	tools, choice := offered(req)
	if len(tools) == 0 {
		return m.inner.Step(ctx, req, emit)
	}
	first := &attempt{tools: tools, choice: choice, emit: emit, mayRepair: true, forming: req.Forming, read: true}
	// Under a responseConstraint a JSON object is the answer, never a call.
	first.parser.Strict, first.parser.NoBareJSON = true, req.ResponseConstraint != nil
	if err := m.inner.Step(ctx, req, bounded(req.ContextWindow, first.delta)); err != nil {
		return err
	}
	if err := first.end(); err != nil {
		return err
	}
	why := first.problems()
	if why == "" || len(first.native) > 0 {
		return first.settleRead()
	}
	// The repair shows the model its reply from the first call block on: the prose before
	// it reached the page and stays the answer's start, and a step without a block, the
	// most common, then never keeps a copy of its text.
	var reply strings.Builder
	for _, h := range first.held {
		reply.WriteString(h.text)
	}
	r := *req
	return first.again(ctx, m.inner, &r, req.ContextWindow, reply.String(), why)
}

// heldPiece is content that followed the first call block of a step: text, or a call
// block as written (shown only if the backend made calls of its own).
type heldPiece struct {
	text  string
	block bool
}

// text passes on content that is text: at once, or held once a call block has been
// read, since that block may yet be shown as text in its place.
func (a *attempt) text(s string) error {
	if a.read && a.mayRepair && len(a.held) > 0 {
		a.held = append(a.held, heldPiece{text: s})
		return nil
	}
	if s == "" {
		return nil
	}
	return a.emit(loop.Delta{Text: s})
}

// nativeCall notes that the backend calls a tool itself: a call forming from the content
// is taken back, and none forms after it.
func (a *attempt) nativeCall() error {
	a.nativeSeen = true
	if a.cur.on {
		return a.drop(a.cur.at)
	}
	return nil
}

// settleRead ends a first attempt over content: with the backend's own calls, the call
// blocks are text as they were written; else they are the step's calls.
func (a *attempt) settleRead() error {
	native := len(a.native) > 0
	if native && a.forming {
		for at := 0; at < a.n; at++ {
			if err := a.drop(at); err != nil {
				return err
			}
		}
	}
	calls := a.calls
	if native {
		calls = a.native
	}
	for i := range calls {
		if err := a.emit(loop.Delta{Call: &calls[i]}); err != nil {
			return err
		}
	}
	for _, h := range a.held {
		if h.block && !native || h.text == "" {
			continue
		}
		if err := a.emit(loop.Delta{Text: h.text}); err != nil {
			return err
		}
	}
	if a.usage != nil {
		return a.emit(loop.Delta{Usage: a.usage})
	}
	return nil
}

// callsOffered reports whether a block read from content is a call of tools offered this
// step: all its calls name one, or, for a block that could not be read, the name it
// begins with does (it gets the repair round).
func (a *attempt) callsOffered(b *Block) bool {
	if b.Err != nil {
		name, _ := FormingCall(b.Format, b.Name, []byte(b.Body))
		return name != "" && a.offers(name)
	}
	for _, c := range b.Calls {
		if !a.offers(c.Name) {
			return false
		}
	}
	return len(b.Calls) > 0
}

// fit is the arguments of Qwen3-Coder's parameters as the tool's schema wants them: a
// value is a string where the schema's property is one ("42" stays "42"), else JSON when
// it is valid JSON, else a string.
func fit(params []param, schema jsonv.RawMessage) jsonv.RawMessage {
	var props map[string]any
	if v, err := jsonv.Decode(schema); err == nil {
		if m, ok := v.(map[string]any); ok {
			props, _ = m["properties"].(map[string]any)
		}
	}
	out := make([]param, len(params))
	for i, p := range params {
		out[i] = p
		prop, _ := props[p.key].(map[string]any)
		out[i].str = prop["type"] == "string"
	}
	return paramsJSON(out, true)
}
