package mcp

import (
	"strconv"
	"strings"
	"sync"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/session"
)

// Set is the MCP servers of one session and its clones: their connections, and their
// tools as each server listed them last. It is shared by the session and its clones
// (Retain) and closed when the last lets go (Release).
//
// Names (Tools): the page's tools and its WebMCP tools keep their names; a server's tool
// keeps its own, unless another tool of the session has it (one of the page's, one of its
// WebMCP tools, or another server's): then it is declared "<server name>__<tool name>",
// for every server that has it. Names are resolved whenever the session's tools are put
// together (at create(), when a server re-lists, when WebMCP's tools change), over every
// source at once, strictly in the order page, WebMCP, servers by position: a name an
// earlier source holds (its own or its renamed one) is never given to a later one, whose
// tool is renamed again instead (Tools).
//
// Routes: each declaration carries its route (session.Tool's Source: the server and the
// server's own name for the tool), so a call goes where its declaration says, whatever
// the names mean by the time it runs; RunDeclared refuses it when the server no longer
// lists exactly that declaration (loop/policy.go).
type Set struct {
	clients []*client
	life    loop.Context // ends when the set closes: refreshes stop
	stop    loop.CancelFunc

	mu     sync.Mutex
	listed [][]session.Tool // per server: its tools under their own names, Source set
	busy   []chan struct{}  // per server: closed when its refresh under way ends; nil when none
	again  []bool           // per server: it said its tools changed during that refresh
	refs   int
	change map[int64]func() // per session key: told when a server's tools changed
}

// Connect connects to every server (initialize, then tools/list) and returns the set.
// A server that cannot be reached is a NetworkError naming its URL; a protocol revision
// the client does not speak, NotSupportedError; a tool whose declaration the session
// cannot take, TypeError.
func Connect(ctx loop.Context, t Transport, servers []Server) (*Set, error) {
	n := len(servers)
	s := &Set{refs: 1, change: make(map[int64]func()), listed: make([][]session.Tool, n), busy: make([]chan struct{}, n), again: make([]bool, n)}
	s.life, s.stop = loop.WithCancel(loop.Background())
	for i, srv := range servers {
		c := &client{t: t, srv: srv, set: s, index: i}
		s.clients = append(s.clients, c)
		if err := c.connect(ctx); err != nil {
			s.close()
			return nil, err
		}
	}
	for i := range s.clients {
		tools, err := s.list(ctx, i)
		if err != nil {
			s.close()
			return nil, err
		}
		s.listed[i] = tools
	}
	return s, nil
}

// changed marks server i's tools changed (notifications/tools/list_changed): it is
// listed again, alone, by one goroutine at a time; changes announced while that listing
// is under way make one more listing after it, however many they are.
func (s *Set) changed(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy[i] != nil {
		s.again[i] = true
		return
	}
	s.busy[i] = make(chan struct{})
	go s.refresh(i)
}

// refresh lists server i's tools until no change is pending, and tells the sessions
// after each listing. A listing that fails leaves the server's tools as they were.
func (s *Set) refresh(i int) {
	for {
		tools, err := s.list(s.life, i)
		s.mu.Lock()
		if err == nil {
			s.listed[i] = tools
		}
		done := s.busy[i]
		s.busy[i] = nil
		if s.again[i] && s.life.Err() == nil {
			s.again[i] = false
			s.busy[i] = make(chan struct{})
		}
		fns := make([]func(), 0, len(s.change))
		for _, f := range s.change {
			fns = append(fns, f)
		}
		more := s.busy[i] != nil
		s.mu.Unlock()
		if err == nil {
			for _, f := range fns {
				f()
			}
		}
		close(done)
		if !more {
			return
		}
	}
}

