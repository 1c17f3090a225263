package wasm

import "langmodel/session"

// setApprovals handles an approvals message: the session's remembered decisions
// (loop/approvals.go), given whole, each the declaration approve was shown (toolInfo,
// source with it). An entry that does not read as a declaration is left out: it could
// match no tool the session will ever run, since every tool it runs read as one. One for
// no session is dropped.
func (h *Handler) setApprovals(raw *message) {
	var m ToolsMessage
	if !h.decodeRequest(raw, 0, TypeApprovals, &m) {
		return
	}
	e := h.sessions[m.Session]
	if e == nil {
		return
	}
	v, _ := decodeOptional(m.Tools)
	arr, _ := v.([]any)
	approved := make(map[string]*session.Tool, len(arr))
	for _, d := range arr {
		tools, err := session.ParseTools([]any{d}, true)
		if err != nil {
			continue
		}
		t := &tools[0]
		src, _ := d.(map[string]any)["source"].(map[string]any) // ParseTools took d as an object
		t.Source.Kind, _ = src["kind"].(string)
		t.Source.Server, _ = src["name"].(string)
		t.Source.Origin, _ = src["origin"].(string)
		approved[t.Name] = t
	}
	e.s.SetApproved(approved)
}
