package wasm

import (
	"bytes"
	"errors"
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
)

// The requests that make a session or reach its loop: hello, create, availability,
// prompt, append and measure.

// sessionInput finds the session a prompt, append or measure names and decodes its
// input; on failure it has answered the request.
func (h *Handler) sessionInput(id, key int64, raw []byte) (*entry, any, bool) {
	e := h.lookup(id, key)
	if e == nil {
		return nil, nil, false
	}
	input, err := requiredInput(raw)
	if err != nil {
		h.replyErr(id, err)
		return nil, nil, false
	}
	return e, input, true
}

func (h *Handler) hello(raw *message, id int64) {
	var req HelloRequest
	if !h.decodeRequest(raw, id, TypeHello, &req) {
		return
	}
	if req.Version != ProtocolVersion {
		h.reply(req.ID, nil, &WireError{Name: string(session.KindNotSupported),
			Message: sfmt.Sprintf("langmodel: the page speaks protocol %d and the module %d; load the language-model.js built with this module", req.Version, ProtocolVersion)})
		return
	}
	h.reply(req.ID, []byte(sfmt.Sprintf(`{"version":%d}`, ProtocolVersion)), nil)
}

func (h *Handler) create(raw *message, id int64) {
	var req CreateRequest
	if !h.decodeRequest(raw, id, TypeCreate, &req) {
		return
	}
	if req.Session <= 0 || h.sessions[req.Session] != nil {
		h.reply(req.ID, nil, protocolError(session.KindType, "create: session key %d is invalid or in use", req.Session))
		return
	}
	servers, err := mcpServers(req.Options.MCPServers)
	if err != nil {
		h.replyErr(req.ID, err)
		return
	}
	for _, s := range servers {
		h.secrets("mcpServers "+s.Name, h.red.AddCredentials("", s.Header, s.SecretHeaders, s.URL, s.SecretParams...))
	}
	choice := req.Options.ToolChoice
	if len(servers) > 0 { // it may name a server's tool: checked once they are known (mcp.go)
		req.Options.ToolChoice = nil
	}
	opts, pt, err := h.sessionOptions(req.Session, req.Options)
	if err != nil {
		h.replyErr(req.ID, err)
		return
	}
	switch {
	case req.TextPrompts != 0 || len(raw.attach) > 0:
		// A history packed after the message (packed.go).
		if len(req.InitialPrompts) > 0 {
			h.reply(req.ID, nil, protocolError(session.KindType, "create: initialPrompts both as JSON and packed"))
			return
		}
		msgs, err := unpackText(raw.attach, req.TextPrompts, req.TextUnits)
		if err != nil {
			h.reply(req.ID, nil, protocolError(session.KindType, "create: %v", err))
			return
		}
		opts.InitialPrompts = msgs
	case len(req.InitialPrompts) > 0 && !bytes.Equal(req.InitialPrompts, []byte("null")):
		// As JSON text, which session.NormalizeJSON reads (the face packs every array).
		opts.InitialPrompts = req.InitialPrompts
	}
	if len(servers) > 0 { // the servers' tools first (mcp.go); the message's bytes are not kept
		if raw, ok := opts.InitialPrompts.(jsonv.RawMessage); ok {
			opts.InitialPrompts = jsonv.RawMessage(bytes.Clone(raw))
		}
		choice = bytes.Clone(choice)
		h.connectMCP(req.ID, servers, opts, pt, func(opts loop.Options) {
			c, err := toolChoice(choice, opts.Tools)
			if err != nil {
				pt.mcp.Release(req.Session)
				h.replyErr(req.ID, err)
				return
			}
			if c != nil {
				opts.ToolChoice = *c
			}
			h.created(req.ID, req.Session, req.Restore, opts, pt)
		})
		return
	}
	h.created(req.ID, req.Session, req.Restore, opts, pt)
}

// created makes the session of a create() request and answers it.
func (h *Handler) created(id, key int64, rs *RestoreInfo, opts loop.Options, pt *pageTools) {
	var s *loop.Session
	var err error
	if rs != nil {
		s, err = restore(opts, rs)
	} else {
		s, err = loop.New(opts)
	}
	e := &entry{key: key, s: s, tools: pt}
	if err == nil && h.sessions[key] != nil {
		s.Destroy()
		err = session.Errorf(session.KindType, session.ErrBadMessage, "create: session key %d is in use", key)
	}
	if err != nil {
		e.release()
		h.replyErr(id, err)
		return
	}
	h.register(e)
	e.followMCP()
	h.replyValue(id, info(s, true))
}

