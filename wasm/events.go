package wasm

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
	"langmodel/wasm/internal/jsonw"
)

// onEvent returns the event hook of the session pt serves: each loop event of a type the
// page listens for becomes one Event message; the others are dropped here, before they
// cost anything (ListenMessage). It runs on loop and tool goroutines; write is safe for
// that.
func (h *Handler) onEvent(pt *pageTools) func(loop.Event) {
	return func(e loop.Event) {
		if !pt.listensFor(e.Type) {
			return
		}
		defer func() { _ = recover() }() // an event lost is better than a dead module
		h.write(&Event{Type: string(e.Type), Session: pt.key, Detail: eventDetail(e)})
	}
}

// listensFor reports whether the page listens for events of type t of this session
// (loop.Options.Listens).
func (p *pageTools) listensFor(t loop.EventType) bool { return p.listens.Load()&eventBit(t) != 0 }

// eventBit is the bit of an event type in pageTools.listens; 0 for a type the engine
// does not send.
func eventBit(t loop.EventType) uint32 {
	switch t {
	case loop.EventToolCall:
		return 1
	case loop.EventToolProgress:
		return 2
	case loop.EventToolResult:
		return 4
	case loop.EventContextOverflow:
		return 8
	case loop.EventStepUsage:
		return 16
	case loop.EventReasoning:
		return 32
	case loop.EventToolCallDelta:
		return 64
	}
	return 0
}

// listen starts sending a session's events of one type (ListenMessage). A listen for a
// session that is gone, or for a type the engine does not send, is dropped.
func (h *Handler) listen(raw *message) {
	var m ListenMessage
	if !h.decodeRequest(raw, 0, TypeListen, &m) {
		return
	}
	if e := h.sessions[m.Session]; e != nil && e.tools != nil {
		e.tools.listens.Or(eventBit(loop.EventType(m.Event)))
	}
}

// eventDetail is the detail of the page's event (see Event in protocol.go).
func eventDetail(e loop.Event) jsonv.RawMessage {
	b := []byte{'{'}
	field := func(name string, raw []byte) { b = appendField(b, name, raw) }
	if e.Call != nil {
		field("call", mustCall(*e.Call))
	}
	if e.Tool != nil && e.Tool.Source.Kind == session.SourceBuiltin {
		field("builtin", []byte("true")) // the engine's own tool: tool search's search_tools
	}
	switch e.Type {
	case loop.EventToolCall:
		var a []byte
		if e.Tool != nil {
			a, _ = e.Tool.Annotations.MarshalJSON()
		}
		field("annotations", a)
	case loop.EventToolProgress:
		field("value", e.Progress)
	case loop.EventToolResult:
		var r []byte
		if e.Result != nil {
			r, _ = e.Result.MarshalJSON()
		}
		field("result", r)
		field("duration", strconv.AppendFloat(nil, float64(e.Duration.Microseconds())/1000, 'f', -1, 64))
	case loop.EventReasoning:
		field("text", jsonv.AppendString(nil, e.Text))
	case loop.EventContextOverflow:
		field("evicted", strconv.AppendInt(nil, int64(e.Evicted), 10))
		if e.Compacted { // compactOnOverflow: the usage before and after
			field("compacted", []byte("true"))
			field("contextUsageBefore", strconv.AppendInt(nil, int64(e.Before), 10))
			field("contextUsageAfter", strconv.AppendInt(nil, int64(e.After), 10))
		}
	case loop.EventStepUsage:
		u := e.Step
		field("inputTokens", strconv.AppendInt(nil, int64(u.InputTokens), 10))
		field("outputTokens", strconv.AppendInt(nil, int64(u.OutputTokens), 10))
		field("estimated", strconv.AppendBool(nil, u.Estimated))
		if u.Cached { // the backend's prompt-prefix cache (docs/small-windows.md)
			field("cachedTokens", strconv.AppendInt(nil, int64(u.CachedTokens), 10))
		}
		field("toolCalls", strconv.AppendInt(nil, int64(u.ToolCalls), 10))
		field("duration", strconv.AppendFloat(nil, float64(e.Duration.Microseconds())/1000, 'f', -1, 64))
		if u.Backend > 0 { // a chain's member (loop/chain)
			field("backend", strconv.AppendInt(nil, int64(u.Backend-1), 10))
		}
	case loop.EventToolCallDelta:
		b = formingDetail(b, e.Forming)
	}
	return append(b, '}')
}

// appendField appends "name":raw to the object b holds open (raw empty: null). Not
// inlined: inlined at eventDetail's fields, it cost 30 KB of code, 5.5 KB brotli.
//
//go:noinline
func appendField(b []byte, name string, raw []byte) []byte {
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(append(append(b, '"'), name...), `":`...)
	if len(raw) == 0 {
		raw = []byte("null")
	}
	return append(b, raw...)
}

// chunkDetail is what promptStreaming() enqueues: the text, or a tool call part.
func chunkDetail(c loop.Chunk) jsonv.RawMessage {
	var w jsonw.Writer
	if c.Call != nil {
		w.RawString(`{"type":"tool-call","value":`)
		w.Raw(c.Call.MarshalJSON())
		w.RawByte('}')
	} else {
		w.String(c.Text)
	}
	b, _ := w.BuildBytes()
	return b
}

// callsJSON encodes the calls a prompt hands back to the page.
func callsJSON(calls []session.ToolCall) []jsonv.RawMessage {
	if len(calls) == 0 {
		return nil
	}
	out := make([]jsonv.RawMessage, len(calls))
	for i, c := range calls {
		out[i] = mustCall(c)
	}
	return out
}
