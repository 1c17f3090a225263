package wasm

import (
	"langmodel/loop"
	"langmodel/session"
)

// The session table: the page's sessions by key, registered, looked up, destroyed, and
// read without a turn in the queue (Query).

// entry is one session of the page.
type entry struct {
	key   int64
	s     *loop.Session
	tools *pageTools
}

// lookup returns the session key, or answers request id with InvalidStateError.
func (h *Handler) lookup(id, key int64) *entry {
	e := h.sessions[key]
	if e == nil {
		h.reply(id, nil, errUnknownSession(key))
	}
	return e
}

func (h *Handler) register(e *entry) {
	h.mu.Lock()
	h.sessions[e.key] = e
	h.mu.Unlock()
	h.mirrorChanged(e.key)
}

func info(s *loop.Session, withMode bool) *SessionInfo {
	i := &SessionInfo{ContextUsage: s.ContextUsage(), ContextWindow: s.ContextWindow(), ActiveTools: s.ActiveTools()}
	if t := s.Usage(); t.Steps > 0 {
		i.Usage = &Usage{InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, Steps: t.Steps, EstimatedSteps: t.Estimated, CachedTokens: t.CachedTokens}
	}
	if withMode {
		i.Mode = string(s.Mode())
		i.SamplingMode = s.SamplingMode()
		if i.SamplingMode == "" {
			i.SamplingMode = "balanced" // the explainer's default
		}
		i.Initial = s.InitialCount()
	}
	return i
}

func (h *Handler) destroy(raw *message, id int64) {
	var req SessionRequest
	if !h.decodeRequest(raw, id, TypeDestroy, &req) {
		return
	}
	e := h.sessions[req.Session]
	if e == nil {
		h.reply(req.ID, nil, nil) // destroying twice is not an error
		return
	}
	e.s.Destroy()
	e.release()
	h.mu.Lock()
	delete(h.sessions, req.Session)
	h.mu.Unlock()
	h.mirrorChanged(req.Session)
	h.reply(req.ID, nil, nil)
}

// Query answers history and usage synchronously, for the page's synchronous getters
// (session.history, session.contextUsage): both read the session's published snapshot,
// so they need no turn in the queue and never block. It is safe from any goroutine.
func (h *Handler) Query(raw []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = marshal(&Reply{Type: TypeReply, Error: internalError(r)})
		}
	}()
	r, packed := h.query(raw, true)
	if packed != nil {
		return packHistory(r.ID, h.redactMessages(*packed), &h.red)
	}
	return h.red.JSON(marshal(r))
}

// query answers a history or usage request; a history the request asks packed, when
// packedOK, is left to the caller (packHistory): packed is then the messages.
func (h *Handler) query(raw []byte, packedOK bool) (r *Reply, packed *[]session.Message) {
	var req SessionRequest
	if err := decode(raw, &req); err != nil {
		return &Reply{Type: TypeReply, Error: protocolError(session.KindType, "malformed query: %v", err)}, nil
	}
	r = &Reply{Type: TypeReply, ID: req.ID}
	h.mu.Lock()
	e := h.sessions[req.Session]
	h.mu.Unlock()
	switch {
	case req.Type != TypeHistory && req.Type != TypeUsage && req.Type != TypeToolList:
		r.Error = protocolError(session.KindType, "cannot query %q", req.Type)
	case e == nil:
		r.Error = errUnknownSession(req.Session)
	case req.Type == TypeHistory && req.Packed && packedOK:
		msgs := e.s.Messages()
		return r, &msgs
	case req.Type == TypeHistory && !h.red.Empty():
		r.OK, r.Value = true, session.MarshalMessages(h.redactMessages(e.s.Messages()))
	case req.Type == TypeHistory:
		r.OK, r.Value = true, e.s.History()
	case req.Type == TypeToolList:
		r.OK, r.Value = true, toolList(e.s)
	default:
		r.OK, r.Value = true, marshal(info(e.s, false))
	}
	return r, nil
}
