package loop

import (
	"langmodel/internal/sfmt"
	"langmodel/session"
)

// keepResults appends one step's tool results and makes room for them. A tool's output
// is not the page's input: one result that cannot fit, even after eviction, must not end
// the prompt. So when the results do not fit, the largest one still kept is replaced by a
// tool error that tells the model its size, and the rest are tried again, until they fit
// (or none is left to replace, and the prompt fails with QuotaExceededError: what is left
// is then the page's input and the model's own call). The toolresult event has already
// shown what the tool returned; the history keeps what the model was given. See
// RATIONALE.md, "Why does an oversized tool result become a tool error?".
func (r *run) keepResults(results []session.ToolResult) error {
	h := r.s.hist
	mark := h.Mark()
	dropped := make([]bool, len(results))
	for {
		for _, res := range results {
			if err := h.Append(session.ResultMessage(res)); err != nil {
				return err
			}
		}
		err := r.fit()
		if err == nil || session.KindOf(err) != session.KindQuotaExceeded {
			return err
		}
		h.Reset(mark)
		big, cost := -1, 0
		for i, res := range results {
			if c := session.Cost(session.ResultMessage(res)); !dropped[i] && c > cost {
				big, cost = i, c
			}
		}
		if big < 0 {
			return err
		}
		res := results[big]
		results[big] = session.ErrorResult(session.ToolCall{CallID: res.CallID, Name: res.Name}, TooBigMessage(res.Name, cost, h.Window()))
		dropped[big] = true
	}
}

// TooBigMessage is the tool error that replaces a result of tokens (estimated) that did
// not fit in a context window of window.
func TooBigMessage(name string, tokens, window int) string {
	return sfmt.Sprintf("the result of %s was %d tokens, more than the context window (%d tokens) allows; it was dropped: ask for less, or answer without it", name, tokens, window)
}
