package wasm

import (
	"encoding/json"

	"langmodel/loop"
)

// RestoreInfo is what a create request carries beside a saved transcript (its
// initialPrompts) to continue it: LanguageModel.restore() (js/snapshot.js,
// docs/snapshots.md). The snapshot's format, its version and its tools are the face's to
// check; the engine restores the transcript.
type RestoreInfo struct {
	// Initial is how many of the messages were initial prompts.
	Initial int `json:"initial"`
	// Usage is the saved contextUsage.
	Usage int `json:"usage"`
	// Running holds the ids of the calls whose execute was running when the snapshot
	// was taken, as the keys of an object ({callID: true, …}).
	Running []string `json:"running,omitempty"`
}

func (m *RestoreInfo) field(key string, v value) error {
	switch key {
	case "initial":
		return v.int(&m.Initial)
	case "usage":
		return v.int(&m.Usage)
	case "running":
		m.Running = nil
		return v.object((*callIDs)(&m.Running))
	}
	return nil
}

// callIDs reads an object's keys: running is {callID: true, …}, which walk reads
// without a decoder of arrays.
type callIDs []string

func (l *callIDs) field(key string, _ value) error {
	*l = append(*l, key)
	return nil
}

// restore creates the session a snapshot saved: opts.InitialPrompts is its transcript.
func restore(opts loop.Options, r *RestoreInfo) (*loop.Session, error) {
	saved := loop.Saved{Messages: opts.InitialPrompts, Initial: r.Initial, Usage: r.Usage, Running: r.Running}
	if raw, ok := saved.Messages.(json.RawMessage); ok && len(raw) == 0 {
		saved.Messages = nil
	}
	return loop.Restore(opts, saved)
}
