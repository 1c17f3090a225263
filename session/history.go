package session

import (
	"slices"

	"langmodel/internal/order"
)

// History is a session's transcript in canonical form, with its context usage and the
// tool calls still waiting for a result. It keeps three promises:
//
//   - every tool result answers an earlier call that had none (Append checks it), unless
//     it is marked Unpaired (a response the page supplied for a call never made here);
//   - a mark taken before a prompt restores the transcript exactly (Mark, Reset), in O(1),
//     which is how a failed prompt leaves no trace;
//   - eviction never removes initial prompts and removes a call only with its results.
//
// Messages are shared, never copied, between a history, its marks and its clones; nothing
// modifies a Message once appended, and slices are clipped before they are shared, so an
// append in one never writes into another. A History is not safe for concurrent use: the
// loop serialises every operation of a session.
type History struct {
	msgs     []Message
	costs    []int // costs[i] = Cost(msgs[i])
	nInitial int   // msgs[:nInitial] are initial prompts, never evicted
	base     int   // usage that is not messages: tool declarations
	usage    int   // base + sum(costs)
	window   int
	pending  []ToolCall // calls without a result, in call order; copied on write
	// ids holds the id of every call the history has held, evicted and rolled back
	// ones included (the page has seen them: a rolled-back prompt's error carries its
	// transcript), so that a new call can be given an id no call of the session had.
	// The value is true for a call the session's model made (AppendModelCall). Shared
	// with clones until one of them writes (idsShared).
	ids       map[string]bool
	idsShared bool
}

// NewHistory returns an empty history for a context window of window units, of which
// base are already taken (by tool declarations).
func NewHistory(window, base int) *History {
	return &History{window: window, base: base, usage: base}
}

// firstRoom is how many messages an empty history makes room for at its first append.
const firstRoom = 8

// Mark is a saved state of a History.
type Mark struct {
	msgs     []Message
	costs    []int
	nInitial int
	base     int
	usage    int
	pending  []ToolCall
}

// Mark saves the current state; Reset(mark) returns to it.
func (h *History) Mark() Mark {
	return Mark{h.msgs, h.costs, h.nInitial, h.base, h.usage, h.pending}
}

// Reset returns h to a state saved by Mark. The restored slices are clipped, so the next
// append copies instead of writing over messages that views taken since may still read.
func (h *History) Reset(m Mark) {
	h.msgs, h.costs = slices.Clip(m.msgs), slices.Clip(m.costs)
	h.nInitial, h.base, h.usage, h.pending = m.nInitial, m.base, m.usage, m.pending
}

// SetBase changes the usage that is not messages: the tool declarations the model is
// offered, which tool search grows as the model finds tools (loop/toolsearch.go). A mark
// restores the base it saved.
func (h *History) SetBase(base int) {
	h.usage += base - h.base
	h.base = base
}

// Since returns a copy of the messages appended after m was taken (when nothing was
// evicted since; otherwise the messages past m's length).
func (h *History) Since(m Mark) []Message {
	if len(h.msgs) <= len(m.msgs) {
		return nil
	}
	return slices.Clone(h.msgs[len(m.msgs):])
}

// Len is the number of messages.
func (h *History) Len() int { return len(h.msgs) }

// Messages returns the transcript. It is the history's own slice, shared for speed (a
// model step reads it without copying): callers must not modify it.
func (h *History) Messages() []Message { return h.msgs[:len(h.msgs):len(h.msgs)] }

// Usage is the estimated context usage, tool declarations included.
func (h *History) Usage() int { return h.usage }

// Window is the context window.
func (h *History) Window() int { return h.window }

// HasCallID reports whether any call this history has held, evicted and rolled-back ones
// included, had the id: a new call must not take it.
func (h *History) HasCallID(id string) bool {
	_, ok := h.ids[id]
	return ok
}

// MadeByModel reports whether the session's model made a call with the id (one appended
// by AppendModelCall, still in the history or not).
func (h *History) MadeByModel(id string) bool { return h.ids[id] }

// noteCallID records id as taken, and as the model's when byModel.
func (h *History) noteCallID(id string, byModel bool) {
	if h.ids == nil || h.idsShared {
		ids := make(map[string]bool, len(h.ids)+8)
		for k, v := range h.ids {
			ids[k] = v
		}
		h.ids, h.idsShared = ids, false
	}
	h.ids[id] = h.ids[id] || byModel
}

// AppendModelCall is Append for a call the session's model made.
func (h *History) AppendModelCall(c ToolCall) error { return h.append(CallMessage(c), true) }

