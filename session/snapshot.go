package session

// Interrupted is the tool error given, when a saved session is restored, to a call whose
// execute was running when the session was saved: the page that ran it is gone, and its
// result with it (docs/snapshots.md).
const Interrupted = "interrupted: the page was closed or reloaded while this tool call ran"

// Restored makes a history that holds a saved transcript as initial prompts (read by
// AppendInitial) the history that was saved: only its first initial messages stay
// initial prompts (never evicted), every tool call after them counts as the session's
// model's (MadeByModel), and usage, when above 0, is the saved context usage (the
// backend's own count, when it gave one).
func (h *History) Restored(initial, usage int) error {
	if initial < 0 || initial > h.nInitial {
		return Errorf(KindData, ErrBadMessage, "snapshot: %d initial prompts in %d messages", initial, len(h.msgs))
	}
	h.nInitial = initial
	for _, m := range h.msgs[initial:] {
		if c := m.Call(); c != nil {
			h.noteCallID(c.CallID, true)
		}
	}
	h.Calibrate(usage)
	return nil
}
