package loop

import "langmodel/session"

// Approvals remembered (docs/security.md "Approvals remembered"): when approve answers
// {allow: "always"}, the page's face keeps the declaration it was shown and gives the
// session its remembered decisions whole (SetApproved); revoking one, a clone and a
// restore give them too. The face keeps them because approve runs there and a snapshot
// and session.approvals read them synchronously; the rule of when one applies is the
// loop's: a remembered yes answers a call without asking only when the tool that will run
// declares exactly what was allowed (session.Tool.SameDeclaration): a changed
// description, schema or annotation, another source, another MCP server, asks again.

// SetApproved replaces the session's remembered decisions: the declarations the user
// allowed always, one per name. nil forgets them all. Safe from any goroutine; a call
// whose approval is being decided as it changes is decided by the set before or after.
func (s *Session) SetApproved(tools []session.Tool) {
	s.approved.Store(&tools)
}

// remembered reports whether the user allowed t always, as it is declared now. Nothing
// remembered costs one atomic load.
func (s *Session) remembered(t *session.Tool) bool {
	if p := s.approved.Load(); p != nil {
		for i := range *p {
			if (*p)[i].SameDeclaration(t) {
				return true
			}
		}
	}
	return false
}
