package loop

import "langmodel/session"

// Tools that come and go: a tool source whose tools change while the session lives
// (WebMCP's toolchange, through the face) gives the session its new set with SetTools.
// The loop takes it at the start of a model step (takeTools), never in the middle of
// one, so that a step's calls are checked against the set the model was offered; the
// history stays as it is, naming each tool as it was when called. The tool mode follows
// the new set. The history's budget keeps the declarations' cost counted at creation.

// SetTools replaces the session's tools from its next model step on. tools must have
// passed session.ParseTools. Safe from any goroutine; the last set given wins.
func (s *Session) SetTools(tools []session.Tool) {
	s.toolsMu.Lock()
	s.nextTools = &tools
	s.toolsMu.Unlock()
}

// takeTools swaps in the tools SetTools left, if any. It runs in the queue, whose
// operation alone reads s.tools and s.mode; Tools() reads s.opts.Tools under toolsMu.
// The names of tools dropped are kept in s.gone, for the tool error a late call gets;
// a clone starts with none.
func (s *Session) takeTools() {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	next := s.nextTools
	if next == nil {
		return
	}
	s.nextTools = nil
	m := make(map[string]*session.Tool, len(*next))
	for i := range *next {
		m[(*next)[i].Name] = &(*next)[i]
	}
	if s.gone == nil {
		s.gone = make(map[string]bool)
	}
	for name := range s.tools {
		s.gone[name] = true // read only for names not in the set (runOne)
	}
	s.opts.Tools, s.tools = *next, m
	s.mode = modeOf(s.opts.Tools, s.opts.ToolUse)
	s.retool()
}
