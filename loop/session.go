package loop

import (
	"errors"
	"sync"
	"sync/atomic"

	"langmodel/internal/clock"
	"langmodel/loop/internal/toolrank"
	"langmodel/session"
)

// Options configure a Session. Model is required; Runner is required when a tool has
// execute. The zero value of every other field is the explainer's default.
type Options struct {
	Model  Model
	Runner ToolRunner
	Tools  []session.Tool
	// ToolUse is toolUseConfig.
	ToolUse ToolUse
	// Expected lists the declared input types beyond text.
	Expected session.Expected
	// InitialPrompts is the initialPrompts option as decoded JSON, as its JSON text (a
	// jsonv.RawMessage, read by session.NormalizeJSON), as messages normalized already
	// ([]session.Message: the binding's packed history of text messages, wasm/packed.go),
	// as a session.Reader (a packed history with messages as JSON among them), or nil.
	InitialPrompts any
	// ContextWindow overrides the model's window (0: the model's, or DefaultContextWindow).
	ContextWindow int
	SamplingMode  string
	ToolChoice    ToolChoice
	// KeepReasoning keeps what the model thinks (Delta.Reasoning) in the history, as a
	// reasoning part of the step's assistant message, so that later steps send it back.
	// Otherwise reasoning reaches only EventReasoning (docs/reasoning.md).
	KeepReasoning bool
	// CompactOnOverflow, when not nil, compacts the history when it would outgrow the
	// window (compact.go), before eviction is left to make room.
	CompactOnOverflow *Compaction
	// OnEvent receives step events; it must be safe for concurrent use. May be nil.
	OnEvent func(Event)
	// Listens reports whether OnEvent wants events of a type at the moment: the loop
	// neither builds nor times the others (a page that does not listen pays nothing for
	// them). nil: every type is wanted.
	Listens func(EventType) bool
	// Release, when set, is how many leading bytes of a text still being written the
	// reasoning and toolcalldelta events may show now; the rest is held back until more
	// comes, the reasoning block ends or the call is whole. The binding's redactor
	// (redact.Redactor.Release): a tail that may begin a secret waits, so that a secret a
	// model splits over two deltas is redacted whole (docs/design.md "Secrets").
	Release func(text string) int
	// OnChange, when set, is called after each change to what Messages, ContextUsage,
	// Usage and ActiveTools answer, on the goroutine that made it: worker mode's mirror
	// (wasm.Mirror) learns which sessions to look at instead of looking at them all.
	OnChange func()
	// Now reads the clock that times tools: the time elapsed since any fixed instant
	// (a duration, not a time.Time: see RATIONALE.md "How does the module stay within its
	// size budget?"). nil means clock.Now, the monotonic clock (package time natively, the
	// runtime's under js/wasm: internal/clock).
	Now func() Duration
}

// Session is a live conversation: a history, its tools and model, and a queue of
// operations. Its methods are safe for concurrent use; operations run one at a time in
// the order they were submitted.
type Session struct {
	opts  Options
	mode  Mode
	tools map[string]*session.Tool
	gone  map[string]bool // tools SetTools removed (true), for a late call's error (toolset.go)
	// search is the tool search state, nil when every tool is offered (toolsearch.go).
	// Owned by the queue's operation, as tools are.
	search *toolrank.Searcher

	toolsMu   sync.Mutex      // guards nextTools, and s.opts.Tools for readers outside the queue
	nextTools *[]session.Tool // what SetTools left for the next step

	// Owned by the operation whose turn it is.
	hist   *session.History
	nextID int
	resume []string // calls to run at the next prompt (restore.go)
	totals Totals   // what the model steps spent (Usage)

	view     atomic.Pointer[view]           // what readers outside the queue see
	approved atomic.Pointer[[]session.Tool] // the decisions remembered (approvals.go)

	life    *canceler // done when the session is destroyed, with ErrDestroyed as its cause (newLife)
	destroy CancelFunc

	mu sync.Mutex
	q  queue
}

// view is an immutable snapshot of the history for readers outside the queue.
type view struct {
	msgs   []session.Message
	usage  int
	totals Totals
	active []session.Tool // tool search's active set (nil: the session does not search)
}

