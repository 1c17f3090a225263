// Package wasm is the binding between the JS face (js/language-model.js) and the engine
// (loop, session): one narrow message channel, declared in protocol.go. Handler is plain
// Go with no syscall/js, so the same code runs natively in go test, inside the real .wasm
// under the wazero host (internal/jshost) and in the browser (internal/browsertest); the only
// syscall/js file is wasm/cmd/langmodel/main.go, which moves bytes. No engine logic
// lives here: the binding translates messages to loop calls and errors to data.
//
// It must never import syscall/js outside cmd/, nor net/http (make check-imports).
package wasm

import (
	"bytes"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
	"langmodel/wasm/internal/jsonw"
)

// Handler owns the sessions of one page, by key. It handles the page's messages in
// order, one at a time, so that a destroy is never overtaken and prompts and appends take
// their queue turn in call order (esbuild's handleIncomingPacket); handling never blocks,
// and only waiting happens on other goroutines. Writes to the page are serialised by one
// lock, so messages never interleave.
//
// Messages are handled on the goroutine that delivers them (Receive), or, when another is
// already handling, by that one, in arrival order. There is no reader or writer goroutine:
// under GOOS=js every goroutine switch unwinds and rewinds the wasm stack, and handing each
// message to a reader and each reply to a writer made a request's round trip cost 0.77 ms
// in Chromium (wasm/README.md "Performance").
type Handler struct {
	in      *fifo[inItem]
	reading sync.Mutex // held while handling messages
	writeMu sync.Mutex // held while sending one message
	send    func([]byte)
	port    *Port // when not nil, messages are encoded into its batch instead of sent
	closed  bool  // guarded by writeMu

	mu       sync.Mutex                // guards sessions and inflight
	sessions map[int64]*entry          // written only while reading
	inflight map[int64]loop.CancelFunc // page request id → cancel, for abort

	// replyValue encodes a reply's value here (guarded by replyMu), and the reply copies
	// it into the message: a prompt's answer costs no buffer of its own.
	replyMu  sync.Mutex
	replyW   jsonw.Writer
	replyBuf []byte

	callsMu  sync.Mutex
	calls    map[int64]*pageCall // engine → page calls awaiting the page's answers
	nextCall atomic.Int64

	bodyGrace loop.Duration // how long a closed fetch body may take to end; 0: defaultBodyGrace (fetch.go)

	// mirrors are the Mirrors of this handler's sessions (worker mode has one; nil on the
	// page's own thread): each learns which sessions changed (mirrorChanged).
	mirrors   atomic.Pointer[[]*Mirror]
	mirrorsMu sync.Mutex // held while adding to mirrors

	// red holds every secret any session of the page was given (apiKey, credential
	// headers, configured URLs' user-info and query values: a superset of each
	// session's), and cleans every message that leaves the engine (write, Query, Mirror;
	// docs/design.md "Secrets"). Empty, it costs a pointer load a message.
	red redact.Redactor
}

// inItem is a message from the page, or work a goroutine hands back to be done in order
// with the page's messages (the end of a clone).
type inItem struct {
	raw  []byte
	tail int // the last tail bytes of raw are the message's attachment (Port.Send)
	fn   func()
}

// entry is one session of the page.
type entry struct {
	key   int64
	s     *loop.Session
	tools *pageTools
}

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

// NewHandler returns a handler that writes every message for the page through send, one
// at a time. send is called with the write lock held, possibly from inside Receive: it
// must not block on the page (the js host queues; tests use a buffered channel).
func NewHandler(send func([]byte)) *Handler {
	return &Handler{
		in:       newFIFO[inItem](),
		send:     send,
		sessions: make(map[int64]*entry),
		inflight: make(map[int64]loop.CancelFunc),
		calls:    make(map[int64]*pageCall),
	}
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

// Close destroys every session and stops the handler; nothing is written after it.
func (h *Handler) Close() {
	h.in.close()
	h.reading.Lock()
	defer h.reading.Unlock()
	h.mu.Lock()
	for _, e := range h.sessions {
		if e.s != nil {
			e.s.Destroy()
		}
		e.release()
	}
	h.mu.Unlock()
	h.writeMu.Lock()
	h.closed = true
	h.writeMu.Unlock()
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

// lookup returns the session key, or answers request id with InvalidStateError.
func (h *Handler) lookup(id, key int64) *entry {
	e := h.sessions[key]
	if e == nil {
		h.reply(id, nil, errUnknownSession(key))
	}
	return e
}

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

func marshal(m marshaler) []byte {
	b, _ := marshalJSON(m) // wire types hold only valid raw JSON
	return b
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

// Connect runs fn under the write lock, so that a host can switch where messages go
// (from a buffer to the page) without a write slipping in between.
func (h *Handler) Connect(fn func()) {
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	defer func() { _ = recover() }()
	fn()
}
