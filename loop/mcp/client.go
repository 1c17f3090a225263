// Package mcp is the engine's client of MCP servers (the Model Context Protocol,
// modelcontextprotocol.io) over Streamable HTTP: a tool source beside the backends, which
// it never imports (DESIGN.md §2). It speaks JSON-RPC 2.0 as the specification's
// 2025-11-25 revision defines it (initialize and notifications/initialized; the
// Mcp-Session-Id and MCP-Protocol-Version headers; answers as JSON or as server-sent
// events; tools/list with nextCursor; tools/call with a progress token;
// notifications/cancelled; notifications/tools/list_changed; DELETE at the end), and
// sends its bytes through a Transport: in the browser the page's fetch over the module's
// channel, so the module never links net/http.
//
// What every tool source shares (argument validation, approval, the CallToolResult →
// result parts mapping, untrusted framing) is the loop's tool policy (loop/policy.go):
// the tools this package declares carry MCPResult, and a call returns the server's
// CallToolResult as JSON text.
//
// Headers the page gives (Authorization, say) go into requests and nowhere else: no
// error, event or log built here names them, only the server's URL.
package mcp

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"langmodel/internal/clock"
	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/loop/internal/fetchport"
	"langmodel/loop/internal/sse"
	"langmodel/session"
)

// Transport, Request and Response are the HTTP port the openai backend uses too.
type (
	Transport = fetchport.Transport
	Request   = fetchport.Request
	Response  = fetchport.Response
)

// ProtocolVersion is the revision the client asks for; supported are those it accepts
// from a server, newest first, as its error names them (connect checks the same three).
const (
	ProtocolVersion = "2025-11-25"
	supported       = `"2025-11-25", "2025-06-18", "2025-03-26"`
)

// The bounds a server is held to (docs/security.md "Bounds" lists them with their tests).
// maxMessage bounds one message from a server, a JSON body or one event (its data lines
// together, and each line: loop/internal/sse); a larger one is an error for the call
// that waited for it, or ends the server's own stream. maxListBytes and maxTools bound a
// server's tool list over all its tools/list pages: the bytes of every message the
// server sent in answer (notifications in its streams too), and the tools. Past either,
// the listing fails: create() with an OperationError, a re-listing (list_changed) keeps
// the tools the session has. A megabyte of declarations is about 250,000 tokens in every
// model request, more than any model's context.
const (
	maxMessage   = 4 << 20
	maxListBytes = 1 << 20
	maxTools     = 1000
	maxPages     = 1000
)

// ListenSilence is how long the server's own stream (the GET that waits for
// notifications/tools/list_changed) may go without a byte, keep-alive comments included,
// before the client closes it and opens it again. A server may have nothing to say for
// hours, so silence is no fault; but a connection that died without a word (a proxy's
// idle cut, a laptop that slept) would otherwise hold the stream, and the page's fetch,
// for the session's life, deaf to every change. A quiet server costs one GET per
// ListenSilence; a stream that the server ends, that fails or breaks a bound (an event
// over maxMessage) is not opened again: list changes then come with answers to calls.
const ListenSilence = 5 * loop.Minute

// ErrServer is the rule a failing MCP server breaks (session.Error's rule).
var ErrServer = errors.New("MCP server")

// Server is one entry of create()'s mcpServers.
type Server struct {
	URL    string
	Name   string
	Header map[string]string // lower-case names
	// SecretHeaders names the headers beyond the credential ones (redact.IsSecretHeader)
	// whose values are secrets (the entry's secretHeaders).
	SecretHeaders []string
	// SecretParams names the query parameters of URL beyond the credential ones
	// (redact.SecretParam) whose values are secrets (the entry's secretParams).
	SecretParams []string
	Timeout      loop.Duration // how long the server may stay silent in a request; 0: DefaultTimeout
	// MaxCallTime bounds a whole tools/call, however much progress the server reports
	// meanwhile; 0: DefaultMaxCallTime (the entry's maxCallTime).
	MaxCallTime loop.Duration
	Trusted     bool // the page trusts its output: not framed as untrusted content (loop/policy.go)
	// Unannotated is how a tool that says neither readOnlyHint nor destructiveHint is
	// read: "" as MCP defines it (destructive: it needs approve), UnannotatedReadOnly
	// as read-only (the page vouches for the server; the entry's unannotated).
	Unannotated string
}

