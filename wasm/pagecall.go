package wasm

import (
	"errors"
	"sync"
	"sync/atomic"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/mcp"
	"langmodel/session"
)

// pageCall is one engine → page call (tool-execute, tool-approve, fetch or generate)
// awaiting the page's answers.
type pageCall struct {
	kind     string                 // the engine's message type: what answers it may take
	done     chan PageReturn        // buffered: a tool's tool-return, a fetch's response or early end
	progress func(jsonv.RawMessage) // the loop's progress hook; nil for all but tool-execute
	stream   *stream                // fetch body chunks or generate pieces; nil for tools
	answered bool                   // a fetch's done has been sent (guarded by callsMu)
}

// openCall registers a call of the given kind under a fresh id.
func (h *Handler) openCall(kind string, progress func(jsonv.RawMessage), s *stream) (int64, *pageCall) {
	id := h.nextCall.Add(1)
	pc := &pageCall{kind: kind, done: make(chan PageReturn, 1), progress: progress, stream: s}
	h.callsMu.Lock()
	h.calls[id] = pc
	h.callsMu.Unlock()
	return id, pc
}

// abortCall stops waiting for call id: if it is still open, it is forgotten and the
// page is told with an abortType message, so that the call's signal aborts. What the
// page sends for it later finds no call and is dropped.
func (h *Handler) abortCall(id int64, abortType string) {
	h.callsMu.Lock()
	_, open := h.calls[id]
	delete(h.calls, id)
	h.callsMu.Unlock()
	if open {
		h.write(&PageCall{Type: abortType, ID: id})
	}
}

// callPage sends the message msg builds for a fresh call id and waits for the page's
// tool-return. When ctx ends first it tells the page (tool-abort, so the tool's signal
// aborts) and returns at once: the loop does not wait for tools it has given up on, and
// a tool-return that comes later finds no call and is dropped.
func (h *Handler) callPage(ctx loop.Context, kind string, msg func(id int64) marshaler, progress func(jsonv.RawMessage)) (PageReturn, error) {
	id, pc := h.openCall(kind, progress, nil)
	h.write(msg(id))
	select {
	case r := <-pc.done:
		return r, nil
	case <-ctx.Done():
		h.abortCall(id, TypeToolAbort)
		return PageReturn{}, ctx.Err()
	}
}

// pageReturn delivers one of the page's answers to the call it names. An answer for a
// call no longer awaited (aborted, destroyed, ended, answered twice), or of the wrong
// kind, is dropped on purpose.
func (h *Handler) pageReturn(raw *message, typ string) {
	var m PageReturn
	if !h.decodeRequest(raw, 0, typ, &m) {
		return
	}
	h.callsMu.Lock()
	pc := h.calls[m.ID]
	if pc == nil || pc.kind != callKind(typ) {
		h.callsMu.Unlock()
		return
	}
	first := !pc.answered
	switch typ {
	case TypeToolReturn, TypeFetchEnd, TypeGenerateEnd:
		delete(h.calls, m.ID)
	}
	if typ == TypeToolReturn || typ == TypeFetchResponse || typ == TypeFetchEnd {
		pc.answered = true
	}
	h.callsMu.Unlock()

	switch typ {
	case TypeToolReturn, TypeFetchResponse:
		if first {
			pc.done <- m
		}
	case TypeFetchChunk:
		pc.stream.push([]byte(m.Data))
	case TypeGeneratePiece:
		v := m.Value
		if len(v) == 0 {
			v = []byte("null") // undefined
		}
		pc.stream.push(v)
	case TypeFetchEnd, TypeGenerateEnd:
		var err error
		if m.Error != nil {
			err = &pageError{name: m.Error.Name, message: m.Error.Message}
		}
		if typ == TypeFetchEnd && first {
			if err == nil {
				m.Error = &WireError{Message: "the page ended the fetch without a response"}
			}
			pc.done <- m
		}
		pc.stream.end(err)
	}
}

// callKind is the kind of call an answer of type typ belongs to.
func callKind(typ string) string {
	switch typ {
	case TypeFetchResponse, TypeFetchChunk, TypeFetchEnd:
		return TypeFetch
	case TypeGeneratePiece, TypeGenerateEnd:
		return TypeGenerate
	}
	return "tool"
}

