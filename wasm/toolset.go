package wasm

import "langmodel/session"

// setTools handles a tools message: the session's tools change from its next model
// step on (loop/toolset.go), and calls to the new ones run the execute the page stored
// for them. A set that session.ParseTools refuses, or one for no session, is dropped.
// The MCP servers' tools are named against the new set (mcp.Set's rule): a WebMCP tool
// registered after create() keeps its name, and a server's tool of the same name is
// renamed.
//
// An approvals message (typ TypeApprovals) gives the session's remembered decisions the
// same way (loop/approvals.go): each the declaration approve was shown, source with it
// (session.ParseTools reads it).
// A set that does not read as declarations is dropped whole: the session then remembers
// none, and asks.
func (h *Handler) setTools(raw *message, typ string) {
	var m ToolsMessage
	if !h.decodeRequest(raw, 0, typ, &m) {
		return
	}
	e := h.sessions[m.Session]
	if e == nil || e.tools == nil {
		return
	}
	v, err := decodeOptional(m.Tools)
	if err != nil {
		return
	}
	tools, err := session.ParseTools(v, true)
	if typ == TypeApprovals {
		if err != nil {
			tools = nil
		}
		e.s.SetApproved(tools)
		return
	}
	if err != nil {
		return
	}
	// Tools removed keep their execute: a call of the step under way still reaches it
	// (and the face answers that the tool is no longer available).
	fns := executeIDs(v)
	sourced(tools, fns)
	e.tools.fnsMu.Lock()
	for name, id := range e.tools.fns {
		if _, ok := fns[name]; !ok {
			fns[name] = id
		}
	}
	e.tools.fns = fns
	e.tools.own = tools
	e.tools.fnsMu.Unlock()
	if e.tools.mcp != nil { // the servers' tools stay (mcp.go), named against the new set
		tools, _ = e.tools.mcp.Tools(tools)
	}
	e.s.SetTools(tools)
}

func (m *ToolsMessage) field(key string, v value) error {
	switch key {
	case "type":
		return v.str(&m.Type)
	case "session":
		return v.int64(&m.Session)
	case "tools":
		return v.raw(&m.Tools)
	}
	return nil
}
