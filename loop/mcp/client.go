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
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"langmodel/internal/jsonv"
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

// ProtocolVersion is the revision the client asks for; Supported are those it accepts
// from a server, newest first.
const ProtocolVersion = "2025-11-25"

// Supported are the protocol revisions the client speaks.
var Supported = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// maxMessage bounds one message from a server (a JSON body or one event); a larger one
// is an error for the call that waited for it.
const maxMessage = 4 << 20

// ErrServer is the rule a failing MCP server breaks (session.Error's rule).
var ErrServer = errors.New("MCP server")

// Server is one entry of create()'s mcpServers.
type Server struct {
	URL     string
	Name    string
	Header  map[string]string // lower-case names
	Timeout time.Duration     // how long the server may stay silent in a request; 0: DefaultTimeout
}

// client is the connection to one server.
type client struct {
	t   Transport
	srv Server

	mu        sync.Mutex
	sessionID string // Mcp-Session-Id, when the server gave one
	version   string // the negotiated protocol revision
	nextID    atomic.Int64

	listChanged bool                // the server announced notifications/tools/list_changed
	onNotify    func(method string) // set before any request
	stopListen  loop.CancelFunc
}

// errorf is a failure of this server, naming its URL only; the value of every header the
// page gave is redacted from it (a server may echo one in its own messages).
func (c *client) errorf(kind session.Kind, format string, args ...any) error {
	e := session.Errorf(kind, ErrServer, "%s "+format, append([]any{c.srv.URL}, args...)...)
	e.Msg = c.redact(e.Msg)
	return e
}

