package wasm

import (
	"langmodel/internal/jsonv"
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
	// Usage holds the saved session.usage (snapshot version 2; absent before).
	Totals loop.Totals `json:"-"`
	// Running holds the ids of the calls whose execute was running when the snapshot
	// was taken, as the keys of an object ({callID: true, …}).
	Running []string `json:"running,omitempty"`
	// active names tool search's active set, a JSON array (snapshot version 4; absent
	// before).
	active jsonv.RawMessage
}

func (m *RestoreInfo) field(key string, v value) error {
	switch key {
	case "initial":
		return v.int(&m.Initial)
	case "usage":
		return v.int(&m.Usage)
	case "totals":
		return v.object((*totals)(&m.Totals))
	case "running":
		m.Running = nil
		return v.object((*callIDs)(&m.Running))
	case "active":
		return v.raw(&m.active)
	}
	return nil
}

// totals reads a saved session.usage.
type totals loop.Totals

func (t *totals) field(key string, v value) error {
	switch key {
	case "inputTokens":
		return v.int(&t.InputTokens)
	case "outputTokens":
		return v.int(&t.OutputTokens)
	case "steps":
		return v.int(&t.Steps)
	case "estimatedSteps":
		return v.int(&t.Estimated)
	case "cachedTokens":
		return v.int(&t.CachedTokens)
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
	saved := loop.Saved{Messages: opts.InitialPrompts, Initial: r.Initial, Usage: r.Usage, Running: r.Running, Totals: r.Totals}
	if r.active != nil {
		d, _ := decodeOptional(r.active)
		saved.Active = toolNames(d)
	}
	if raw, ok := saved.Messages.(jsonv.RawMessage); ok && len(raw) == 0 {
		saved.Messages = nil
	}
	return loop.Restore(opts, saved)
}