// UnannotatedReadOnly is Server.Unannotated for a server whose unannotated tools the page
// says change nothing.
const UnannotatedReadOnly = "readOnly"

// client is the connection to one server.
type client struct {
	t   Transport
	srv Server

	mu        sync.Mutex
	sessionID string // Mcp-Session-Id, when the server gave one
	version   string // the negotiated protocol revision
	nextID    atomic.Int64

	listChanged bool // the server announced notifications/tools/list_changed
	set         *Set // told of notifications/tools/list_changed (set.changed(index))
	index       int
	stopListen  loop.CancelFunc
	silence     loop.Duration // how long the server's own stream may say nothing; 0: ListenSilence

	redOnce sync.Once
	red     redact.Redactor // the server's credential headers, its URL's user-info and query
}

// fail is a failure of this server, "MCP server: <URL> <detail>", naming its URL by
// origin and path only; the server's secrets are redacted from it (a server may echo one
// in its own messages). Details are built by concatenation: formatting's boxed arguments
// cost code at every call.
func (c *client) fail(kind session.Kind, detail string) error {
	return &session.Error{Kind: kind, Rule: ErrServer, Msg: c.secrets().String("MCP server: " + redact.ShowURL(c.srv.URL) + " " + detail)}
}

// secrets is the redactor of the server's secrets: the values of its credential headers
// and of the headers the page marked secret, its URL's user-info and query values.
func (c *client) secrets() *redact.Redactor {
	c.redOnce.Do(func() { c.red.AddCredentials("", c.srv.Header, c.srv.SecretHeaders, c.srv.URL, c.srv.SecretParams...) })
	return &c.red
}

// result is a CallToolResult as the JSON text the loop reads, the server's secrets
// redacted: adjacent text contents are read as one text, so that a secret split across
// two of them is caught.
func (c *client) result(res any) string {
	red := c.secrets()
	if obj, ok := res.(map[string]any); ok && !red.Empty() {
		content, _ := obj["content"].([]any)
		for i := 0; i < len(content); {
			j := i
			var texts []string
			for ; j < len(content); j++ {
				part, _ := content[j].(map[string]any)
				text, ok := part["text"].(string)
				if !ok || part["type"] != "text" {
					break
				}
				texts = append(texts, text)
			}
			for k, t := range red.Parts(texts) {
				content[i+k].(map[string]any)["text"] = t
			}
			i = max(j, i+1)
		}
	}
	b, _ := jsonv.Marshal(res)
	return string(red.JSON(b))
}

// connect runs initialize and notifications/initialized, and opens the server's stream
// of notifications when it announced tools/list_changed.
func (c *client) connect(ctx loop.Context) error {
	params := `{"protocolVersion":"` + ProtocolVersion + `","capabilities":{},"clientInfo":{"name":"langmodel","version":"1"}}`
	res, err := c.call(ctx, "initialize", []byte(params), nil)
	if err != nil {
		return err
	}
	obj, _ := res.(map[string]any)
	v, _ := obj["protocolVersion"].(string)
	switch v {
	case "2025-11-25", "2025-06-18", "2025-03-26":
	default:
		return c.fail(session.KindNotSupported, "answered protocol version "+strconv.Quote(v)+", and this module speaks "+supported)
	}
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	caps, _ := obj["capabilities"].(map[string]any)
	tools, _ := caps["tools"].(map[string]any)
	c.listChanged, _ = tools["listChanged"].(bool)
	if err := c.notify(ctx, "notifications/initialized", nil); err != nil {
		return err
	}
	if c.listChanged {
		lctx, cancel := loop.WithCancel(loop.Background())
		c.stopListen = cancel
		go c.listen(lctx)
	}
	return nil
}

// listen reads the server's own stream (an HTTP GET) for notifications until ctx ends,
// opening it again after each ListenSilence without a byte; a server without one (405)
// or a stream that ends or fails is left alone: list changes then come only with the
// answers to calls.
func (c *client) listen(ctx loop.Context) {
	for c.listenOnce(ctx) {
	}
}

