package wasm

import (
	"errors"
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/loop/mcp"
	"langmodel/session"
)

// MCP servers as tool sources: create({mcpServers: [{url, headers, name}]}) connects to
// each server (loop/mcp, through the page's fetch: pageFetch) before the session exists,
// and the servers' tools join the page's. A session and its clones share the connections
// (mcp.Set), closed when the last of them is destroyed. The page's tools (its own and
// its WebMCP tools) keep their names; a server's tool whose name another tool of the
// session has is declared as "<name>__<tool>" (mcp.Set), whenever the session's tools
// are put together again.
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
// headers?, name?, timeout?, trusted?}, url http(s):// or a path of the page's origin,
// names unique (default "mcp1", "mcp2"…, by position), timeout the milliseconds a server
// may stay silent in a request (mcp.DefaultTimeout when absent), trusted true when the
// page vouches for the server's output (by default it reaches the model framed as
// untrusted content, as a third party's words), unannotated "readOnly" when it vouches
// that the server's tools without annotations change nothing (by default they are
// destructive, as MCP defines them: they need approve), secretParams the URL's query
// parameters that are credentials beyond those named so, maxCallTime the milliseconds one
// tools/call may take in all, however much progress the server reports
// (mcp.DefaultMaxCallTime when absent).
func mcpServers(raw jsonv.RawMessage) ([]mcp.Server, error) {
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
		if redact.HasUserInfo(s.URL) { // fetch refuses it; its credential goes in headers
			return nil, badServer(at + ".url must not hold credentials (user:password@ before the host); give them in headers (Authorization)")
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
				s.Header[jsonv.LowerASCIIString(k)] = str
			}
		}
		if v, present := obj["trusted"]; present && v != nil {
			if s.Trusted, ok = v.(bool); !ok {
				return nil, badServer(at + ".trusted must be a boolean")
			}
		}
		if v, present := obj["secretHeaders"]; present && v != nil {
			if s.SecretHeaders, err = headerNames(v); err != nil {
				return nil, badServer(at + ".secretHeaders must be an array of header names")
			}
		}
		if v, present := obj["unannotated"]; present && v != nil {
			switch v {
			case "destructive":
			case mcp.UnannotatedReadOnly:
				s.Unannotated = mcp.UnannotatedReadOnly
			default:
				return nil, badServer(at + `.unannotated must be "destructive" or "readOnly"`)
			}
		}
		if v, present := obj["secretParams"]; present && v != nil {
			if s.SecretParams, err = headerNames(v); err != nil {
				return nil, badServer(at + ".secretParams must be an array of query parameter names")
			}
		}
		if v, present := obj["maxCallTime"]; present && v != nil {
			n, _ := v.(jsonv.Number)
			ms, err := strconv.ParseFloat(string(n), 64)
			if err != nil || !(ms > 0 && ms < 1e12) {
				return nil, badServer(at + ".maxCallTime must be a positive number of milliseconds")
			}
			s.MaxCallTime = loop.Duration(ms * float64(loop.Millisecond))
		}
		if v, present := obj["timeout"]; present && v != nil {
			n, _ := v.(jsonv.Number)
			ms, err := strconv.ParseFloat(string(n), 64)
			if err != nil || !(ms > 0 && ms < 1e12) {
				return nil, badServer(at + ".timeout must be a positive number of milliseconds")
			}
			s.Timeout = loop.Duration(ms * float64(loop.Millisecond))
		}
		out = append(out, s)
	}
	return out, nil
}

// connectMCP connects the servers of a create() request on a goroutine of its own, then
// finishes the creation in order with the page's messages (finish). The request's abort
// stops the connecting.
func (h *Handler) connectMCP(id int64, servers []mcp.Server, opts loop.Options, pt *pageTools, finish func(loop.Options)) {
	ctx, cancel := h.track(id)
	go func() {
		set, err := mcp.Connect(ctx, &pageFetch{h: h}, servers)
		h.untrack(id, cancel)
		var tools []session.Tool
		if err == nil {
			if tools, err = set.Tools(opts.Tools); err != nil {
				set.Release(0)
				set = nil
			}
		}
		ok := h.post(inItem{fn: func() {
			if err != nil {
				h.replyErr(id, err)
				return
			}
			pt.mcp, pt.own = set, opts.Tools
			opts.Tools = tools
			finish(opts)
		}})
		if !ok && set != nil {
			set.Release(0)
		}
	}()
}

// followMCP keeps the session's tools the page's and the servers' as the servers' change,
// named over them all again (mcp.Set's rule).
func (e *entry) followMCP() {
	pt := e.tools
	if pt == nil || pt.mcp == nil {
		return
	}
	s := e.s
	pt.mcp.Follow(e.key, func() {
		pt.fnsMu.Lock()
		own := pt.own
		pt.fnsMu.Unlock()
		tools, _ := pt.mcp.Tools(own) // a tool whose name is taken is left out
		s.SetTools(tools)
	})
}

// release lets go of the session's MCP servers (the last session closes them).
func (e *entry) release() {
	if e.tools != nil && e.tools.mcp != nil {
		e.tools.mcp.Release(e.key)
	}
}

// toolInfo is the declaration that will run, for the page's approve: {name, description,
// inputSchema, annotations, source}, source {kind: "page"|"webmcp"|"mcp", name, origin}
// (an MCP server's name and origin; the face fills in the page's origin for a server
// given as a path).
func toolInfo(t *session.Tool) jsonv.RawMessage {
	b := jsonv.AppendString(append([]byte(nil), `{"name":`...), t.Name)
	b = jsonv.AppendString(append(b, `,"description":`...), t.Description)
	b = append(append(b, `,"inputSchema":`...), t.InputSchema...)
	b = append(b, `,"annotations":`...)
	a, _ := t.Annotations.MarshalJSON() // cannot fail
	b = jsonv.AppendString(append(append(b, a...), `,"source":{"kind":`...), t.Source.Kind)
	if t.Source.Kind == session.SourceMCP {
		b = jsonv.AppendString(append(b, `,"name":`...), t.Source.Server)
		b = jsonv.AppendString(append(b, `,"origin":`...), t.Source.Origin)
	}
	return append(b, "}}"...)
}