// redact replaces the values of the page's headers in s, and their tokens after
// "Bearer ", with [redacted].
func (c *client) redact(s string) string {
	for _, v := range c.srv.Header {
		for _, secret := range []string{v, strings.TrimPrefix(v, "Bearer ")} {
			if len(secret) >= 4 {
				s = strings.ReplaceAll(s, secret, "[redacted]")
			}
		}
	}
	return s
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
	ok := false
	for _, s := range Supported {
		ok = ok || s == v
	}
	if !ok {
		return c.errorf(session.KindNotSupported, "answered protocol version %q, and this module speaks %s", v, joinQuoted(Supported))
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

func joinQuoted(list []string) string {
	s := ""
	for i, v := range list {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(v)
	}
	return s
}

// listen reads the server's own stream (an HTTP GET) for notifications until ctx ends; a
// server without one (405) or a stream that fails is left alone: list changes then come
// only with the answers to calls.
func (c *client) listen(ctx loop.Context) {
	resp, err := c.t.Do(ctx, c.request("GET", nil, "text/event-stream"))
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.Status != 200 || !strings.Contains(resp.Header["content-type"], "text/event-stream") {
		return
	}
	sse.Read(resp.Body, maxMessage, func(data []byte) error {
		c.message(data, 0, nil)
		return nil
	})
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

// notify sends a notification; the server answers 202 with no body.
func (c *client) notify(ctx loop.Context, method string, params []byte) error {
	b := append([]byte(`{"jsonrpc":"2.0","method":`), strconv.Quote(method)...)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	resp, err := c.t.Do(ctx, c.request("POST", append(b, '}'), "application/json, text/event-stream"))
	if err != nil {
		return c.unreachable(ctx, method, err)
	}
	resp.Body.Close()
	if resp.Status/100 != 2 {
		return c.errorf(session.KindNetwork, "answered HTTP %d to %s", resp.Status, method)
	}
	return nil
}

// unreachable is the error of a request for method that got no response.
func (c *client) unreachable(ctx loop.Context, method string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if method == "initialize" {
		return c.errorf(session.KindNetwork, "could not be reached: %v", err)
	}
	return c.errorf(session.KindNetwork, "%s failed: %v", method, err)
}

// errStop stops reading a stream once the answer has come.
var errStop = errors.New("answered")

// call sends a request and returns its result, decoded. Messages that come with the
// answer (progress, list changes) go to message; progress, when not nil, gets this
// request's notifications/progress params. When ctx ends first, the server is told with
// notifications/cancelled.
func (c *client) call(ctx loop.Context, method string, params []byte, progress func(json.RawMessage)) (any, error) {
	return c.callID(ctx, c.nextID.Add(1), method, params, progress)
}

// callID is call with the request's id chosen by the caller.
func (c *client) callID(ctx loop.Context, id int64, method string, params []byte, progress func(json.RawMessage)) (any, error) {
	b := strconv.AppendInt(append([]byte(nil), `{"jsonrpc":"2.0","id":`...), id, 10)
	b = append(append(b, `,"method":`...), strconv.Quote(method)...)
	if params != nil {
		b = append(append(b, `,"params":`...), params...)
	}
	b = append(b, '}')
	// The server has Timeout to answer or to say anything (progress) from one message to
	// the next: a server that falls silent fails the call, the loop going on.
	rctx, cancel := loop.WithCancel(ctx)
	defer cancel()
	var silent atomic.Bool
	timer := time.AfterFunc(c.timeout(), func() { silent.Store(true); cancel() })
	res, err := c.exchange(rctx, method, b, id, progress, func() { timer.Reset(c.timeout()) })
	timer.Stop()
	if rctx.Err() != nil && method != "initialize" {
		// The request may be running on the server: tell it, on a context of its own.
		cancelled := strconv.AppendInt([]byte(`{"requestId":`), id, 10)
		go c.notify(loop.Background(), "notifications/cancelled", append(cancelled, `,"reason":"the request was aborted"}`...))
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if silent.Load() {
		return nil, c.errorf(session.KindNetwork, "did not answer %s within %d ms", method, c.timeout().Milliseconds())
	}
	return res, err
}

// DefaultTimeout is how long a server may stay silent during a request (mcpServers'
// timeout when the page gives none).
const DefaultTimeout = 60 * time.Second

func (c *client) timeout() time.Duration {
	if c.srv.Timeout > 0 {
		return c.srv.Timeout
	}
	return DefaultTimeout
}

func (c *client) exchange(ctx loop.Context, method string, body []byte, id int64, progress func(json.RawMessage), touch func()) (any, error) {
	resp, err := c.t.Do(ctx, c.request("POST", body, "application/json, text/event-stream"))
	if err != nil {
		return nil, c.unreachable(ctx, method, err)
	}
	defer resp.Body.Close()
	if method == "initialize" {
		if sid := resp.Header["mcp-session-id"]; sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	if resp.Status == 404 && c.sessionID != "" && method != "initialize" {
		return nil, c.errorf(session.KindNetwork, "ended the MCP session (HTTP 404)")
	}
	if resp.Status/100 != 2 {
		return nil, c.errorf(session.KindNetwork, "answered HTTP %d to %s", resp.Status, method)
	}
	var res any
	var rpcErr error
	answered := false
	handle := func(data []byte) error {
		touch()
		if c.message(data, id, progress) {
			return nil
		}
		answered = true
		res, rpcErr = c.answer(data, method)
		return errStop
	}
	if strings.Contains(resp.Header["content-type"], "text/event-stream") {
		_, err = sse.Read(resp.Body, maxMessage, handle)
	} else {
		var data []byte
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		if err == nil && len(data) > maxMessage {
			err = errors.New("the answer is larger than 4 MB")
		}
		if err == nil {
			err = handle(data)
		}
	}
	if answered {
		return res, rpcErr
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && err != errStop {
		if err.Error() == "bufio.Scanner: token too long" {
			err = errors.New("an event is larger than 4 MB")
		}
		return nil, c.errorf(session.KindNetwork, "%s failed: %v", method, err)
	}
	return nil, c.errorf(session.KindNetwork, "ended the stream without answering %s", method)
}

// message handles one message of a server that is not the answer to request id: progress
// of that request, list changes; it reports false when data is that answer (or not a
// message at all: answer then says so).
func (c *client) message(data []byte, id int64, progress func(json.RawMessage)) bool {
	v, err := jsonv.Decode(data)
	obj, _ := v.(map[string]any)
	if err != nil || obj == nil {
		return false
	}
	method, _ := obj["method"].(string)
	if method == "" {
		return !numberIs(obj["id"], id) // a response: to this request, or to another (skipped)
	}
	if _, isRequest := obj["id"]; isRequest {
		return true // a request of the server's (ping, sampling): this client offers none
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
			progress(b)
		}
	default:
		if c.onNotify != nil {
			c.onNotify(method)
		}
	}
	return true
}

func numberIs(v any, id int64) bool {
	n, ok := v.(json.Number)
	return ok && string(n) == strconv.FormatInt(id, 10)
}

// answer reads the JSON-RPC response data: its result, or its error as an error.
func (c *client) answer(data []byte, method string) (any, error) {
	v, err := jsonv.Decode(data)
	obj, _ := v.(map[string]any)
	if err != nil || obj == nil {
		return nil, c.errorf(session.KindOperation, "answered %s with malformed JSON-RPC", method)
	}
	if e, ok := obj["error"].(map[string]any); ok {
		msg, _ := e["message"].(string)
		code, _ := e["code"].(json.Number)
		return nil, c.errorf(session.KindOperation, "%s failed: %s (JSON-RPC error %s)", method, msg, string(code))
	}
	res, ok := obj["result"]
	if !ok {
		return nil, c.errorf(session.KindOperation, "answered %s with malformed JSON-RPC (no result)", method)
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
