package wasm

import (
	"context"
	"encoding/json"
	"errors"

	"langmodel/session"
)

// pageCall is one engine → page call (tool-execute or tool-approve) awaiting its
// tool-return.
type pageCall struct {
	done     chan ToolReturn       // buffered: the handler never blocks delivering
	progress func(json.RawMessage) // the loop's progress hook; nil for approve
}

// callPage sends the message msg builds for a fresh call id and waits for the page's
// tool-return. When ctx ends first it tells the page (tool-abort, so the tool's signal
// aborts) and returns at once: the loop does not wait for tools it has given up on, and
// a tool-return that comes later finds no call and is dropped.
func (h *Handler) callPage(ctx context.Context, msg func(id int64) marshaler, progress func(json.RawMessage)) (ToolReturn, error) {
	id := h.nextCall.Add(1)
	pc := &pageCall{done: make(chan ToolReturn, 1), progress: progress}
	h.callsMu.Lock()
	h.calls[id] = pc
	h.callsMu.Unlock()
	h.write(msg(id))
	select {
	case r := <-pc.done:
		return r, nil
	case <-ctx.Done():
		h.callsMu.Lock()
		delete(h.calls, id)
		h.callsMu.Unlock()
		h.write(&PageCall{Type: TypeToolAbort, ID: id})
		return ToolReturn{}, ctx.Err()
	}
}

// pageTools runs a session's tools in the page: it is the session's loop.ToolRunner and,
// when the page gave approve, its loop.Approver. Clones get their own, with the same
// stash ids and their own key.
type pageTools struct {
	h         *Handler
	key       int64
	fns       map[string]int64 // tool name → execute stash id
	approveFn int64            // approve stash id; ≤ 0 for none
}

// Run implements loop.ToolRunner: it asks the page to call the tool's execute.
func (p *pageTools) Run(ctx context.Context, call session.ToolCall, progress func(json.RawMessage)) ([]session.ResultPart, error) {
	ret, err := p.h.callPage(ctx, func(id int64) marshaler {
		return &PageCall{Type: TypeToolExecute, ID: id, Session: p.key, Fn: p.fns[call.Name], Call: mustCall(call)}
	}, progress)
	if err != nil {
		return nil, err
	}
	if ret.Error != nil {
		return nil, errors.New(ret.Error.Message)
	}
	return resultParts(ret.Value)
}

// approve implements loop.Approver through the page's toolUseConfig.approve.
func (p *pageTools) approve(ctx context.Context, call session.ToolCall, tool *session.Tool) (bool, string, error) {
	ret, err := p.h.callPage(ctx, func(id int64) marshaler {
		return &PageCall{Type: TypeToolApprove, ID: id, Session: p.key, Fn: p.approveFn, Call: mustCall(call), Tool: tool.Name}
	}, nil)
	if err != nil {
		return false, "", err
	}
	if ret.Error != nil {
		return false, "", errors.New(ret.Error.Message)
	}
	v, err := decodeValue(ret.Value)
	if err != nil {
		return false, "", err
	}
	switch v := v.(type) {
	case bool:
		return v, "", nil
	case string:
		return false, v, nil
	case nil:
		return false, "", nil
	default:
		return true, "", nil // any other value is truthy in JS
	}
}

// resultParts reads what execute returned, as DESIGN.md §3 allows: a string (one text
// part), an array of result parts, or any other JSON value (one object part).
func resultParts(raw json.RawMessage) ([]session.ResultPart, error) {
	v, err := decodeValue(raw)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case string:
		return session.ParseResultParts(v)
	case []any:
		if parts, err := session.ParseResultParts(v); err == nil {
			return parts, nil
		}
	}
	b, err := json.Marshal(v) // canonical: sorted keys, numbers as given
	if err != nil {
		return nil, err
	}
	return []session.ResultPart{{Type: "object", Value: b}}, nil
}

// decodeValue decodes a free-form value from the page; absent is null (undefined).
func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return session.DecodeJSON(raw)
}

func mustCall(c session.ToolCall) json.RawMessage {
	b, _ := c.MarshalJSON() // never fails
	return b
}