// listenOnce opens the server's stream and reads it; it reports whether the stream was
// closed for its silence (to be opened again).
func (c *client) listenOnce(ctx loop.Context) (silent bool) {
	sctx, cancel := loop.WithCancel(ctx)
	defer cancel()
	silence := c.silence
	if silence <= 0 {
		silence = ListenSilence
	}
	var quiet atomic.Bool
	timer := clock.AfterFunc(silence, func() { quiet.Store(true); cancel() })
	defer timer.Stop()
	resp, err := c.t.Do(sctx, c.request("GET", nil, "text/event-stream"))
	if err == nil {
		if resp.Status == 200 && strings.Contains(resp.Header["content-type"], "text/event-stream") {
			sse.Read(heard{resp.Body, func() { timer.Reset(silence) }}, maxMessage, (&reply{c: c}).take)
		}
		resp.Body.Close()
	}
	return quiet.Load() && ctx.Err() == nil
}

// heard is a stream's body that restarts the silence timer (reset) at every byte that
// arrives. A func, not the *clock.Timer: heard stays an io.Reader of two words that
// knows nothing of timers. A Reset that moves the silence later asks nothing of the page
// (internal/clock), so a byte costs no call to JS.
type heard struct {
	r     io.Reader
	reset func()
}

func (h heard) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.reset()
	}
	return n, err
}

// request builds an HTTP request to the server with its session headers.
func (c *client) request(method string, body []byte, accept string) *Request {
	h := make(map[string]string, len(c.srv.Header)+4)
	for k, v := range c.srv.Header {
		h[k] = v
	}
	h["accept"] = accept
	if body != nil {
		h["content-type"] = "application/json"
	}
	c.mu.Lock()
	if c.sessionID != "" {
		h["mcp-session-id"] = c.sessionID
	}
	if c.version != "" {
		h["mcp-protocol-version"] = c.version
	}
	c.mu.Unlock()
	return &Request{Method: method, URL: c.srv.URL, Header: h, Body: body}
}

// envelope is the JSON-RPC message for method: a request with id when id > 0, a
// notification otherwise.
func envelope(id int64, method string, params []byte) []byte {
	b := append(make([]byte, 0, 64+len(params)), `{"jsonrpc":"2.0"`...)
	if id > 0 {
		b = strconv.AppendInt(append(b, `,"id":`...), id, 10)
	}
	b = strconv.AppendQuote(append(b, `,"method":`...), method)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}')
}

// post sends the message body for method and returns the server's 2xx response (its
// body for the caller to close): a response other than 2xx is an error, the request's
// (not a notification's) 404 in a session the end of that session.
func (c *client) post(ctx loop.Context, method string, body []byte) (*Response, error) {
	resp, err := c.t.Do(ctx, c.request("POST", body, "application/json, text/event-stream"))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if method == "initialize" {
			return nil, c.fail(session.KindNetwork, "could not be reached: "+err.Error())
		}
		return nil, c.fail(session.KindNetwork, method+" failed: "+err.Error())
	}
	if sid := resp.Header["mcp-session-id"]; sid != "" && method == "initialize" {
		c.mu.Lock()
		c.sessionID = sid
		c.mu.Unlock()
	}
	if resp.Status/100 == 2 {
		return resp, nil
	}
	resp.Body.Close()
	if resp.Status == 404 && c.sessionID != "" && method != "initialize" && !strings.HasPrefix(method, "notifications/") {
		return nil, c.fail(session.KindNetwork, "ended the MCP session (HTTP 404)")
	}
	return nil, c.fail(session.KindNetwork, "answered HTTP "+strconv.Itoa(resp.Status)+" to "+method)
}

// notify sends a notification; the server answers 202 with no body.
func (c *client) notify(ctx loop.Context, method string, params []byte) error {
	resp, err := c.post(ctx, method, envelope(0, method, params))
	if err == nil {
		resp.Body.Close()
	}
	return err
}

// errStop stops reading a stream once the answer has come.
var errStop = errors.New("answered")

