package loop

import (
	"slices"

	"langmodel/session"
)

// Saved is what a restored session continues from: a saved transcript and what was
// happening in it when it was saved (docs/snapshots.md).
type Saved struct {
	// Messages is the transcript in the draft-PR form, as Options.InitialPrompts takes
	// it (decoded JSON, its JSON text, or messages normalized already).
	Messages any
	// Initial is how many of them were initial prompts.
	Initial int
	// Usage is the saved context usage (0: estimate it again).
	Usage int
	// Running lists the calls whose execute had started: their results are lost.
	Running []string
	// Totals is what the session's model steps had spent (session.usage).
	Totals Totals
	// Active names the tools of tool search's active set (ActiveTools): they are active
	// again, in order, those that fit the share, when the restored session searches.
	Active []string
}

// Restore creates a session from a saved one, with opts as New takes them (their
// InitialPrompts ignored). The transcript is the session's own, so tool calls and
// responses in it need no declaration in expectedInputs. Its unanswered calls are
// treated by what became of them:
//
//   - a call whose execute was running (saved.Running) cannot resume: in a closed
//     session it is answered at once with a tool error saying the conversation was
//     interrupted (session.Interrupted); in an open or hybrid session it stays unanswered,
//     handed back to the page to run again;
//   - a call to a tool with execute that had not started (its approval pending, or
//     waiting for its turn) runs at the start of the next prompt, approve asked again;
//   - any other call (the page's to answer) stays unanswered, as it was.
func Restore(opts Options, saved Saved) (*Session, error) {
	// The transcript is read as initial prompts, then the history is made the one saved.
	expected := opts.Expected
	opts.Expected.ToolCall, opts.Expected.ToolResponse = true, true
	opts.InitialPrompts = saved.Messages
	if isEmptySequence(saved.Messages) {
		opts.InitialPrompts = nil
	}
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	s.opts.Expected = expected
	s.totals = saved.Totals
	if q := s.search; q != nil {
		q.Reset(s.opts.Tools, saved.Active)
		s.hist.SetBase(q.Active.Cost)
	}
	if err := s.hist.Restored(saved.Initial, saved.Usage); err != nil {
		s.Destroy()
		return nil, err
	}
	for _, c := range s.hist.Pending() { // a copy: answering a call copies the list
		t := s.tools[c.Name]
		switch {
		case s.mode == ModeOpen || t == nil || !t.HasExecute:
		case !slices.Contains(saved.Running, c.CallID):
			s.resume = append(s.resume, c.CallID)
		case s.mode == ModeClosed:
			_ = s.hist.Append(session.ResultMessage(session.ErrorResult(c, session.Interrupted))) // answers a pending call
		}
	}
	s.publish()
	return s, nil
}

// InitialCount is how many messages of the history are initial prompts. Like History, it
// is for a session no operation runs on (just created or cloned).
func (s *Session) InitialCount() int { return s.hist.InitialCount() }

// Resuming lists the calls the next prompt runs before its input (Restore).
func (s *Session) Resuming() []string { return s.resume }

// resume runs the restored calls that are still unanswered (Restore), before the
// prompt's input: their approval is asked again.
func (r *run) resume(ctx Context) error {
	var calls []session.ToolCall
	for _, c := range r.s.hist.Pending() {
		if slices.Contains(r.s.resume, c.CallID) {
			calls = append(calls, c)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	results, err := r.runTools(ctx, calls)
	if err != nil {
		return err
	}
	return r.keepResults(results)
}
