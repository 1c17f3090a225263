package wasm

import (
	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/chain"
)

// newChain builds {kind: "chain", backends} (loop/chain): each member as the backend it
// is, its secrets joining the redactor as any backend's do. A member js/ found
// unavailable when the session was created (a browser without its model, a GGUF not
// downloaded, a kind this build does not know) crosses as null: it is left out, and the
// others keep their index. js/chain.js checks the members first (each answers
// availability()), naming a bad one in the chain; a chain in a chain is refused there.
func (h *Handler) newChain(obj map[string]any) (loop.Model, error) {
	list, _ := obj["backends"].([]any)
	m := &chain.Model{Members: make([]loop.Model, len(list))}
	n := 0
	for i, v := range list {
		if v != nil { // else left out by js/
			raw, _ := jsonv.Marshal(v) // decoded JSON: it encodes
			member, err := h.newModel(raw)
			if err != nil {
				return nil, err
			}
			m.Members[i] = member
			n++
		}
	}
	if n == 0 {
		return nil, badBackend("backend.backends must be a non-empty array of backends")
	}
	return m, nil
}