// pageError is an error the page reported: a fetch that failed, a generate that threw.
type pageError struct{ name, message string }

func (e *pageError) Error() string { return e.message }

// pageTools runs a session's tools in the page: it is the session's loop.ToolRunner and,
// when the page gave approve, its loop.Approver. Clones get their own, with the same
// stash ids and their own key.
type pageTools struct {
	h         *Handler
	key       int64
	fns       map[string]int64 // tool name → execute stash id; replaced whole by setTools (fnsMu)
	fnsMu     sync.Mutex
	approveFn int64          // approve stash id; ≤ 0 for none
	listens   atomic.Uint32  // the event types the page listens for (eventBit); a clone starts with none
	mcp       *mcp.Set       // the session's MCP servers (mcp.go); nil for none
	own       []session.Tool // the page's tools, beside the servers' (fnsMu)
}

// Run implements loop.ToolRunner for a call that comes without its declaration: the
// execute the page stored under its name now.
func (p *pageTools) Run(ctx loop.Context, call session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	p.fnsMu.Lock()
	fn := p.fns[call.Name]
	p.fnsMu.Unlock()
	return p.RunDeclared(ctx, call, &session.Tool{Name: call.Name, Source: session.Source{Kind: session.SourcePage, Fn: fn}}, progress)
}

// RunDeclared implements loop.DeclaredRunner: the call goes where its declaration's
// route says (an MCP server, or the execute the page gave with that declaration), never
// where its name leads by now.
func (p *pageTools) RunDeclared(ctx loop.Context, call session.ToolCall, tool *session.Tool, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	if tool.Source.Kind == session.SourceMCP {
		if p.mcp == nil {
			return nil, errors.New("tool " + call.Name + " has no MCP server")
		}
		return p.mcp.RunDeclared(ctx, call, tool, progress)
	}
	ret, err := p.h.callPage(ctx, "tool", func(id int64) marshaler {
		return &PageCall{Type: TypeToolExecute, ID: id, Session: p.key, Fn: tool.Source.Fn, Call: mustCall(call)}
	}, progress)
	if err != nil {
		return nil, err
	}
	if ret.Error != nil {
		return nil, errors.New(ret.Error.Message)
	}
	return resultParts(ret.Value)
}

// approve implements loop.Approver through the page's toolUseConfig.approve, which is
// shown the declaration that will run (toolInfo), its source with it.
func (p *pageTools) approve(ctx loop.Context, call session.ToolCall, tool *session.Tool) (bool, string, error) {
	ret, err := p.h.callPage(ctx, "tool", func(id int64) marshaler {
		return &PageCall{Type: TypeToolApprove, ID: id, Session: p.key, Fn: p.approveFn, Call: mustCall(call), Tool: tool.Name, ToolInfo: toolInfo(tool)}
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
// part), an array of result parts, or any other JSON value (one object part, read by the
// rules of an object part the page gives: binary data, such as a returned Uint8Array, is
// refused, and the model gets the refusal as a tool error).
func resultParts(raw jsonv.RawMessage) ([]session.ResultPart, error) {
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
	return session.ParseResultParts([]any{map[string]any{"type": "object", "value": v}})
}

// decodeValue decodes a free-form value from the page; absent is null (undefined).
func decodeValue(raw jsonv.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return session.DecodeJSON(raw)
}

func mustCall(c session.ToolCall) jsonv.RawMessage {
	b, _ := c.MarshalJSON() // never fails
	return b
}

// toolProgress passes a running tool's progress to the loop; late ones are dropped.
func (h *Handler) toolProgress(raw *message, id int64) {
	var m ToolProgress
	if !h.decodeRequest(raw, id, TypeToolProgress, &m) {
		return
	}
	h.callsMu.Lock()
	pc := h.calls[m.ID]
	h.callsMu.Unlock()
	if pc != nil && pc.progress != nil {
		v := m.Value
		if len(v) == 0 {
			v = []byte("null")
		}
		pc.progress(v)
	}
}
