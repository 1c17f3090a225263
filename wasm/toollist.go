package wasm

import (
	"strconv"

	"langmodel/loop"
)

// toolList answers a tool-list request (session.listTools(), docs/chat-ui.md "A
// session's tools"): the session's tools as approve is shown them (toolInfo: name,
// description, inputSchema, annotations, source with an MCP server's name and origin,
// never its headers), each with active: whether the model is offered it now (false only
// for a tool that tool search keeps out of the active set). Only the engine knows the
// MCP servers' tools and the active set; the page asks, so no step pays for it.
func toolList(s *loop.Session) []byte {
	tools, active := s.Listed()
	b := append(make([]byte, 0, 64*len(tools)+2), '[')
	for i := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		info := toolInfo(&tools[i])
		on := active == nil
		for j := 0; !on && j < len(active); j++ {
			on = active[j].Name == tools[i].Name
		}
		b = strconv.AppendBool(append(append(b, info[:len(info)-1]...), `,"active":`...), on)
		b = append(b, '}')
	}
	return append(b, ']')
}
