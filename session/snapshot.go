package session

import "slices"

// Interrupted is the tool error given, when a saved session is restored, to a call whose
// execute was running when the session was saved: the page that ran it is gone, and its
// result with it (docs/snapshots.md).
const Interrupted = "the conversation was interrupted (the page was closed or reloaded) while this tool call ran; it has no result"

// Restore fills an empty history with a saved transcript: msgs[:initial] become its
// initial prompts (never evicted), the rest the conversation, in which every tool call
// counts as the session's model's (MadeByModel). usage, when above 0, is the saved
// context usage (the backend's own count, when it gave one). On error h is left empty.
// The history may keep msgs: the caller gives them up.
func (h *History) Restore(msgs []Message, initial, usage int) error {
	if len(h.msgs) != 0 || initial < 0 || initial > len(msgs) {
		return Errorf(KindData, ErrBadMessage, "snapshot: %d initial prompts in a history of %d messages", initial, len(msgs))
	}
	mark := h.Mark()
	if err := h.AppendInitial(slices.Clip(msgs[:initial])); err != nil {
		return err
	}
	for _, m := range msgs[initial:] {
		var err error
		if c := m.Call(); c != nil {
			err = h.AppendModelCall(*c)
		} else {
			if r := m.Result(); r != nil && !r.Unpaired && !h.IsPending(r.CallID) {
				m = UnpairedMessage(*r)
			}
			err = h.Append(m)
		}
		if err != nil {
			h.Reset(mark)
			h.ids = nil
			return err
		}
	}
	if h.usage > h.window {
		h.Reset(mark)
		h.ids = nil
		return h.initialTooLong(h.usage)
	}
	if usage > 0 {
		h.Calibrate(usage)
	}
	return nil
}

// AnswerCalls answers the unanswered calls among ids with a tool error saying why, and
// returns how many it answered.
func (h *History) AnswerCalls(ids []string, reason string) int {
	n := 0
	for _, c := range slices.Clone(h.pending) {
		if slices.Contains(ids, c.CallID) {
			_ = h.Append(ResultMessage(ErrorResult(c, reason))) // answers a pending call: cannot fail
			n++
		}
	}
	return n
}