// settle waits, until ctx ends, for server i's refresh under way and the one pending
// after it, if any: a change the server announced during a call is then in place before
// the loop's next model step. It waits for no more than those two, however many
// changes a server announces.
func (s *Set) settle(ctx loop.Context, i int) {
	for n := 0; n < 2; n++ {
		s.mu.Lock()
		ch := s.busy[i]
		s.mu.Unlock()
		if ch == nil {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// list lists server i's tools and reads them as declarations under their own names.
func (s *Set) list(ctx loop.Context, i int) ([]session.Tool, error) {
	c := s.clients[i]
	l, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	decls := make([]any, 0, len(l))
	for _, raw := range l {
		obj, _ := raw.(map[string]any)
		if obj == nil {
			obj = map[string]any{} // refused by ParseTools: no name
		}
		decls = append(decls, declaration(obj, &c.srv))
	}
	tools, err := session.ParseTools(decls, false)
	if err != nil {
		return nil, &session.Error{Kind: session.KindOf(err), Rule: session.ErrBadTool, Msg: c.secrets().String("MCP server " + redact.ShowURL(c.srv.URL) + ": " + err.Error())}
	}
	src := session.Source{Kind: session.SourceMCP, Server: c.srv.Name, Origin: origin(c.srv.URL), Fn: int64(i)}
	for j := range tools {
		tools[j].Source = src
		tools[j].Source.Ref = tools[j].Name
	}
	return tools, nil
}

// origin is the scheme and host of url, never its user-info; "" for a path on the page's
// own origin.
func origin(url string) string {
	url = redact.ShowURL(url)
	i := strings.Index(url, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexAny(url[i+3:], "/?#"); j >= 0 {
		return url[:i+3+j]
	}
	return url
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

// declaration is a server's tool t as create()'s tools take one, made of t itself (a
// tools/list entry decoded for this listing alone; session.ParseTools reads none of the
// other fields MCP gives a tool): run by the engine, its result an MCP CallToolResult,
// its title, annotations and inputSchema as the server gave them but for WebMCP's
// consequentialHint, which is the page's to give, and untrustedContentHint, which is true
// unless the page said the server is trusted (its output is a third party's words), and
// a description (the title or the name when it has none).
//
// MCP's defaults are made explicit, so that approve is shown them and the tool policy
// applies them: a tool that does not say readOnlyHint true is destructive unless it says
// destructiveHint false, and open-world unless it says openWorldHint false. A server the
// page vouches for (unannotated "readOnly") has its tools that say neither readOnlyHint
// nor destructiveHint read as read-only.
func declaration(t map[string]any, srv *Server) map[string]any {
	a, _ := t["annotations"].(map[string]any)
	if a == nil {
		a = map[string]any{} // a server's malformed annotations are ignored
	}
	delete(a, "consequentialHint")
	delete(a, "untrustedContentHint")
	for _, k := range []string{"readOnlyHint", "destructiveHint", "openWorldHint"} {
		if _, ok := a[k].(bool); !ok {
			delete(a, k) // not a boolean: not said
		}
	}
	_, ro := a["readOnlyHint"]
	_, de := a["destructiveHint"]
	if !ro && !de && srv.Unannotated == UnannotatedReadOnly {
		a["readOnlyHint"] = true
	}
	if a["readOnlyHint"] != true && !de {
		a["destructiveHint"] = true
	}
	if _, ok := a["openWorldHint"]; !ok {
		a["openWorldHint"] = true
	}
	trusted := srv.Trusted
	if !trusted {
		a["untrustedContentHint"] = true
	}
	t["annotations"] = a
	title, _ := t["title"].(string)
	if title == "" {
		title, _ = a["title"].(string)
	}
	desc, _ := t["description"].(string)
	if desc == "" {
		desc = title
	}
	if desc == "" {
		desc, _ = t["name"].(string)
	}
	t["description"], t["hasExecute"], t["mcpResult"] = desc, true, true
	return t
}

// Tools returns the session's tools: own (the page's and its WebMCP tools, in that
// order) then the servers' as they listed them last, named by the rule of Set, strictly
// by position: an earlier source's names, renamed or not, are never taken by a later
// one. A server's tool whose name another source also has is declared
// "<server>__<tool>"; one whose name (own or so made) an earlier source holds already is
// renamed again, "<server>__" before it, then "_2", "_3"… after it, until it is free.
// (A server that lists one name twice is refused when it lists: session.ParseTools.) err
// is always nil now; it stays for the callers, which fail create() with it.
func (s *Set) Tools(own []session.Tool) (tools []session.Tool, err error) {
	s.mu.Lock()
	listed := s.listed
	s.mu.Unlock()
	count := make(map[string]int)
	taken := make(map[string]bool, len(own))
	for _, t := range own {
		count[t.Name]++
		taken[t.Name] = true
	}
	for _, l := range listed {
		for _, t := range l {
			count[t.Name]++
		}
	}
	tools = append(tools, own...)
	for i, l := range listed {
		prefix := s.clients[i].srv.Name + "__"
		for _, t := range l {
			if count[t.Name] > 1 {
				t.Name = prefix + t.Name
			}
			if taken[t.Name] {
				t.Name = freeName(prefix+t.Name, taken)
			}
			taken[t.Name] = true
			tools = append(tools, t)
		}
	}
	return tools, err
}

// freeName is name, or name with "_2", "_3"… after it: the first that taken does not hold.
func freeName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for n := 2; ; n++ {
		if c := name + "_" + strconv.Itoa(n); !taken[c] {
			return c
		}
	}
}

// Run implements loop.ToolRunner for a call that comes without its declaration: it is
// refused, since a name alone says nothing of what was approved.
func (s *Set) Run(_ loop.Context, call session.ToolCall, _ func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	return nil, &session.Error{Kind: session.KindOperation, Rule: ErrServer, Msg: "MCP server: tool " + call.Name + " was called without its declaration; the call was not run"}
}

// RunDeclared implements loop.DeclaredRunner for the servers' tools: tools/call to the
// server and under the name the declaration's route says, with a progress token, whose
// notifications/progress become progress. Before the call goes out, the server must
// still list exactly that declaration: one it no longer offers, or offers changed (its
// annotations, schema or description), is refused, never run under a decision made about
// another. The result is the server's CallToolResult as one text part (the loop reads
// it: loop/policy.go). A server that failed, answered malformed JSON-RPC or too much, or
// a JSON-RPC error, is an error, which the loop gives the model as a tool error. When the
// server said during the call that its tools changed, they are listed again before
// RunDeclared returns, and the sessions get them from their next model step on.
func (s *Set) RunDeclared(ctx loop.Context, call session.ToolCall, tool *session.Tool, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	src := tool.Source
	i := int(src.Fn)
	if src.Kind != session.SourceMCP || i < 0 || i >= len(s.clients) {
		return s.Run(ctx, call, progress)
	}
	c := s.clients[i]
	var now *session.Tool
	s.mu.Lock()
	for j, t := range s.listed[i] {
		if t.Name == src.Ref {
			now = &s.listed[i][j]
		}
	}
	s.mu.Unlock()
	switch {
	case now == nil:
		return nil, c.fail(session.KindOperation, "no longer offers tool "+strconv.Quote(src.Ref)+" (called as "+call.Name+"); the call was not run")
	case !now.Same(tool):
		return nil, c.fail(session.KindOperation, "changed tool "+strconv.Quote(src.Ref)+" (called as "+call.Name+") since it was offered; the call was not run")
	}
	args := []byte(call.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	params := jsonv.AppendString(append([]byte(nil), `{"name":`...), src.Ref)
	params = append(append(params, `,"arguments":`...), args...)
	res, err := c.callWithProgress(ctx, params, progress)
	s.settle(ctx, i)
	if err != nil {
		return nil, err
	}
	return []session.ResultPart{{Type: "text", Text: c.result(res)}}, nil
}

// callWithProgress is tools/call, its progress token the request's own id.
func (c *client) callWithProgress(ctx loop.Context, params []byte, progress func(jsonv.RawMessage)) (any, error) {
	id := c.nextID.Add(1)
	params = append(params, `,"_meta":{"progressToken":`...)
	params = append(strconv.AppendInt(params, id, 10), `}}`...)
	return c.callID(ctx, id, "tools/call", params, progress)
}

// Follow calls f whenever a server's tools changed (Tools has them), for the session
// key, until Release.
func (s *Set) Follow(key int64, f func()) {
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
	s.stop()
	for _, c := range s.clients {
		c.close()
	}
}