// New creates a session: it validates the initial prompts against the explainer's rules
// and the context window, and decides the tool mode.
func New(opts Options) (*Session, error) {
	if opts.Model == nil {
		return nil, errors.New("loop: Options.Model is nil")
	}
	mode := modeOf(opts.Tools, opts.ToolUse)
	if (mode == ModeClosed || mode == ModeHybrid) && opts.Runner == nil {
		return nil, errors.New("loop: tools have execute but Options.Runner is nil")
	}
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	window := opts.ContextWindow
	if window <= 0 {
		window = DefaultContextWindow
		if w, ok := opts.Model.(Windowed); ok && w.ContextWindow() > 0 {
			window = w.ContextWindow()
		}
	}
	s := &Session{opts: opts, mode: mode, tools: make(map[string]*session.Tool, len(opts.Tools))}
	for i := range opts.Tools {
		s.tools[opts.Tools[i].Name] = &s.opts.Tools[i]
	}
	base := session.ToolsCost(opts.Tools)
	if use := opts.ToolUse.Search; !use.Off && base > use.budget(window) {
		s.search = newSearcher(opts.Tools, use, window, nil)
		s.tools[SearchToolName] = &searchTool // calls of it run in the loop (runOne)
		base = s.search.Active.Cost
	}
	s.hist = session.NewHistory(window, base)
	if opts.InitialPrompts != nil {
		msgs, ok := opts.InitialPrompts.([]session.Message)
		if !ok {
			var err error
			if msgs, err = session.Normalize(opts.InitialPrompts, session.NormalizeOptions{Expected: opts.Expected}); err != nil {
				return nil, err
			}
		}
		if err := s.hist.AppendInitial(msgs); err != nil {
			return nil, err
		}
		s.opts.InitialPrompts = nil // read: the history holds them now, not the page's text
	} else if s.hist.Usage() > window {
		return nil, &session.Error{Kind: session.KindQuotaExceeded, Rule: session.ErrQuotaExceeded,
			Requested: s.hist.Usage(), Quota: window, Msg: session.ErrQuotaExceeded.Error() + ": the tool declarations need more than the context window"}
	}
	s.life, s.destroy = newLife()
	s.publish()
	return s, nil
}

// SamplingMode is the samplingMode the session was created with ("" when none).
func (s *Session) SamplingMode() string { return s.opts.SamplingMode }

// Mode is the session's tool mode.
func (s *Session) Mode() Mode { return s.mode }

// Tools returns the session's tool declarations. Read-only.
func (s *Session) Tools() []session.Tool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.opts.Tools
}

// ContextUsage is the estimated usage of the history as of the last completed change.
func (s *Session) ContextUsage() int { return s.view.Load().usage }

// ContextWindow is the session's context window.
func (s *Session) ContextWindow() int { return s.hist.Window() }

// History returns the transcript as JSON in the draft-PR form: a deep copy.
func (s *Session) History() []byte { return session.MarshalMessages(s.view.Load().msgs) }

// Messages returns the transcript as of the last completed change. Read-only.
func (s *Session) Messages() []session.Message { return s.view.Load().msgs }

// MeasureContextUsage returns what input would add to the context usage, without adding
// it. Any valid input is measured wherever it would go: as the spec's measureContextUsage
// does, the prompt is validated as if the session were empty, so a sequence that starts
// with a system message is measured on a session that already has history.
func (s *Session) MeasureContextUsage(input any) (int, error) {
	if err := s.alive(); err != nil {
		return 0, err
	}
	// A tool response is measured as one answering a call of the model would go: a
	// session that expects tool-call outputs takes those undeclared.
	msgs, err := session.Normalize(input, session.NormalizeOptions{Expected: s.opts.Expected, ModelMade: anyCall})
	if err != nil {
		return 0, err
	}
	return session.CostOf(msgs), nil
}

func anyCall(string) bool { return true }

// newLife is a session's life: destroy ends it with ErrDestroyed as its cause, which the
// operations hanging from it (submit) end with.
func newLife() (*canceler, CancelFunc) {
	c := newCanceler(Background())
	return c, func() { c.cancel(Canceled, session.ErrDestroyed) }
}

func (s *Session) publish() {
	v := &view{msgs: s.hist.Messages(), usage: s.hist.Usage(), totals: s.totals}
	if s.search != nil {
		s.toolsMu.Lock() // a step's searches may run side by side (runTools)
		v.active = s.search.Active.Tools
		s.toolsMu.Unlock()
	}
	s.view.Store(v)
	if s.opts.OnChange != nil {
		s.opts.OnChange()
	}
}

