package mcp

import (
	"encoding/json"
	"strconv"
	"sync"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// Set is the MCP servers of one session and its clones: their connections, and their
// tools as the session declares them. It is shared by the session and its clones
// (Retain) and closed when the last lets go (Release).
//
// Names: a server's tool keeps its own name, unless another tool of the session has that
// name (one of the page's tools, or another server's): then it is declared as
// "<server name>__<tool name>", for every server that has it. The page's own tools are
// never renamed. Calls go back to the server under the tool's own name.
type Set struct {
	clients []*client
	own     map[string]bool // the page's tool names at create()

	refreshMu sync.Mutex // held while the tools are listed again

	mu     sync.Mutex
	tools  []session.Tool
	routes map[string]route // declared name → server and its name for the tool
	dirty  []bool           // a server said its tools changed since they were listed
	refs   int
	change map[int64]func([]session.Tool) // per session key: SetTools with the page's tools
}

type route struct {
	c    *client
	name string
}

// Connect connects to every server (initialize, then tools/list) and returns the set.
// own are the names of the page's tools. A server that cannot be reached is a
// NetworkError naming its URL; a protocol revision the client does not speak,
// NotSupportedError; a tool whose declaration the session cannot take, TypeError.
func Connect(ctx loop.Context, t Transport, servers []Server, own map[string]bool) (*Set, error) {
	s := &Set{own: own, refs: 1, change: make(map[int64]func([]session.Tool)), dirty: make([]bool, len(servers))}
	for i, srv := range servers {
		c := &client{t: t, srv: srv, set: s, index: i}
		s.clients = append(s.clients, c)
		if err := c.connect(ctx); err != nil {
			s.close()
			return nil, err
		}
	}
	err := s.list(ctx)
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// changed marks server i's tools changed (notifications/tools/list_changed) and lists
// them again on a goroutine of its own.
func (s *Set) changed(i int) {
	s.mu.Lock()
	s.dirty[i] = true
	s.mu.Unlock()
	go s.refresh(loop.Background())
}

// list lists every server's tools and declares them.
func (s *Set) list(ctx loop.Context) error {
	lists := make([][]any, len(s.clients))
	for i, c := range s.clients {
		l, err := c.list(ctx)
		if err != nil {
			return err
		}
		lists[i] = l
	}
	return s.declare(lists)
}

// list runs tools/list, page after page (nextCursor), within the bounds of a server's
// list (maxTools, maxListBytes, maxPages).
func (c *client) list(ctx loop.Context) ([]any, error) {
	var out []any
	var params []byte
	used := 0 // the bytes of the server's messages so far, all pages
	for page := 0; ; page++ {
		r := &reply{c: c, id: c.nextID.Add(1), method: "tools/list", used: used, budget: maxListBytes}
		res, err := c.ask(ctx, r, params)
		if err == errOverBudget {
			return nil, c.fail(session.KindOperation, "listed more than 1 MB of tools")
		}
		if err != nil {
			return nil, err
		}
		used = r.used
		obj, _ := res.(map[string]any)
		tools, ok := obj["tools"].([]any)
		if !ok {
			return nil, c.fail(session.KindOperation, "answered tools/list without a list of tools")
		}
		if len(out)+len(tools) > maxTools {
			return nil, c.fail(session.KindOperation, "offered more than 1000 tools")
		}
		out = append(out, tools...)
		cursor, _ := obj["nextCursor"].(string)
		if cursor == "" {
			return out, nil
		}
		if page == maxPages {
			return nil, c.fail(session.KindOperation, "tools/list did not end after 1000 pages")
		}
		params = jsonv.AppendString(append([]byte(nil), `{"cursor":`...), cursor)
		params = append(params, '}')
	}
}

// declare turns the servers' tool lists into the session's declarations and routes.
func (s *Set) declare(lists [][]any) error {
	count := make(map[string]int)
	for _, l := range lists {
		for _, raw := range l {
			obj, _ := raw.(map[string]any)
			name, _ := obj["name"].(string)
			count[name]++
		}
	}
	var decls []any
	routes := make(map[string]route)
	for i, l := range lists {
		c := s.clients[i]
		for _, raw := range l {
			obj, _ := raw.(map[string]any)
			name, _ := obj["name"].(string)
			as := name
			if s.own[name] || count[name] > 1 {
				as = c.srv.Name + "__" + name
			}
			if _, dup := routes[as]; dup || s.own[as] {
				return &session.Error{Kind: session.KindType, Rule: session.ErrBadTool,
					Msg: session.ErrBadTool.Error() + ": MCP server " + c.srv.URL + ": tool " + strconv.Quote(name) + " is declared twice under the name " + strconv.Quote(as)}
			}
			routes[as] = route{c: c, name: name}
			decls = append(decls, declaration(obj, as))
		}
	}
	tools, err := session.ParseTools(decls, false)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.tools, s.routes = tools, routes
	s.mu.Unlock()
	return nil
}

// declaration is a server's tool t as create()'s tools take one, made of t itself (a
// tools/list entry decoded for this listing alone; session.ParseTools reads none of the
// other fields MCP gives a tool): named as, run by the engine, its result an MCP
// CallToolResult, its title, annotations and inputSchema as the server gave them but
// for WebMCP's consequentialHint and untrustedContentHint, which are the page's to give,
// and a description (the title or the name when it has none).
func declaration(t map[string]any, as string) map[string]any {
	a, _ := t["annotations"].(map[string]any)
	if a == nil {
		delete(t, "annotations") // a server's malformed annotations are ignored
	}
	delete(a, "consequentialHint")
	delete(a, "untrustedContentHint")
	title, _ := t["title"].(string)
	if title == "" {
		title, _ = a["title"].(string)
	}
	desc, _ := t["description"].(string)
	if desc == "" {
		desc = title
	}
	if desc == "" {
		desc = as
	}
	t["name"], t["description"], t["hasExecute"], t["mcpResult"] = as, desc, true, true
	return t
}

// Tools returns the servers' tools as the session declares them now.
func (s *Set) Tools() []session.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Has reports whether name is one of the servers' tools.
func (s *Set) Has(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.routes[name]
	return ok
}

// Run implements loop.ToolRunner for the servers' tools: tools/call with a progress
// token, whose notifications/progress become progress. The result is the server's
// CallToolResult as one text part (the loop reads it: loop/policy.go). A server that
// failed, answered malformed JSON-RPC or too much, or a JSON-RPC error, is an error, which
// the loop gives the model as a tool error. When the server said during the call that its
// tools changed, they are listed again before Run returns, and the sessions get them from
// their next model step on.
func (s *Set) Run(ctx loop.Context, call session.ToolCall, progress func(json.RawMessage)) ([]session.ResultPart, error) {
	s.mu.Lock()
	r, ok := s.routes[call.Name]
	s.mu.Unlock()
	if !ok {
		return nil, &session.Error{Kind: session.KindOperation, Rule: ErrServer, Msg: "MCP server: tool " + call.Name + " is no longer offered by its MCP server"}
	}
	args := []byte(call.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	params := jsonv.AppendString(append([]byte(nil), `{"name":`...), r.name)
	params = append(append(params, `,"arguments":`...), args...)
	res, err := r.c.callWithProgress(ctx, params, progress)
	s.refresh(ctx)
	if err != nil {
		return nil, err
	}
	b, _ := jsonv.Marshal(res)
	return []session.ResultPart{{Type: "text", Text: r.c.redact(string(b))}}, nil
}

// callWithProgress is tools/call, its progress token the request's own id.
func (c *client) callWithProgress(ctx loop.Context, params []byte, progress func(json.RawMessage)) (any, error) {
	id := c.nextID.Add(1)
	params = append(params, `,"_meta":{"progressToken":`...)
	params = append(strconv.AppendInt(params, id, 10), `}}`...)
	return c.callID(ctx, id, "tools/call", params, progress)
}

// refresh lists the tools of every server that said they changed, and gives the sessions
// the new set.
// A call's Run waits for a refresh under way (refreshMu), so that a change the server
// announced during the call is in place before the loop's next model step.
func (s *Set) refresh(ctx loop.Context) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.Lock()
	changed := false
	for _, d := range s.dirty {
		changed = changed || d
	}
	if !changed {
		s.mu.Unlock()
		return
	}
	for i := range s.dirty {
		s.dirty[i] = false
	}
	s.mu.Unlock()
	if s.list(ctx) != nil {
		return // the session keeps the tools it has
	}
	s.mu.Lock()
	fns := make([]func([]session.Tool), 0, len(s.change))
	for _, f := range s.change {
		fns = append(fns, f)
	}
	tools := s.tools
	s.mu.Unlock()
	for _, f := range fns {
		f(tools)
	}
}

// Follow calls f with the servers' new tools whenever they change, for the session key,
// until Unfollow.
func (s *Set) Follow(key int64, f func([]session.Tool)) {
	s.mu.Lock()
	s.change[key] = f
	s.mu.Unlock()
}

// Retain counts one more session (a clone) sharing the set.
func (s *Set) Retain() {
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
}

// Release lets go of the set for session key; the last release closes every connection
// (DELETE of the MCP sessions the servers gave).
func (s *Set) Release(key int64) {
	s.mu.Lock()
	delete(s.change, key)
	s.refs--
	last := s.refs == 0
	s.mu.Unlock()
	if last {
		go s.close()
	}
}

func (s *Set) close() {
	for _, c := range s.clients {
		c.close()
	}
}