// IsPending reports whether the call with id has no result yet.
func (h *History) IsPending(id string) bool { return h.pendingIndex(id) >= 0 }

// Pending returns the calls that have no result yet, in call order. Read-only.
func (h *History) Pending() []ToolCall { return h.pending }

// Append adds one message. A tool call must not reuse the id of an unanswered call; a tool
// result must answer an unanswered call unless it is Unpaired. On error h is unchanged.
func (h *History) Append(m Message) error { return h.append(m, false) }

// append is Append; byModel marks a call as the model's (AppendModelCall).
func (h *History) append(m Message, byModel bool) error {
	if c := m.Call(); c != nil {
		if h.pendingIndex(c.CallID) >= 0 {
			return Errorf(KindSyntax, ErrDuplicateCallID, "%q", c.CallID)
		}
		h.pending = append(slices.Clip(h.pending), *c)
		h.noteCallID(c.CallID, byModel)
	} else if r := m.Result(); r != nil && !r.Unpaired {
		i := h.pendingIndex(r.CallID)
		if i < 0 {
			return Errorf(KindSyntax, ErrResultWithoutCall, "no unanswered call has callID %q", r.CallID)
		}
		if i == len(h.pending)-1 {
			h.pending = h.pending[:i:i] // the last call answered: no copy (marks keep theirs)
		} else {
			h.pending = slices.Delete(slices.Clone(h.pending), i, i+1)
		}
	}
	c := Cost(m)
	if cap(h.msgs) == 0 {
		// A session's first prompt adds at least a user message and an answer, and a
		// tool step two more: room for a turn or two at once, not a growth a message.
		h.msgs, h.costs = make([]Message, 0, firstRoom), make([]int, 0, firstRoom)
	}
	h.msgs = append(h.msgs, m)
	h.costs = append(h.costs, c)
	h.usage += c
	return nil
}

// AppendInitial adds initial prompts, which eviction never removes, to an empty history.
// The history takes msgs as they are (a long history passed back is not copied again,
// its room to grow included), so the caller must not use them after. What Append checks
// is checked in one pass, with the same errors, and a result that answers no unanswered
// call is marked unpaired in place. On error h holds no message (the calls' ids stay
// taken, as Append leaves them).
func (h *History) AppendInitial(msgs []Message) error {
	if len(h.msgs) > 0 {
		return Errorf(KindInvalidState, ErrBadMessage, "initial prompts after the conversation began")
	}
	costs := make([]int, len(msgs), cap(msgs))
	usage := h.usage
	var pending []ToolCall // the history's own until it is shared
	for i := range msgs {
		m := &msgs[i]
		if c := m.Call(); c != nil {
			if callIndex(pending, c.CallID) >= 0 {
				return Errorf(KindSyntax, ErrDuplicateCallID, "%q", c.CallID)
			}
			pending = append(pending, *c)
			h.noteCallID(c.CallID, false) // kept on error too, as Append keeps it
		} else if r := m.Result(); r != nil && !r.Unpaired {
			k := callIndex(pending, r.CallID)
			if k < 0 {
				*m = UnpairedMessage(*r)
			} else {
				pending = slices.Delete(pending, k, k+1)
			}
		}
		costs[i] = Cost(*m)
		usage += costs[i]
	}
	if usage > h.window {
		return h.initialTooLong(usage)
	}
	h.msgs, h.costs, h.usage, h.nInitial, h.pending = msgs, costs, usage, len(msgs), slices.Clip(pending)
	return nil
}

// initialTooLong is the QuotaExceededError of initial prompts that need requested units.
func (h *History) initialTooLong(requested int) error {
	return &Error{Kind: KindQuotaExceeded, Rule: ErrQuotaExceeded, Requested: requested, Quota: h.window,
		Msg: ErrQuotaExceeded.Error() + ": the initial prompts and tools need more than the context window"}
}

func (h *History) pendingIndex(id string) int { return callIndex(h.pending, id) }

// callIndex is the index of the call with id in calls, or -1.
func callIndex(calls []ToolCall, id string) int {
	for i := range calls {
		if calls[i].CallID == id {
			return i
		}
	}
	return -1
}

// Repaired is the error message given to calls the conversation moved past.
const Repaired = "the conversation continued before this tool call was answered"

// AnswerPending answers every unanswered call with a tool error saying why, so that the
// next model request is valid, and returns how many it answered.
func (h *History) AnswerPending(reason string) int {
	n := len(h.pending)
	for _, c := range slices.Clone(h.pending) {
		_ = h.Append(ResultMessage(ErrorResult(c, reason))) // answers a pending call: cannot fail
	}
	return n
}