// Usage is what the session's model steps have spent, as of the last completed change
// (session.usage).
func (s *Session) Usage() Totals { return s.view.Load().totals }

func (s *Session) alive() error {
	if s.life.Err() != nil {
		return session.Errorf(session.KindInvalidState, session.ErrDestroyed, "")
	}
	return nil
}

// Destroy rejects every operation in flight or queued with an AbortError and makes every
// later call fail with InvalidStateError. Running tools see their context end.
func (s *Session) Destroy() { s.destroy() }

// Destroyed reports whether Destroy was called.
func (s *Session) Destroyed() bool { return s.life.Err() != nil }

// submit takes a turn for an operation and runs it on a goroutine of its own (spawn)
// once the turns before it have ended. The turn is taken before submit returns, which
// fixes the order.
func (s *Session) submit(ctx Context, op func(ctx Context) error) {
	s.mu.Lock()
	t := s.q.take()
	s.mu.Unlock()
	spawn(func() {
		defer t.end()
		opCtx, cancel := WithCancelCause(ctx)
		defer cancel(nil)
		// The session's end ends the operation at once, with ErrDestroyed: opCtx hangs
		// from s.life too, as a child (no AfterFunc's closures and goroutine a prompt).
		if id, added := s.life.hook(hook{child: opCtx.(*canceler)}); added {
			defer s.life.remove(id)
		}
		_ = t.wait(opCtx) // on abort, op sees the done context and reports it
		if s.life.Err() != nil {
			cancel(session.ErrDestroyed) // the life had ended before the hook: none was added
		}
		_ = op(opCtx)
	})
}

// abortError turns a done context into the error the page sees.
func abortError(ctx Context) error {
	cause := Cause(ctx)
	if errors.Is(cause, session.ErrDestroyed) {
		return session.Errorf(session.KindAbort, session.ErrDestroyed, "")
	}
	if e, ok := errors.AsType[*session.Error](cause); ok {
		return e
	}
	return session.Wrap(session.KindAbort, session.ErrAborted, cause)
}

// Clone waits for the operations before it, then returns a new session with a copy of the
// history, the same tools, options and usage, and its own queue.
func (s *Session) Clone(ctx Context) (*Session, error) {
	type out struct {
		c   *Session
		err error
	}
	ch := make(chan out, 1)
	s.CloneAsync(ctx, nil, func(c *Session, err error) { ch <- out{c, err} })
	o := <-ch
	return o.c, o.err
}

// CloneAsync is Clone returning at once: the clone takes its turn in the queue now, so
// prompts and appends submitted later run after the copy is made; done receives the new
// session on another goroutine. adjust, when not nil, may change the clone's hooks before
// it exists (Runner, OnEvent, ToolUse.Approve, Now): a host that routes events and tool
// calls by session gives the clone its own. Tools, history and usage are the original's.
func (s *Session) CloneAsync(ctx Context, adjust func(*Options), done func(*Session, error)) {
	s.cloneAsync(ctx, adjust, done, nil)
}

// cloneAsync is CloneAsync; history, when not nil, gives the copy's history in place of
// a clone of the original's (CompactAsync).
func (s *Session) cloneAsync(ctx Context, adjust func(*Options), done func(*Session, error), history func(Context) (*session.History, error)) {
	if err := s.alive(); err != nil {
		done(nil, err)
		return
	}
	s.submit(ctx, func(ctx Context) error {
		if ctx.Err() != nil {
			err := abortError(ctx)
			done(nil, err)
			return err
		}
		var h *session.History
		if history == nil {
			h = s.hist.Clone()
		} else if nh, err := history(ctx); err != nil {
			done(nil, err)
			return err
		} else {
			h = nh
		}
		opts := s.opts
		if adjust != nil {
			adjust(&opts)
			opts.Tools = s.opts.Tools
		}
		c := &Session{opts: opts, mode: modeOf(opts.Tools, opts.ToolUse), tools: s.tools, hist: h, nextID: s.nextID, resume: s.resume, totals: s.totals}
		if s.search != nil {
			q := *s.search // shares what is never written in place
			c.search = &q
		}
		c.life, c.destroy = newLife()
		c.publish()
		done(c, nil)
		return nil
	})
}
