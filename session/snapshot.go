package session

import "slices"

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
	err := h.AppendInitial(slices.Clip(msgs[:initial]))
	for _, m := range msgs[initial:] {
		if err != nil {
			break
		}
		if r := m.Result(); r != nil && !r.Unpaired && !h.IsPending(r.CallID) {
			m = UnpairedMessage(*r)
		}
		err = h.append(m, true)
	}
	if err == nil && h.usage > h.window {
		err = h.initialTooLong(h.usage)
	}
	if err != nil {
		*h = History{window: h.window, base: h.base, usage: h.base}
		return err
	}
	if usage > 0 {
		h.Calibrate(usage)
	}
	return nil
}
