package wasm

import (
	"langmodel/internal/redact"
	"langmodel/wasm/internal/jsonw"
)

// The outbox: every message to the page leaves through writeMessage, one at a time under
// the write lock, its secrets redacted; the replies to the page's requests.

// marshaler is what the generated code gives every wire type (protocol_easyjson.go).
// Their MarshalJSON methods are trimmed away (wasm/internal/trimjson): marshalJSON is one
// for all of them.
type marshaler interface {
	MarshalEasyJSON(*jsonw.Writer)
}

// marshalJSON encodes a wire type as its generated MarshalJSON did.
func marshalJSON(m marshaler) ([]byte, error) {
	var w jsonw.Writer
	m.MarshalEasyJSON(&w)
	return w.Buffer.BuildBytes(), w.Error
}

// write sends one message to the page, the sessions' secrets redacted from it; safe from
// any goroutine. Behind a Port it is encoded straight into the port's batch
// (Port.writeTo), without a buffer of its own.
func (h *Handler) write(m marshaler) { h.writeMessage(m, true) }

// writeWithSecrets sends a message that must carry its secrets: a fetch, whose headers
// and URL go to the server (its body is redacted by fetchRequest).
func (h *Handler) writeWithSecrets(m marshaler) { h.writeMessage(m, false) }

func (h *Handler) writeMessage(m marshaler, clean bool) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	if h.closed {
		return
	}
	defer func() { _ = recover() }() // a throwing page must not take the handler down
	var red *redact.Redactor
	if clean && !h.red.Empty() {
		red = &h.red
	}
	if h.port != nil {
		h.port.writeTo(m, red)
		return
	}
	b, err := marshalJSON(m)
	if err != nil {
		return
	}
	if red != nil {
		b = red.JSON(b)
	}
	h.send(b)
}

func (h *Handler) reply(id int64, value []byte, werr *WireError) {
	r := Reply{Type: TypeReply, ID: id}
	if werr != nil {
		r.Error = werr
	} else {
		r.OK = true
		r.Value = value
		if r.Value == nil {
			r.Value = []byte("null")
		}
	}
	h.write(&r)
}

func (h *Handler) replyErr(id int64, err error) { h.reply(id, nil, wireError(err)) }

func (h *Handler) replyValue(id int64, v marshaler) {
	h.replyMu.Lock()
	defer h.replyMu.Unlock()
	w := &h.replyW
	*w = jsonw.Writer{Buffer: jsonw.Buffer{Buf: h.replyBuf[:0]}}
	v.MarshalEasyJSON(w)
	b, err := w.Buffer.Buf, w.Error
	*w = jsonw.Writer{}
	if cap(b) <= 64<<10 { // a large answer's buffer is not kept
		h.replyBuf = b[:0]
	}
	if err != nil {
		h.reply(id, nil, internalError(err))
		return
	}
	h.reply(id, b, nil)
}

func marshal(m marshaler) []byte {
	b, _ := marshalJSON(m) // wire types hold only valid raw JSON
	return b
}

// Connect runs fn under the write lock, so that a host can switch where messages go
// (from a buffer to the page) without a write slipping in between.
func (h *Handler) Connect(fn func()) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	defer func() { _ = recover() }()
	fn()
}
