package wasm

import (
	"langmodel/loop"
	"langmodel/session"
)

// clone copies a session after the operations before it, compacted when the page asks
// (session.compact(): loop.Session.CompactAsync). The copy takes its turn in the
// session's queue at once (loop.Session.CloneAsync), so prompts and appends that come
// after it run after the copy; its tool calls and events are bound to the new key.
func (h *Handler) clone(raw *message, id int64) {
	var req CloneRequest
	if !h.decodeRequest(raw, id, TypeClone, &req) {
		return
	}
	e := h.lookup(req.ID, req.Session)
	if e == nil {
		return
	}
	if req.Clone <= 0 || h.sessions[req.Clone] != nil {
		h.reply(req.ID, nil, protocolError(session.KindType, "clone: session key %d is invalid or in use", req.Clone))
		return
	}
	pt := &pageTools{h: h, key: req.Clone, fns: e.tools.fns, approveFn: e.tools.approveFn, mcp: e.tools.mcp, own: e.tools.own}
	ctx, cancel := h.track(req.ID)
	adjust := func(o *loop.Options) { h.bind(o, pt) }
	end := func(ns *loop.Session, err error) {
		h.untrack(req.ID, cancel)
		if !h.post(inItem{fn: func() { h.cloned(req.ID, e, req.Clone, ns, pt, err) }}) && ns != nil {
			ns.Destroy()
		}
	}
	if req.Compact != nil {
		e.s.CompactAsync(ctx, loop.Compaction(*req.Compact), adjust, end)
	} else {
		e.s.CloneAsync(ctx, adjust, end)
	}
}

// cloned ends a clone, in order with the page's messages: it registers the copy and
// answers.
func (h *Handler) cloned(id int64, e *entry, key int64, ns *loop.Session, pt *pageTools, err error) {
	if err == nil && h.sessions[e.key] != e {
		err = session.Errorf(session.KindAbort, session.ErrDestroyed, "")
	}
	if err == nil && h.sessions[key] != nil {
		err = session.Errorf(session.KindType, session.ErrBadMessage, "clone: session key %d is in use", key)
	}
	if err != nil {
		if ns != nil {
			ns.Destroy()
		}
		h.replyErr(id, err)
		return
	}
	ne := &entry{key: key, s: ns, tools: pt}
	if pt.mcp != nil { // the clone shares the servers (mcp.go)
		pt.mcp.Retain()
	}
	h.register(ne)
	ne.followMCP()
	h.replyValue(id, info(ns, true))
}
