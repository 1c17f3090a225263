package loop

import "langmodel/session"

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
	lead := all[n0:from]
	if c.DropResults {
		lead = session.StubResults(lead)
	}
	if c.Summarize {
		// The oldest turns are left out of the summary's request when it would not fit
		// the window (estimated on the history's own costs).
		ask := session.TextMessage(session.RoleUser, SummaryPrompt)
		first := n0
		for _, t := range turns {
			if t >= from || h.CostBetween(0, n0)+h.CostBetween(first, from)+64 <= h.Window() {
				break
			}
			first = t
		}
		msgs := session.Concat(all[:n0], lead[first-n0:], []session.Message{ask})
		text, _, _, err := r.step(ctx, msgs, h.CostBetween(0, n0)+h.CostBetween(first, from), false, ToolChoice{Mode: "none"}, PromptOptions{}, nil)
		if err != nil {
			return nil, from, err
		}
		if text != "" {
			q := lastUser(lead)
			lead = []session.Message{session.TextMessage(session.RoleAssistant, SummaryLead+text)}
			// The page's latest request stays in its own words when the kept turns do not
			// hold it: a summary may lose what was asked.
			if q != nil && lastUser(all[from:]) == nil {
				lead = append(lead, *q)
			}
		}
	}
	return h.Rewrite(from, lead), from, nil
}

// lastUser is the last user message in msgs, or nil.
func lastUser(msgs []session.Message) *session.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			return &msgs[i]
		}
	}
	return nil
}

// roomFor compacts the history (compactOnOverflow) when it is over the window: once per
// overflow, so that the engine's cached prefix is rewritten once, not at every step. What
// the compaction cannot free, eviction then does (fit); when even that fails, a failed
// step's results are tried again smaller (keepResults) without a second compaction.
// A compaction that leaves the history near the window (a summary as long as what it
// replaced, kept turns that fill it) would otherwise run again at the next step, and the
// next, each a summary step and a prompt rewritten: the history must have grown by half
// the window beyond the least it held since the last compaction (floor) before the next
// one; overflows before that evict, as without compaction.
func (r *run) roomFor() error {
	s := r.s
	c := s.opts.CompactOnOverflow
	u, w := s.hist.Usage(), s.hist.Window()
	if r.compacted || u <= w || r.floor > 0 && u-r.floor < w/2 {
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
	r.floor = nh.Usage()
	s.publish()
	s.emit(Event{Type: EventContextOverflow, Evicted: max(h.Len()-nh.Len(), 0), Compacted: true, Before: h.Usage(), After: nh.Usage()})
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
