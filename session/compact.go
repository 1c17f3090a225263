package session

// Compaction's rules over a history (session.compact(), compactOnOverflow): where turns
// begin, the stub an old result becomes, and the shorter history itself. The model step
// that writes a summary is the loop's (loop/compact.go).

// Dropped is what a tool result older than the kept turns says once compaction has
// dropped it: the call stays, so the model still knows it was made.
const Dropped = "[this result was dropped to make room in the context window; call the tool again if you need it]"

var droppedParts = []ResultPart{{Type: "text", Text: Dropped}}

// Turns returns where each turn after the initial prompts begins, in order. A turn is a
// message of the page's, or one model step: its text, the calls it made and their results.
// A turn begins only where no call made after the initial prompts waits for its result
// (the loop appends a step's results right after its calls, and answers the calls left
// open before the page's next message), so cutting the history at a turn's start never
// parts a call from its result, and a call still waiting is in the last turn.
func (h *History) Turns() []int {
	var starts []int
	open := 0
	for i := h.nInitial; i < len(h.msgs); i++ {
		m := &h.msgs[i]
		switch m.Role {
		case RoleToolResult:
			if open > 0 && !m.Parts[0].Result.Unpaired {
				open--
			}
			continue
		case RoleToolCall:
			if open == 0 && (i == h.nInitial || h.msgs[i-1].Role != RoleAssistant) {
				starts = append(starts, i)
			}
			open++
			continue
		}
		if open == 0 {
			starts = append(starts, i)
		}
	}
	return starts
}

// KeptFrom is where the last keep turns begin (h.Len() when keep is 0 and no call waits
// for its result: such a call's turn is always kept).
func (h *History) KeptFrom(turns []int, keep int) int {
	if keep == 0 && len(h.pending) > 0 {
		keep = 1
	}
	switch {
	case keep == 0:
		return len(h.msgs)
	case keep < len(turns):
		return turns[len(turns)-keep]
	}
	return h.nInitial
}

// StubResults returns a copy of msgs with each tool result that is longer than a stub
// replaced by one (Dropped); a failed result stays failed.
func StubResults(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		if r := m.Result(); r != nil && Cost(m) > perMessage+ceil4(len(r.Name)+len(Dropped)+32) {
			s := ToolResult{CallID: r.CallID, Name: r.Name, Parts: droppedParts, Unpaired: r.Unpaired}
			if r.Failed {
				s.Parts, s.Failed, s.Error = nil, true, Dropped
			}
			out[i] = ResultMessage(s)
		}
	}
	return out
}

// CostBetween is the estimated usage of the messages from i to j.
func (h *History) CostBetween(i, j int) int {
	c := 0
	for _, n := range h.costs[i:j] {
		c += n
	}
	return c
}

// Rewrite returns a new history: h's initial prompts, then lead in place of the messages
// between them and from, then h's messages from from on. The calls waiting for a result
// lie at from or later (KeptFrom), so they wait still; the ids of every call h has held
// stay taken. h is not changed.
func (h *History) Rewrite(from int, lead []Message) *History {
	c := h.Clone()
	n0 := h.nInitial
	c.msgs = Concat(h.msgs[:n0], lead, h.msgs[from:])
	c.costs = make([]int, len(c.msgs))
	for i, m := range c.msgs {
		c.costs[i] = Cost(m)
	}
	c.usage = h.base + c.CostBetween(0, len(c.costs))
	return c
}

// Concat returns the messages of parts in one new slice.
func Concat(parts ...[]Message) []Message {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]Message, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
