package session

// Interrupted is the tool error given, when a saved session is restored, to a call whose
// execute was running when the session was saved: the page that ran it is gone, and its
// result with it (docs/snapshots.md).
const Interrupted = "interrupted: the page was closed or reloaded while this tool call ran"

// Restore fills an empty history with a saved transcript: msgs[:initial] become its
// initial prompts (never evicted), the rest the conversation, in which every tool call
// counts as the session's model's (MadeByModel). usage, when above 0, is the saved
// context usage (the backend's own count, when it gave one). On error h is left empty.
// The history may keep msgs: the caller gives them up.
func (h *History) Restore(msgs []Message, initial, usage int) error {
	if len(h.msgs) != 0 || initial < 0 || initial > len(msgs) {
		return Errorf(KindData, ErrBadMessage, "snapshot: %d initial prompts in %d messages", initial, len(msgs))
	}
	// As initial prompts (the fast path of a long text history), then the rest becomes
	// the conversation again.
	if err := h.AppendInitial(msgs); err != nil {
		return err
	}
	h.nInitial = initial
	for _, m := range h.msgs[initial:] {
		if c := m.Call(); c != nil {
			h.noteCallID(c.CallID, true)
		}
	}
	if usage > 0 {
		h.Calibrate(usage)
	}
	return nil
}