// Fit evicts the oldest messages after the initial prompts and before index protectFrom
// until the usage fits the window. A tool call goes with its result; a call whose
// result lies in the protected part, or a result whose call is an initial prompt, stops
// eviction there. It returns how many messages it evicted, or a QuotaExceededError when
// even that cannot make room (h is then unchanged).
func (h *History) Fit(protectFrom int) (int, error) {
	if h.usage <= h.window {
		return 0, nil
	}
	over := h.usage - h.window
	// What goes: the oldest messages, a prefix of those after the initial prompts
	// (evicted[:prefix]) but for the results of calls that go with them, found further on
	// (later). A session at its window evicts a little at every step, so this must cost
	// what it evicts, not what the history holds.
	var later []int
	var gone []string // evicted calls that had no result: no longer pending
	freed, end := 0, h.nInitial
	for i := h.nInitial; i < protectFrom && freed < over; i++ {
		if slices.Contains(later, i) {
			end = i + 1
			continue
		}
		m := h.msgs[i]
		if c := m.Call(); c != nil {
			result := -1
			for j := i + 1; j < len(h.msgs); j++ {
				if r := h.msgs[j].Result(); r != nil && r.CallID == c.CallID && !r.Unpaired {
					result = j // a call has one result; a later call may reuse the id
					break
				}
			}
			if result >= protectFrom {
				break
			}
			if result < 0 {
				gone = append(gone, c.CallID)
			} else if result > i {
				later = append(later, result)
				freed += h.costs[result]
			}
		} else if r := m.Result(); r != nil && !r.Unpaired {
			// Its call was evicted with it unless the call is an initial prompt.
			break
		}
		freed += h.costs[i]
		end = i + 1
	}
	if freed < over {
		return 0, &Error{Kind: KindQuotaExceeded, Rule: ErrQuotaExceeded, Requested: h.usage - freed, Quota: h.window,
			Msg: ErrQuotaExceeded.Error() + ": even after evicting older messages the conversation needs more than the context window"}
	}
	order.Sort(later) // not slices.Sort: see internal/order
	// Results inside the prefix, or right after it, join it.
	for len(later) > 0 && later[0] <= end {
		end = max(end, later[0]+1)
		later = later[1:]
	}
	n := end - h.nInitial + len(later)
	var msgs []Message
	var costs []int
	if h.nInitial == 0 && len(later) == 0 {
		// Only a prefix goes: the rest is kept where it is, without a copy. The backing
		// array drops the prefix when an append next outgrows it.
		msgs, costs = h.msgs[end:], h.costs[end:]
	} else {
		// A copy, with room for the next steps' messages: an append right after would
		// copy it all again.
		size := len(h.msgs) - n
		msgs = make([]Message, 0, size+size/4+8)
		costs = make([]int, 0, size+size/4+8)
		msgs, costs = append(msgs, h.msgs[:h.nInitial]...), append(costs, h.costs[:h.nInitial]...)
		from := end
		for _, j := range later {
			msgs, costs = append(msgs, h.msgs[from:j]...), append(costs, h.costs[from:j]...)
			from = j + 1
		}
		msgs, costs = append(msgs, h.msgs[from:]...), append(costs, h.costs[from:]...)
	}
	if len(gone) > 0 {
		h.pending = slices.DeleteFunc(slices.Clone(h.pending), func(c ToolCall) bool { return slices.Contains(gone, c.CallID) })
	}
	h.msgs, h.costs, h.usage = msgs, costs, max(h.usage-freed, 0)
	return n, nil
}

// Clone returns an independent copy that shares the (immutable) messages.
func (h *History) Clone() *History {
	h.msgs, h.costs = slices.Clip(h.msgs), slices.Clip(h.costs)
	h.idsShared = h.ids != nil
	c := *h
	return &c
}

// Calibrate replaces the estimate by the model's own count: total is what the backend
// reported for the request it just read plus what it generated, which is the whole
// history at this point. Later messages add their estimates on top, and eviction subtracts
// estimates (never below zero). Marks restore the usage they saved, calibrated or not.
func (h *History) Calibrate(total int) {
	if total > 0 {
		h.usage = total
	}
}

// InitialCount is how many messages are initial prompts.
func (h *History) InitialCount() int { return h.nInitial }

// Export returns the whole transcript as JSON in the draft-PR form: a deep copy the page
// may edit and pass back as initialPrompts.
func (h *History) Export() []byte { return MarshalMessages(h.msgs) }
