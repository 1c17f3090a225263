package session

// Compaction's rules over a history (session.compact(), compactOnOverflow): where the
// kept tail begins, the stub an old result becomes, and the shorter history itself. The
// model step that writes a summary is the loop's (loop/compact.go).

// Dropped is what a tool result older than the kept turns says once compaction has
// dropped it: the call stays, so the model still knows it was made.
const Dropped = "[this result was dropped to make room in the context window; call the tool again if you need it]"

// Turns returns where each turn after the initial prompts begins, in order. A turn is a
// message of the page's, or one model step: its text, the calls it made and their results.
// No call is ever in one turn and its result in another, so cutting the history at a
// turn's start never splits them.
func (h *History) Turns() []int {
	n := len(h.msgs)
	// open[i] > 0: some call before i is answered at i or later.
	open := make([]int, n+1)
	at := make(map[string]int) // a call's index, for calls after the initial prompts
	for i := h.nInitial; i < n; i++ {
		m := h.msgs[i]
		if c := m.Call(); c != nil {
			at[c.CallID] = i
		} else if r := m.Result(); r != nil && !r.Unpaired {
			if k, ok := at[r.CallID]; ok {
				open[k+1]++
				open[i+1]--
			}
		}
	}
	var starts []int
	depth := 0
	for i := h.nInitial; i < n; i++ {
		depth += open[i]
		m := h.msgs[i]
		if depth > 0 || m.Role == RoleToolResult ||
			(m.Role == RoleToolCall && i > h.nInitial && h.msgs[i-1].Role == RoleAssistant) {
			continue
		}
		starts = append(starts, i)
	}
	return starts
}

// KeptFrom is where the last keep turns begin (h.Len() when keep is 0), moved back so that
// every call still waiting for its result is kept with the turn it belongs to.
func (h *History) KeptFrom(turns []int, keep int) int {
	from := len(h.msgs)
	if keep > 0 {
		from = h.nInitial
		if keep < len(turns) {
			from = turns[len(turns)-keep]
		}
	}
	for _, c := range h.pending {
		for i := h.nInitial; i < from; i++ {
			if mc := h.msgs[i].Call(); mc != nil && mc.CallID == c.CallID {
				from = i
				break
			}
		}
	}
	if from == len(h.msgs) {
		return from
	}
	for k := len(turns) - 1; k >= 0; k-- {
		if turns[k] <= from {
			return turns[k]
		}
	}
	return h.nInitial
}

// StubResults returns msgs with each tool result replaced by a stub (Dropped) where that
// makes it shorter, sharing msgs when none is.
func StubResults(msgs []Message) []Message {
	out := msgs
	for i, m := range msgs {
		r := m.Result()
		if r == nil {
			continue
		}
		s := *r
		s.Parts, s.Untrusted = nil, false
		if s.Failed {
			s.Error = Dropped
		} else {
			s.Error = ""
			s.Parts = []ResultPart{{Type: "text", Text: Dropped}}
		}
		stub := ResultMessage(s)
		if Cost(stub) >= Cost(m) {
			continue
		}
		if &out[0] == &msgs[0] {
			out = append([]Message(nil), msgs...)
		}
		out[i] = stub
	}
	return out
}

// Rewrite returns a new history: h's initial prompts, then lead in place of the messages
// between them and from, then h's messages from from on. The calls waiting for a result
// lie at from or later (KeptFrom), so they wait still; the ids of every call h has held
// stay taken. h is not changed.
func (h *History) Rewrite(from int, lead []Message) *History {
	c := h.Clone()
	msgs := make([]Message, 0, h.nInitial+len(lead)+len(h.msgs)-from+8)
	msgs = append(append(append(msgs, h.msgs[:h.nInitial]...), lead...), h.msgs[from:]...)
	costs := make([]int, len(msgs), cap(msgs))
	usage := h.base
	for i, m := range msgs {
		costs[i] = Cost(m)
		usage += costs[i]
	}
	c.msgs, c.costs, c.usage = msgs[:len(msgs):len(msgs)], costs[:len(msgs):len(msgs)], usage
	return c
}