// availability answers "available" when create() with these options could succeed on
// this module, and "unavailable" when the backend or an expected type is unsupported, or
// a sampling value is out of range (a temperature below 0, a topK below 1: create()'s
// RangeError).
func (h *Handler) availability(raw *message, id int64) {
	var req AvailabilityRequest
	if !h.decodeRequest(raw, id, TypeAvailability, &req) {
		return
	}
	_, _, err := h.sessionOptions(0, req.Options)
	switch kind := session.KindOf(err); {
	case kind == "":
		h.reply(req.ID, []byte(`"available"`), nil)
	case kind == session.KindNotSupported, errors.Is(err, errSamplingRange):
		h.reply(req.ID, []byte(`"unavailable"`), nil)
	default:
		h.replyErr(req.ID, err)
	}
}

func (h *Handler) prompt(raw *message, id int64) {
	var req PromptRequest
	if !h.decodeRequest(raw, id, TypePrompt, &req) {
		return
	}
	e, input, ok := h.sessionInput(req.ID, req.Session, req.Input)
	if !ok {
		return
	}
	choice, err := toolChoice(req.ToolChoice, e.s.Tools())
	var active []string // nil: the active set as it is (loop.PromptOptions.ActiveTools)
	if v, _ := decodeOptional(req.ActiveTools); v != nil {
		active = toolNames(v) // checked by the face (js/webidl.js)
	}
	if err != nil {
		h.replyErr(req.ID, err)
		return
	}
	ctx, cancel := h.track(req.ID)
	po := loop.PromptOptions{OmitConstraintInput: req.OmitResponseConstraintInput, ToolChoice: choice, ActiveTools: active}
	if len(req.ResponseConstraint) > 0 && !bytes.Equal(req.ResponseConstraint, []byte("null")) {
		po.ResponseConstraint = req.ResponseConstraint
	}
	var flush func()
	if req.Stream {
		key, id := req.Session, req.ID
		po.OnChunk = func(c loop.Chunk) {
			h.write(&Event{Type: TypeChunk, Session: key, ID: id, Detail: chunkDetail(c)})
		}
		if !h.red.Empty() {
			po.OnChunk, flush = h.redactChunks(key, id)
		}
	}
	s := e.s
	s.PromptAsync(ctx, input, po, func(r loop.Result, err error) {
		h.untrack(req.ID, cancel)
		if flush != nil {
			flush()
		}
		if err != nil {
			h.replyErr(req.ID, err)
			return
		}
		h.replyValue(req.ID, &PromptResult{Text: r.Text, Calls: callsJSON(r.Calls), ContextUsage: s.ContextUsage()})
	})
}

func (h *Handler) appendInput(raw *message, id int64) {
	var req InputRequest
	if !h.decodeRequest(raw, id, TypeAppend, &req) {
		return
	}
	e, input, ok := h.sessionInput(req.ID, req.Session, req.Input)
	if !ok {
		return
	}
	ctx, cancel := h.track(req.ID)
	s := e.s
	s.AppendAsync(ctx, input, func(err error) {
		h.untrack(req.ID, cancel)
		if err != nil {
			h.replyErr(req.ID, err)
			return
		}
		h.replyValue(req.ID, info(s, false))
	})
}

func (h *Handler) measure(raw *message, id int64) {
	var req InputRequest
	if !h.decodeRequest(raw, id, TypeMeasure, &req) {
		return
	}
	e, input, ok := h.sessionInput(req.ID, req.Session, req.Input)
	if !ok {
		return
	}
	n, err := e.s.MeasureContextUsage(input)
	if err != nil {
		h.replyErr(req.ID, err)
		return
	}
	h.reply(req.ID, strconv.AppendInt(nil, int64(n), 10), nil)
}

// requiredInput is a prompt's input, which the page must give, as its JSON text: the
// engine reads it with session.NormalizeJSON.
func requiredInput(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, session.Errorf(session.KindType, session.ErrBadMessage, "the input is missing")
	}
	return jsonv.RawMessage(raw), nil
}
