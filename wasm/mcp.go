package wasm

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/mcp"
	"langmodel/session"
)

// MCP servers as tool sources: create({mcpServers: [{url, headers, name}]}) connects to
// each server (loop/mcp, through the page's fetch: pageFetch) before the session exists,
// and the servers' tools join the page's. A session and its clones share the connections
// (mcp.Set), closed when the last of them is destroyed. The page's tools keep their
// names; a server's tool whose name another tool of the session has is declared as
// "<name>__<tool>" (mcp.Set).
//
// headers may hold secrets (Authorization): they go into the server's requests and
// nowhere else; no message here echoes them.

var errBadServer = errors.New("invalid mcpServers")

// badServer is a TypeError of the option, "invalid mcpServers: <detail>" (the detail
// built by concatenation: formatting's boxed arguments cost code at every call).
func badServer(detail string) error {
	return &session.Error{Kind: session.KindType, Rule: errBadServer, Msg: "invalid mcpServers: " + detail}
}

// mcpServers reads the option: absent or null is none; otherwise an array of {url,
// headers?, name?, timeout?}, url http(s):// or a path of the page's origin, names unique
// (default "mcp1", "mcp2"…, by position), timeout the milliseconds a server may stay
// silent in a request (mcp.DefaultTimeout when absent).
func mcpServers(raw json.RawMessage) ([]mcp.Server, error) {
	v, err := decodeOptional(raw)
	if err != nil || v == nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, badServer("mcpServers must be an array of {url, headers, name}")
	}
	out := make([]mcp.Server, 0, len(arr))
	names := make(map[string]bool, len(arr))
	for i, e := range arr {
		at := "mcpServers[" + strconv.Itoa(i) + "]"
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, badServer(at + " must be an object {url, headers, name}")
		}
		s := mcp.Server{Name: "mcp" + strconv.Itoa(i+1)}
		s.URL, _ = obj["url"].(string)
		if !(strings.HasPrefix(s.URL, "http://") || strings.HasPrefix(s.URL, "https://") || strings.HasPrefix(s.URL, "/")) {
			return nil, badServer(at + ".url must be a string starting with http://, https:// or /")
		}
		if n, present := obj["name"]; present && n != nil {
			s.Name, _ = n.(string)
			if s.Name == "" {
				return nil, badServer(at + ".name must be a non-empty string")
			}
		}
		if names[s.Name] {
			return nil, badServer(at + ".name: two servers are named " + strconv.Quote(s.Name))
		}
		names[s.Name] = true
		if h, present := obj["headers"]; present && h != nil {
			m, ok := h.(map[string]any)
			if !ok {
				return nil, badServer(at + ".headers must be an object of strings")
			}
			s.Header = make(map[string]string, len(m))
			for k, v := range m {
				str, ok := v.(string)
				if !ok {
					return nil, badServer(at + ".headers: the value of " + strconv.Quote(k) + " must be a string")
				}
				s.Header[lowerASCII(k)] = str
			}
		}
		if v, present := obj["secretHeaders"]; present && v != nil {
			if s.SecretHeaders, err = headerNames(v); err != nil {
				return nil, badServer(at + ".secretHeaders must be an array of header names")
			}
		}
		if v, present := obj["timeout"]; present && v != nil {
			n, _ := v.(json.Number)
			ms, err := strconv.ParseFloat(string(n), 64)
			if err != nil || !(ms > 0 && ms < 1e12) {
				return nil, badServer(at + ".timeout must be a positive number of milliseconds")
			}
			s.Timeout = time.Duration(ms * float64(time.Millisecond))
		}
		out = append(out, s)
	}
	return out, nil
}

// connectMCP connects the servers of a create() request on a goroutine of its own, then
// finishes the creation in order with the page's messages (finish). The request's abort
// stops the connecting.
func (h *Handler) connectMCP(id int64, servers []mcp.Server, opts loop.Options, pt *pageTools, finish func(loop.Options)) {
	own := make(map[string]bool, len(opts.Tools))
	for _, t := range opts.Tools {
		own[t.Name] = true
	}
	ctx, done := h.track(id)
	go func() {
		set, err := mcp.Connect(ctx, &pageFetch{h: h}, servers, own)
		done()
		ok := h.post(inItem{fn: func() {
			if err != nil {
				h.replyErr(id, err)
				return
			}
			pt.mcp, pt.own = set, opts.Tools
			opts.Tools = append(opts.Tools[:len(opts.Tools):len(opts.Tools)], set.Tools()...)
			finish(opts)
		}})
		if !ok && set != nil {
			set.Release(0)
		}
	}()
}

// followMCP keeps the session's tools the page's and the servers' as the servers' change.
func (e *entry) followMCP() {
	pt := e.tools
	if pt == nil || pt.mcp == nil {
		return
	}
	s := e.s
	pt.mcp.Follow(e.key, func(tools []session.Tool) {
		pt.fnsMu.Lock()
		own := pt.own
		pt.fnsMu.Unlock()
		s.SetTools(append(own[:len(own):len(own)], tools...))
	})
}

// release lets go of the session's MCP servers (the last session closes them).
func (e *entry) release() {
	if e.tools != nil && e.tools.mcp != nil {
		e.tools.mcp.Release(e.key)
	}
}

// toolInfo is a tool's declaration for the page's approve: {name, description,
// inputSchema, annotations}.
func toolInfo(t *session.Tool) json.RawMessage {
	b := jsonv.AppendString(append([]byte(nil), `{"name":`...), t.Name)
	b = jsonv.AppendString(append(b, `,"description":`...), t.Description)
	b = append(append(b, `,"inputSchema":`...), t.InputSchema...)
	b = append(b, `,"annotations":`...)
	a, _ := t.Annotations.MarshalJSON() // cannot fail
	return append(append(b, a...), '}')
}