// call sends a request and returns its result, decoded. Messages that come with the
// answer (progress, list changes) go to message; progress, when not nil, gets this
// request's notifications/progress params. When ctx ends first, the server is told with
// notifications/cancelled.
func (c *client) call(ctx loop.Context, method string, params []byte, progress func(jsonv.RawMessage)) (any, error) {
	return c.callID(ctx, c.nextID.Add(1), method, params, progress)
}

// callID is call with the request's id chosen by the caller.
func (c *client) callID(ctx loop.Context, id int64, method string, params []byte, progress func(jsonv.RawMessage)) (any, error) {
	return c.ask(ctx, &reply{c: c, id: id, method: method, progress: progress}, params)
}

// ask sends r's request and waits for its answer.
func (c *client) ask(ctx loop.Context, r *reply, params []byte) (any, error) {
	id, method := r.id, r.method
	// The server has Timeout to answer or to say anything (progress) from one message to
	// the next: a server that falls silent fails the call, the loop going on.
	// And a tools/call has MaxCallTime in all, which nothing resets: MCP's maximum
	// "regardless of progress notifications".
	rctx, cancel := loop.WithCancel(ctx)
	r.timer = clock.AfterFunc(c.timeout(), func() { r.silent.Store(true); cancel() })
	var whole *clock.Timer
	if method == "tools/call" {
		whole = clock.AfterFunc(c.maxCallTime(), func() { r.over.Store(true); cancel() })
	}
	res, err := c.exchange(rctx, envelope(id, method, params), r)
	r.timer.Stop()
	if whole != nil {
		whole.Stop()
	}
	if rctx.Err() != nil && method != "initialize" {
		// The request may be running on the server: tell it, on a context of its own.
		cancelled := strconv.AppendInt([]byte(`{"requestId":`), id, 10)
		go c.notify(loop.Background(), "notifications/cancelled", append(cancelled, `,"reason":"the request was aborted"}`...))
	}
	cancel()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r.over.Load() {
		return nil, c.fail(session.KindNetwork, "did not finish "+method+" within "+strconv.FormatInt(c.maxCallTime().Milliseconds(), 10)+" ms (its maxCallTime, whatever progress it reports)")
	}
	if r.silent.Load() {
		return nil, c.fail(session.KindNetwork, "did not answer "+method+" within "+strconv.FormatInt(c.timeout().Milliseconds(), 10)+" ms")
	}
	return res, err
}

// DefaultMaxCallTime is how long one tools/call may take in all, progress or not
// (mcpServers' maxCallTime when the page gives none).
const DefaultMaxCallTime = 5 * loop.Minute

func (c *client) maxCallTime() loop.Duration {
	if c.srv.MaxCallTime > 0 {
		return c.srv.MaxCallTime
	}
	return DefaultMaxCallTime
}

// DefaultTimeout is how long a server may stay silent during a request (mcpServers'
// timeout when the page gives none).
const DefaultTimeout = 60 * loop.Second

func (c *client) timeout() loop.Duration {
	if c.srv.Timeout > 0 {
		return c.srv.Timeout
	}
	return DefaultTimeout
}

// reply waits for the answer to request id among a server's messages (take); with id 0,
// on the server's own stream, it handles the notifications only.
type reply struct {
	c        *client
	id       int64
	method   string
	progress func(jsonv.RawMessage)
	timer    *clock.Timer // the request's silence, reset at every message
	silent   atomic.Bool  // the timer fired
	over     atomic.Bool  // the whole request's bound (MaxCallTime) fired
	// used counts the bytes of the messages the server sent (from where the caller
	// started it: tools/list counts over all its pages); budget, when not 0, bounds it.
	used, budget int

	answered bool
	res      any
	err      error
}

// errOverBudget stops reading an answer whose messages went over the reply's budget.
var errOverBudget = errors.New("over budget")

// take handles one message; it stops the reading (errStop) once the answer has come, or
// (errOverBudget) once the messages went over the budget.
func (r *reply) take(data []byte) error {
	if r.timer != nil {
		r.timer.Reset(r.c.timeout())
	}
	r.used += len(data)
	if r.budget > 0 && r.used > r.budget {
		return errOverBudget
	}
	obj, answer := r.c.message(data, r.id, r.progress)
	if !answer || r.id == 0 {
		return nil
	}
	r.answered = true
	r.res, r.err = r.c.answer(obj, r.method)
	return errStop
}

