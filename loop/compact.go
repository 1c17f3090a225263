package loop

import (
	"strings"

	"langmodel/session"
)

// Compaction is how a history is made shorter: session.compact()'s options, and
// compactOnOverflow's. The initial prompts and the last KeepTurns turns stay as they
// are; the turns before them lose their tool results (DropResults) or are replaced by a
// summary (Summarize), or both. Turns are cut only where no call waits for its result
// (session.History.Turns), so a call and its result are never split.
type Compaction struct {
	KeepTurns   int
	DropResults bool
	Summarize   bool
}

// SummaryPrompt asks the model for the summary that replaces the older turns. It is sent
// after them, in one step without tools, and is never kept in the history.
const SummaryPrompt = "Summarize the conversation above for your own later use, in a few sentences: what was asked, what the tools returned that still matters, what is done and what is left. Answer with the summary only."

// SummaryLead begins the message that holds a summary: the model's own text, kept as an
// assistant message (what the model wrote never takes the page's role).
const SummaryLead = "Summary of the earlier conversation: "

// compaction returns h made shorter by c, and where in h the kept turns begin; nil when no
// turn is older than them. h is not changed. With Summarize, the summary is one model
// step, counted in the session's usage; its failure (an abort, the model's error) is
// returned and nothing else happens.
func (r *run) compaction(ctx Context, h *session.History, c Compaction) (*session.History, int, error) {
	turns := h.Turns()
	from := h.KeptFrom(turns, c.KeepTurns)
	n0 := h.InitialCount()
	if from <= n0 {
		return nil, from, nil
	}
	all := h.Messages()
	older := all[n0:from]
	if c.DropResults {
		older = session.StubResults(older)
	}
	lead := older
	if c.Summarize {
		text, err := r.summarize(ctx, h, turns, from, older)
		if err != nil {
			return nil, from, err
		}
		if text = strings.TrimSpace(text); text != "" {
			lead = []session.Message{session.TextMessage(session.RoleAssistant, SummaryLead+text)}
			// The page's latest request stays in its own words when the kept turns do not
			// hold it: a summary may lose what was asked.
			if q := lastUser(older); q >= 0 && lastUser(all[from:]) < 0 {
				lead = append(lead, older[q])
			}
		}
	}
	return h.Rewrite(from, lead), from, nil
}

// summarize asks the model to summarize the older turns. When they do not fit the window
// with the initial prompts and the request, the oldest turns are left out of it.
func (r *run) summarize(ctx Context, h *session.History, turns []int, from int, older []session.Message) (string, error) {
	n0 := h.InitialCount()
	ask := session.TextMessage(session.RoleUser, SummaryPrompt)
	cost := session.CostOf(h.Messages()[:n0]) + session.Cost(ask) + session.CostOf(older)
	for _, t := range turns {
		if cost <= h.Window() || t >= from {
			break
		}
		if k := t - n0; k > 0 {
			cost -= session.CostOf(older[:k])
			older = older[k:]
			n0 = t
		}
	}
	msgs := make([]session.Message, 0, h.InitialCount()+len(older)+1)
	msgs = append(append(append(msgs, h.Messages()[:h.InitialCount()]...), older...), ask)
	text, _, _, err := r.step(ctx, msgs, cost, false, ToolChoice{Mode: "none"}, PromptOptions{}, nil)
	return text, err
}

// lastUser is the index of the last user message in msgs, or -1.
func lastUser(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			return i
		}
	}
	return -1
}

// roomFor compacts the history (compactOnOverflow) when extra more units would take it
// over the window: once per overflow, so that the engine's cached prefix is rewritten
// once, not at every step. What the compaction cannot free, eviction then does (fit).
func (r *run) roomFor(extra int) error {
	s := r.s
	c := s.opts.CompactOnOverflow
	if c == nil || r.compacted || s.hist.Usage()+extra <= s.hist.Window() {
		return nil
	}
	r.compacted = true
	h := s.hist
	nh, from, err := r.compaction(r.ctx, h, *c)
	if err != nil || nh == nil {
		return err
	}
	kept := nh.Len() - (h.Len() - from) // where the kept turns begin now
	r.start = max(r.start, from) - from + kept
	s.hist = nh
	s.publish()
	s.emit(Event{Type: EventContextOverflow, Evicted: max(h.Len()-nh.Len(), 0), Compacted: true, Before: h.Usage() + extra, After: nh.Usage()})
	return nil
}

// Compact waits for the operations before it, then returns a new session whose history
// is the original's made shorter by c (session.compact()); the original is not changed.
func (s *Session) Compact(ctx Context, c Compaction) (*Session, error) {
	type out struct {
		c   *Session
		err error
	}
	ch := make(chan out, 1)
	s.CompactAsync(ctx, c, nil, func(n *Session, err error) { ch <- out{n, err} })
	o := <-ch
	return o.c, o.err
}

// CompactAsync is Compact returning at once, as CloneAsync is Clone. The summary step, if
// any, runs in the original's turn and is counted in its usage and stepusage events; the
// new session starts from that usage.
func (s *Session) CompactAsync(ctx Context, c Compaction, adjust func(*Options), done func(*Session, error)) {
	s.cloneAsync(ctx, adjust, done, func(ctx Context) (*session.History, error) {
		r := s.begin(ctx)
		nh, _, err := r.compaction(ctx, s.hist, c)
		s.publish() // the summary step's usage, if it ran
		if nh == nil && err == nil {
			nh = s.hist.Clone()
		}
		return nh, err
	})
}
