package wasm

import (
	"encoding/json"
	"strconv"

	"langmodel/wasm/internal/jsonw"

	"langmodel/loop"
	"langmodel/session"
)

// onEvent returns the event hook of the session key: each loop event becomes one Event
// message. It runs on loop and tool goroutines; write is safe for that.
func (h *Handler) onEvent(key int64) func(loop.Event) {
	return func(e loop.Event) {
		defer func() { _ = recover() }() // an event lost is better than a dead module
		h.write(&Event{Type: string(e.Type), Session: key, Detail: eventDetail(e)})
	}
}

// eventDetail is the detail of the page's event (see Event in protocol.go).
func eventDetail(e loop.Event) json.RawMessage {
	b := []byte{'{'}
	field := func(name string, raw []byte) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), name...), `":`...)
		if len(raw) == 0 {
			raw = []byte("null")
		}
		b = append(b, raw...)
	}
	if e.Call != nil {
		field("call", mustCall(*e.Call))
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
	case loop.EventContextOverflow:
		field("evicted", strconv.AppendInt(nil, int64(e.Evicted), 10))
	}
	return append(b, '}')
}

// chunkDetail is what promptStreaming() enqueues: the text, or a tool call part.
func chunkDetail(c loop.Chunk) json.RawMessage {
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
func callsJSON(calls []session.ToolCall) []json.RawMessage {
	if len(calls) == 0 {
		return nil
	}
	out := make([]json.RawMessage, len(calls))
	for i, c := range calls {
		out[i] = mustCall(c)
	}
	return out
}