func (c *client) exchange(ctx loop.Context, body []byte, r *reply) (any, error) {
	resp, err := c.post(ctx, r.method, body)
	if err != nil {
		return nil, err
	}
	failure := "" // why the reading stopped, when it failed
	if strings.Contains(resp.Header["content-type"], "text/event-stream") {
		_, err = sse.Read(resp.Body, maxMessage, r.take)
		switch {
		case err == nil || err == errStop:
		case errors.Is(err, sse.ErrTooLarge):
			failure = "an event is larger than 4 MB"
		default:
			failure = err.Error()
		}
	} else {
		var data []byte
		data, err = fetchport.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		switch {
		case err != nil:
			failure = err.Error()
		case len(data) > maxMessage:
			failure = "the answer is larger than 4 MB"
		default:
			err = r.take(data)
		}
	}
	resp.Body.Close()
	if err == errOverBudget {
		return nil, err
	}
	if r.answered {
		return r.res, r.err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if failure != "" {
		return nil, c.fail(session.KindNetwork, r.method+" failed: "+failure)
	}
	return nil, c.fail(session.KindNetwork, "ended the stream without answering "+r.method)
}

// message decodes one message of a server and handles it when it is not the answer to
// request id: progress of that request, list changes. It reports answer when data is
// that answer (or not a message at all: answer then says so).
func (c *client) message(data []byte, id int64, progress func(jsonv.RawMessage)) (obj map[string]any, answer bool) {
	v, err := jsonv.Decode(data)
	obj, _ = v.(map[string]any)
	if err != nil || obj == nil {
		return nil, true
	}
	method, _ := obj["method"].(string)
	if method == "" {
		return obj, numberIs(obj["id"], id) // a response: to this request, or to another (skipped)
	}
	if _, isRequest := obj["id"]; isRequest {
		return obj, false // a request of the server's (ping, sampling): this client offers none
	}
	params, _ := obj["params"].(map[string]any)
	switch method {
	case "notifications/progress":
		if progress != nil && numberIs(params["progressToken"], id) {
			out := make(map[string]any, 3)
			for _, k := range []string{"progress", "total", "message"} {
				if x, ok := params[k]; ok {
					out[k] = x
				}
			}
			b, _ := jsonv.Marshal(out)
			progress(c.secrets().JSON(b))
		}
	case "notifications/tools/list_changed":
		if c.set != nil {
			c.set.changed(c.index)
		}
	}
	return obj, false
}

func numberIs(v any, id int64) bool {
	n, ok := v.(jsonv.Number)
	return ok && string(n) == strconv.FormatInt(id, 10)
}

// answer reads the JSON-RPC response obj (nil: data that was not JSON-RPC): its result,
// or its error as an error.
func (c *client) answer(obj map[string]any, method string) (any, error) {
	if obj == nil {
		return nil, c.fail(session.KindOperation, "answered "+method+" with malformed JSON-RPC")
	}
	if e, ok := obj["error"].(map[string]any); ok {
		msg, _ := e["message"].(string)
		code, _ := e["code"].(jsonv.Number)
		return nil, c.fail(session.KindOperation, method+" failed: "+msg+" (JSON-RPC error "+string(code)+")")
	}
	res, ok := obj["result"]
	if !ok {
		return nil, c.fail(session.KindOperation, "answered "+method+" with malformed JSON-RPC (no result)")
	}
	return res, nil
}

// close ends the MCP session: the notification stream stops, and the server is sent a
// DELETE when it gave a session id.
func (c *client) close() {
	if c.stopListen != nil {
		c.stopListen()
	}
	c.mu.Lock()
	sid := c.sessionID
	c.mu.Unlock()
	if sid == "" {
		return
	}
	if resp, err := c.t.Do(loop.Background(), c.request("DELETE", nil, "application/json")); err == nil {
		resp.Body.Close()
	}
}
