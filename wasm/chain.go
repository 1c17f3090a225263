package wasm

import (
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/chain"
	"langmodel/session"
)

// newChain builds {kind: "chain", backends} (loop/chain): each member as the backend it
// is, its secrets joining the redactor as any backend's do. A member js/ found
// unavailable when the session was created (a browser without its model, a GGUF not
// downloaded) crosses as null: it is left out, and the others keep their index. A
// member's bad field is a TypeError naming it in the chain (backend.backends[1].baseURL);
// chains do not nest.
func (h *Handler) newChain(obj map[string]any) (loop.Model, error) {
	list, _ := obj["backends"].([]any)
	if len(list) == 0 {
		return nil, badBackend("backend.backends must be a non-empty array of backends")
	}
	m := &chain.Model{}
	for i, v := range list {
		at := "backend.backends[" + strconv.Itoa(i) + "]"
		if v == nil {
			continue // left out by js/
		}
		if o, ok := v.(map[string]any); ok && o["kind"] == "chain" {
			return nil, badBackend(at + " is a chain: chains do not nest")
		}
		raw, _ := jsonv.Marshal(v) // decoded JSON: it encodes
		member, err := h.newModel(raw)
		if e, ok := err.(*session.Error); ok {
			c := *e
			if strings.Contains(e.Msg, "backend.") {
				c.Msg = strings.Replace(e.Msg, "backend.", at+".", 1)
			} else {
				c.Msg = strings.Replace(e.Msg, ": ", ": "+at+": ", 1)
			}
			return nil, &c
		}
		if err != nil {
			return nil, err
		}
		m.Members = append(m.Members, member)
		m.Index = append(m.Index, i)
	}
	if len(m.Members) == 0 {
		return nil, session.Errorf(session.KindNotSupported, errBadBackend, "no backend of the chain is available")
	}
	return m, nil
}
