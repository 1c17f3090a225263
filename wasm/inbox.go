package wasm

import (
	"bytes"

	"langmodel/loop"
	"langmodel/session"
)

// The inbox: the page's messages, handled one at a time in the order they came (drain),
// each by its type (handle); the requests in flight, which the page may abort (track,
// abort).

// inItem is a message from the page, or work a goroutine hands back to be done in order
// with the page's messages (the end of a clone).
type inItem struct {
	raw  []byte
	tail int // the last tail bytes of raw are the message's attachment (Port.Send)
	fn   func()
}

// Receive handles one message from the page, or queues it for the goroutine already
// handling. It never blocks on the engine, so it may be called from a js.FuncOf
// callback. msg is copied.
func (h *Handler) Receive(msg []byte) {
	h.post(inItem{raw: bytes.Clone(msg)})
}

func (h *Handler) post(it inItem) bool {
	if !h.in.push(it) {
		return false
	}
	h.drain()
	return true
}

// drain handles queued items in order, unless another goroutine is doing so already (it
// will see them). The re-check after unlocking catches an item pushed meanwhile.
func (h *Handler) drain() {
	for {
		if !h.reading.TryLock() {
			return
		}
		for batch := h.in.take(); batch != nil; batch = h.in.take() {
			for _, it := range batch {
				if it.fn != nil {
					h.safely(0, it.fn)
				} else {
					h.handle(it.raw, it.tail)
				}
			}
			h.in.done(batch)
		}
		h.reading.Unlock()
		if h.in.empty() {
			return
		}
	}
}

// safely runs fn, turning a panic into an error reply to request id.
func (h *Handler) safely(id int64, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			h.reply(id, nil, internalError(r))
		}
	}()
	fn()
}

// handle acts on one message from the page, whose last tail bytes are its attachment; it
// runs under the reading lock and never blocks.
func (h *Handler) handle(b []byte, tail int) {
	var env envelope
	raw := new(message) // on the stack: handlers only read it
	b, attach := b[:len(b)-tail], b[len(b)-tail:]
	err := parse(b, raw)
	if err == nil {
		err = raw.envelope(&env)
	}
	if err != nil {
		h.reply(0, nil, protocolError(session.KindType, "malformed message: %v", err))
		return
	}
	if len(attach) > 0 && env.Type != TypeCreate {
		h.reply(env.ID, nil, protocolError(session.KindType, "%s: an attachment only create reads", env.Type))
		return
	}
	raw.attach = attach
	h.safely(env.ID, func() {
		switch env.Type {
		case TypeHello:
			h.hello(raw, env.ID)
		case TypeCreate:
			h.create(raw, env.ID)
		case TypeAvailability:
			h.availability(raw, env.ID)
		case TypePrompt:
			h.prompt(raw, env.ID)
		case TypeAppend:
			h.appendInput(raw, env.ID)
		case TypeMeasure:
			h.measure(raw, env.ID)
		case TypeClone:
			h.clone(raw, env.ID)
		case TypeDestroy:
			h.destroy(raw, env.ID)
		case TypeHistory, TypeUsage, TypeToolList:
			r, _ := h.query(raw.raw, false)
			h.write(r)
		// Notifications have no reply; a malformed one is answered to id 0, since their
		// id (if any) is the engine's own.
		case TypeAbort:
			h.abort(raw, 0)
		case TypeToolReturn, TypeFetchResponse, TypeFetchChunk, TypeFetchEnd, TypeGeneratePiece, TypeGenerateEnd:
			h.pageReturn(raw, env.Type)
		case TypeToolProgress:
			h.toolProgress(raw, 0)
		case TypeListen:
			h.listen(raw)
		case TypeTools, TypeApprovals:
			h.setTools(raw, env.Type)
		default:
			h.reply(env.ID, nil, protocolError(session.KindType, "unknown message type %q", env.Type))
		}
	})
}

// decodeRequest decodes a request into v, answering a malformed one; it reports whether
// to go on. handle has parsed it already: its fields are read, not scanned again.
func (h *Handler) decodeRequest(raw *message, id int64, typ string, v fields) bool {
	if err := raw.into(v); err != nil {
		h.reply(id, nil, protocolError(session.KindType, "%s: %v", typ, err))
		return false
	}
	return true
}

// track makes request id abortable; untrack(id, cancel) ends it once it is answered
// (a pair of calls, not a closure per request).
func (h *Handler) track(id int64) (loop.Context, loop.CancelFunc) {
	ctx, cancel := loop.WithCancel(loop.Background())
	h.mu.Lock()
	h.inflight[id] = cancel
	h.mu.Unlock()
	return ctx, cancel
}

// untrack ends request id's context (track).
func (h *Handler) untrack(id int64, cancel loop.CancelFunc) {
	cancel()
	h.mu.Lock()
	delete(h.inflight, id)
	h.mu.Unlock()
}

// abort cancels a request. An abort for a request that has already been answered (the
// page aborted as the reply crossed it) finds nothing and is dropped on purpose.
func (h *Handler) abort(raw *message, id int64) {
	var m AbortMessage
	if !h.decodeRequest(raw, id, TypeAbort, &m) {
		return
	}
	h.mu.Lock()
	cancel := h.inflight[m.Target]
	h.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
