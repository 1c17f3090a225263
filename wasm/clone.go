package wasm

import (
	"context"
	"fmt"

	"langmodel/loop"
	"langmodel/session"
)

// clone copies a session after the operations before it. loop.Session.Clone waits for
// them, so it runs on its own goroutine; meanwhile the session's later prompts, appends
// and clones are held (entry.held) and replayed, in order, once the clone has its copy.
func (h *Handler) clone(raw []byte, id int64) {
	var req CloneRequest
	if !h.decodeRequest(raw, id, TypeClone, &req) {
		return
	}
	e := h.lookup(req.ID, req.Session)
	if e == nil {
		return
	}
	if e.cloning {
		e.held = append(e.held, raw)
		return
	}
	if req.Clone <= 0 || h.sessions[req.Clone] != nil {
		h.reply(req.ID, nil, protocolError(session.KindType, "clone: session key %d is invalid or in use", req.Clone))
		return
	}
	e.cloning = true
	ctx, done := h.track(req.ID)
	go func() {
		var ns *loop.Session
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("langmodel: internal error: %v", r)
				}
			}()
			ns, err = h.rebuild(ctx, e, req.Clone)
		}()
		done()
		if !h.post(inItem{fn: func() { h.cloned(req.ID, e, req.Clone, ns, err) }}) && ns != nil {
			ns.Destroy()
		}
	}()
}

// rebuild makes the clone. loop.Session.Clone copies the options verbatim, so the copy's
// events and tool calls would still be reported under the original's key; the binding
// therefore takes the cloned history and builds a new session from the original's options
// with hooks bound to the new key. The copied history enters as initial prompts, so the
// clone never evicts it on overflow (it rejects with QuotaExceededError instead). See
// wasm/README.md "Known gaps".
func (h *Handler) rebuild(ctx context.Context, e *entry, key int64) (*loop.Session, error) {
	c, err := e.s.Clone(ctx)
	if err != nil {
		return nil, err
	}
	msgs := c.Messages()
	c.Destroy()
	opts := e.opts
	opts.InitialPrompts = nil
	if len(msgs) > 0 {
		v, err := session.DecodeJSON(session.MarshalMessages(msgs))
		if err != nil {
			return nil, err
		}
		opts.InitialPrompts = v
	}
	pt := &pageTools{h: h, key: key, fns: e.tools.fns, approveFn: e.tools.approveFn}
	h.bind(&opts, pt)
	return loop.New(opts)
}

// cloned ends a clone, in order with the page's messages: it registers the copy,
// answers, and replays what was held behind the clone.
func (h *Handler) cloned(id int64, e *entry, key int64, ns *loop.Session, err error) {
	e.cloning = false
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
	} else {
		h.register(&entry{key: key, s: ns, opts: e.opts, tools: &pageTools{h: h, key: key, fns: e.tools.fns, approveFn: e.tools.approveFn}})
		h.replyValue(id, info(ns, true))
	}
	held := e.held
	e.held = nil
	for i, raw := range held {
		h.handle(raw)
		if e.cloning {
			e.held = append(e.held, held[i+1:]...)
			break
		}
	}
}
