package loop

import (
	"errors"
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop/internal/toolrank"
	"langmodel/session"
)

// PromptOptions are the per-prompt options.
type PromptOptions struct {
	// OnChunk receives the answer as it is produced: text deltas of every step, then, in
	// open and hybrid sessions, each call handed back to the page. nil for prompt().
	OnChunk             func(Chunk)
	ResponseConstraint  jsonv.RawMessage
	OmitConstraintInput bool
	// ToolChoice overrides the session's for this prompt when non-nil.
	ToolChoice *ToolChoice
	// ActiveTools, when non-nil and the session searches for its tools, sets the tools
	// offered from this prompt on (besides the pinned and the search tool); searches
	// add to them. Names that are not tools of the session are skipped.
	ActiveTools []string
}

// Chunk is one piece of a streamed answer: text, or a tool call for the page.
type Chunk struct {
	Text string
	Call *session.ToolCall
}

// Result is a prompt's answer.
type Result struct {
	// Text is the text of the model's last step: the answer, or what it said alongside
	// the calls it hands back.
	Text string
	// Calls are the tool calls handed back to the page (open and hybrid sessions), in
	// call order; nil when the model answered in text.
	Calls []session.ToolCall
}

// Prompt submits a prompt and waits for its answer. input is the prompt as decoded JSON.
func (s *Session) Prompt(ctx Context, input any, po PromptOptions) (Result, error) {
	type out struct {
		r   Result
		err error
	}
	ch := make(chan out, 1)
	s.PromptAsync(ctx, input, po, func(r Result, err error) { ch <- out{r, err} })
	o := <-ch
	return o.r, o.err
}

// PromptAsync submits a prompt and returns at once; done receives the outcome on another
// goroutine. Prompts and appends run in the order they were submitted.
func (s *Session) PromptAsync(ctx Context, input any, po PromptOptions, done func(Result, error)) {
	if err := s.alive(); err != nil {
		done(Result{}, err)
		return
	}
	s.submit(ctx, func(ctx Context) error {
		r, err := s.prompt(ctx, input, po)
		done(r, err)
		return err
	})
}

// Append submits messages without asking for an answer and waits until they are in the
// history.
func (s *Session) Append(ctx Context, input any) error {
	ch := make(chan error, 1)
	s.AppendAsync(ctx, input, func(err error) { ch <- err })
	return <-ch
}

// AppendAsync is Append returning at once; done receives the outcome.
func (s *Session) AppendAsync(ctx Context, input any, done func(error)) {
	if err := s.alive(); err != nil {
		done(err)
		return
	}
	s.submit(ctx, func(ctx Context) error {
		err := s.append(ctx, input)
		done(err)
		return err
	})
}

// run is one operation's state: the mark to return to on failure, and where this
// operation's own messages begin (they are never evicted by it).
type run struct {
	s     *Session
	ctx   Context // the operation's: a summary step on overflow (roomFor) is aborted with it
	mark  session.Mark
	start int
	// malformed holds the calls whose arguments were not a JSON object, by id, with what
	// the model sent; they are recorded with {} and answered with a tool error.
	malformed map[string]string
	// overflowed is set once this operation has evicted: contextoverflow fires once per
	// overflow, however many times the input, the answer and each tool round push the
	// history over the window again.
	overflowed bool
	// compacted is set while an overflow the operation has compacted for lasts
	// (compactOnOverflow, roomFor): cleared once the history fits again.
	compacted bool
	// floor is the least the history held since the operation last compacted it (0:
	// it has not), roomFor's measure of what a compaction would find to free.
	floor int
	// spent is what the prompt's model steps have spent in tokens, steps how many there
	// were (toolUseConfig.maxTokens); asked counts each call the model asked for, by
	// tool and canonical arguments (maxRepeatedCalls).
	spent, steps int
	asked        map[string]int
	// reason is the last step's reasoning, under KeepReasoning.
	reason string
	// In search mode (toolsearch.go): the searcher and its active set when the
	// operation began, restored on failure, and the tools the last step offered.
	searchAt *toolrank.Searcher
	activeAt toolrank.ActiveSet
	tools    []session.Tool
	// failed is Request.Failed: the chain's members that failed in this prompt.
	failed uint64
}

func (s *Session) begin(ctx Context) *run {
	r := &run{s: s, ctx: ctx, mark: s.hist.Mark(), start: s.hist.Len()}
	if s.search != nil {
		r.searchAt, r.activeAt = s.search, s.search.Active
	}
	return r
}

// fail restores the history as it was and returns err with what the operation had added.
func (r *run) fail(err error) error {
	h := r.s.hist
	t := h.Since(r.mark)
	h.Reset(r.mark)
	if q := r.s.search; q != nil && q == r.searchAt {
		r.s.toolsMu.Lock()    // a search of an aborted step may still be running (runTools)
		q.Active = r.activeAt // the tools found by the searches the history forgets
		r.s.toolsMu.Unlock()
		h.SetBase(q.Active.Cost)
	}
	r.s.publish()
	return &FailedPrompt{Err: err, Transcript: t}
}

// fit evicts older messages if the history is over the window, and reports it.
func (r *run) fit() error {
	if r.s.opts.CompactOnOverflow != nil {
		if err := r.roomFor(); err != nil {
			return err
		}
	}
	n, err := r.s.hist.Fit(r.start)
	if err != nil {
		return err
	}
	r.compacted = false
	if n > 0 {
		r.start -= n
		if r.floor > 0 {
			r.floor = min(r.floor, r.s.hist.Usage())
		}
		if !r.overflowed {
			r.overflowed = true
			r.s.emit(Event{Type: EventContextOverflow, Evicted: n})
		}
	}
	r.s.publish()
	return nil
}

// input validates and appends the page's messages. A message other than a tool result
// first answers the calls still pending (dangling-call repair); so does the end of a
// prompt's input, since a model step follows. An append of results alone leaves the
// other calls pending, for results still to come.
func (r *run) input(input any, prompting bool) error {
	s := r.s
	msgs, err := session.Normalize(input, session.NormalizeOptions{HasPrior: s.hist.Len() > 0, Expected: s.opts.Expected, ModelMade: s.hist.MadeByModel})
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Role != session.RoleToolResult {
			s.hist.AnswerPending(session.Repaired)
		} else if res := m.Result(); !s.hist.IsPending(res.CallID) {
			m = session.UnpairedMessage(*res)
		}
		if err := s.hist.Append(m); err != nil {
			return err
		}
	}
	if prompting {
		s.hist.AnswerPending(session.Repaired)
	}
	return r.fit()
}

func (s *Session) append(ctx Context, input any) error {
	if ctx.Err() != nil {
		return &FailedPrompt{Err: abortError(ctx)}
	}
	if isEmptySequence(input) {
		return nil // an empty sequence appends nothing (DESIGN.md §3)
	}
	r := s.begin(ctx)
	if err := r.input(input, false); err != nil {
		return r.fail(err)
	}
	if ctx.Err() != nil {
		return r.fail(abortError(ctx))
	}
	return nil
}

// isEmptySequence reports whether input is an empty array, decoded or as JSON text.
func isEmptySequence(input any) bool {
	switch in := input.(type) {
	case []any:
		return len(in) == 0
	case jsonv.RawMessage:
		return session.IsEmptyArray(in)
	}
	return false
}

func (s *Session) prompt(ctx Context, input any, po PromptOptions) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, &FailedPrompt{Err: abortError(ctx)}
	}
	r := s.begin(ctx)
	if err := r.resume(ctx); err != nil {
		return Result{}, r.fail(err)
	}
	if err := r.input(input, true); err != nil {
		return Result{}, r.fail(err)
	}
	var constraint *session.Constraint
	if po.OmitConstraintInput && len(po.ResponseConstraint) == 0 {
		// The explainer: omitResponseConstraintInput without responseConstraint is a TypeError.
		return Result{}, r.fail(session.Errorf(session.KindType, session.ErrBadConstraint, "omitResponseConstraintInput is true but there is no responseConstraint"))
	}
	if len(po.ResponseConstraint) > 0 {
		c, err := session.CompileConstraint(po.ResponseConstraint)
		if err != nil {
			return Result{}, r.fail(err)
		}
		constraint = c
	}
	// repair is the one repair round's exchange (the failed answer and what was wrong
	// with it): sent to the model, never kept in the history. See RATIONALE.md "Why is
	// every constrained answer checked, and repaired once?".
	var repair []session.Message
	repaired := false
	choice := s.opts.ToolChoice
	if po.ToolChoice != nil {
		choice = *po.ToolChoice
	}
	s.takeTools() // tools that came and went since the last step (toolset.go)
	if po.ActiveTools != nil && s.search != nil {
		s.toolsMu.Lock() // Listed may be reading the active set
		s.search.Reset(s.opts.Tools, po.ActiveTools)
		s.toolsMu.Unlock()
		s.hist.SetBase(s.search.Active.Cost)
		if err := r.fit(); err != nil {
			return Result{}, r.fail(err)
		}
	}
	toolsOn := s.mode != ModeNone && choice.Mode != "none"
	used := 0 // calls the loop has handled in this prompt
	for {
		if s.takeTools(); s.mode == ModeNone {
			toolsOn = false
		}
		// A repair round asks for the answer alone: it offers no tools, so that a backend
		// may hold the constraint while decoding (loop/openai, the text protocol).
		text, calls, usage, err := r.step(ctx, s.hist.Messages(), s.hist.Usage(), toolsOn && repair == nil, choice, po, repair)
		if err != nil {
			return Result{}, r.fail(err)
		}
		if repair != nil {
			usage = nil // the backend counted the repair exchange, which is not kept
			repair = nil
		}
		if constraint != nil && len(calls) == 0 {
			if err := constraint.Check(text); err != nil {
				// A stream has shown the text already: it cannot be taken back, so a
				// streamed answer gets no repair round.
				if repaired || po.OnChunk != nil {
					return Result{}, r.fail(err)
				}
				repaired = true
				repair = []session.Message{session.TextMessage(session.RoleAssistant, text),
					session.TextMessage(session.RoleUser, constraint.RepairPrompt(err))}
				continue
			}
		}
		if len(calls) > 0 && (choice.Mode == "required" || choice.Mode == "tool") {
			// "required" and a named tool force at least one call, not a call at every
			// step: once the model has called, it may answer.
			choice = ToolChoice{Mode: "auto"}
		}
		if text != "" || len(calls) == 0 || r.reason != "" {
			_ = s.hist.Append(assistant(text, r.reason, len(calls) > 0)) // text and reasoning cannot fail
		}
		for _, c := range calls {
			if err := s.hist.AppendModelCall(c); err != nil {
				return Result{}, r.fail(err)
			}
		}
		if usage != nil {
			s.hist.Calibrate(usage.InputTokens + usage.OutputTokens)
		}
		if err := r.fit(); err != nil {
			return Result{}, r.fail(err)
		}
		if len(calls) == 0 {
			return Result{Text: text}, nil
		}
		if s.mode == ModeOpen && s.search == nil {
			r.handBack(po, calls)
			return Result{Text: text, Calls: calls}, nil
		}

		// Closed or hybrid: calls to tools without execute go back to the page; the loop
		// answers all others, up to the limit.
		var mine, page []session.ToolCall
		for i, c := range calls {
			// An open session that searches (tool search) gets here too: the loop
			// answers the searches, the page every other call.
			if t := s.tools[c.Name]; t != &searchTool && (s.mode == ModeOpen || t != nil && !t.HasExecute) {
				if page == nil {
					mine = append([]session.ToolCall(nil), calls[:i]...) // mine so far, copied once
				}
				page = append(page, c)
			} else if page != nil {
				mine = append(mine, c)
			}
		}
		if page == nil {
			mine = calls[:len(calls):len(calls)] // all the loop's (the usual case): no copy; admit only reads it
		}
		runNow, refused, reasons, err := r.admit(mine, used)
		if err != nil {
			return Result{}, r.fail(err)
		}
		used += len(runNow)
		results, err := r.runTools(ctx, runNow)
		if err != nil {
			return Result{}, r.fail(err)
		}
		if s.search != nil {
			s.hist.SetBase(s.search.Active.Cost) // what the searches found (runOne)
		}
		for i, c := range refused {
			res := session.ErrorResult(c, reasons[i])
			s.emit(Event{Type: EventToolCall, Call: &c, Tool: s.tools[c.Name]})
			s.emit(Event{Type: EventToolResult, Call: &c, Result: &res})
			results = append(results, res)
		}
		if err := r.keepResults(results); err != nil {
			return Result{}, r.fail(err)
		}
		if len(page) > 0 {
			r.handBack(po, page)
			return Result{Text: text, Calls: page}, nil
		}
		if len(refused) > 0 {
			toolsOn = false // one more step, for a final answer without tools
		}
	}
}

// admit decides which of a step's calls for the loop run, in call order, against the
// prompt's limits: the token budget (checked before any call of a step runs: each run
// leads to one more step), maxToolCalls, and maxRepeatedCalls. Under onLimit "error" the
// first call over a limit stops the prompt with an OperationError naming the limit;
// under "answer" each such call is refused with a tool error (reasons) telling the model
// why, and the loop asks once more, with tools off, for a final answer.
func (r *run) admit(calls []session.ToolCall, used int) (run, refused []session.ToolCall, reasons []string, err error) {
	use := r.s.opts.ToolUse
	answer := use.OnLimit == LimitAnswer
	max, rep := use.max(), use.maxRepeated()
	spent := use.MaxTokens > 0 && r.spent > use.MaxTokens
	for i, c := range calls {
		n := 0
		if rep > 0 {
			// The arguments are canonical (step): a call written with its keys in
			// another order, or other spacing, is the same call.
			if r.asked == nil {
				r.asked = make(map[string]int)
			}
			k := c.Name + "\x00" + string(c.Arguments)
			n = r.asked[k] + 1
			r.asked[k] = n
		}
		// Messages by concatenation: formatting's boxed arguments cost code at every call.
		var why string
		switch {
		case spent:
			if !answer {
				return nil, nil, nil, stop(ErrTokenBudget, "maxTokens is "+strconv.Itoa(use.MaxTokens)+" and the prompt's "+strconv.Itoa(r.steps)+" model steps have spent "+strconv.Itoa(r.spent))
			}
			why = "not run: the budget of " + strconv.Itoa(use.MaxTokens) + " tokens for this prompt is spent; answer with what you have"
		case used+len(run) >= max:
			if !answer {
				return nil, nil, nil, stop(session.ErrToolLimit, "maxToolCalls is "+strconv.Itoa(max)+" and the model asked for call "+strconv.Itoa(max+1)+" ("+c.Name+")")
			}
			why = "not run: the limit of " + strconv.Itoa(max) + " tool calls for one prompt was reached; answer with what you have"
		case rep > 0 && n > rep:
			if !answer {
				return nil, nil, nil, stop(ErrRepeatedCall, "maxRepeatedCalls is "+strconv.Itoa(rep)+" and the model asked for the same "+c.Name+" call "+strconv.Itoa(n)+" times")
			}
			why = "not run: you asked for this same call (same tool, same arguments) " + strconv.Itoa(n) + " times in this prompt, and its answer will not change; answer with what you have"
		default:
			if len(refused) == 0 {
				run = calls[:i+1] // all run so far: no copy
			} else {
				run = append(run[:len(run):len(run)], c) // a copy, never over calls
			}
			continue
		}
		refused = append(refused, c)
		reasons = append(reasons, why)
	}
	return run, refused, reasons, nil
}

// stop is the OperationError of a limit the prompt reached: "<rule>: <detail>".
func stop(rule error, detail string) error {
	return &session.Error{Kind: session.KindOperation, Rule: rule, Msg: rule.Error() + ": " + detail}
}

func (r *run) handBack(po PromptOptions, calls []session.ToolCall) {
	if po.OnChunk == nil {
		return
	}
	for i := range calls {
		po.OnChunk(Chunk{Call: &calls[i]})
	}
}

// step asks the model for one step and returns its text and calls. msgs is what it reads
// (the history, or a summary's request: compact.go), in the estimated units of its input
// with the tool declarations when the backend reports no usage. Calls get an id when
// the model gave none, or one that a call of this step or of the session's history (the
// imported history included, and calls since evicted) already has: a history passed
// back as initialPrompts then never sees the new session's first call take an old call's
// id. Arguments that are not a JSON object become {}
// (and the call is answered with a tool error, never run).
func (r *run) step(ctx Context, msgs []session.Message, in int, toolsOn bool, choice ToolChoice, po PromptOptions, tail []session.Message) (string, []session.ToolCall, *Usage, error) {
	s := r.s
	if len(tail) > 0 {
		msgs = append(msgs, tail...) // Messages is clipped: this copies
	}
	req := &Request{
		Messages:            msgs,
		ToolChoice:          choice,
		ResponseConstraint:  po.ResponseConstraint,
		OmitConstraintInput: po.OmitConstraintInput,
		SamplingMode:        s.opts.SamplingMode,
		ContextWindow:       s.hist.Window(),
		Failed:              &r.failed,
	}
	if toolsOn {
		req.Tools = s.opts.Tools
		if s.search != nil {
			req.Tools = s.offer(choice)
			r.tools = req.Tools
		}
		req.Forming = s.listens(EventToolCallDelta)
	}
	// What the step's deltas add up to, in one place: the callback then captures one
	// pointer, not four variables each moved to the heap.
	var t0 Duration
	if s.listens(EventStepUsage) {
		t0 = s.opts.Now()
	}
	acc := &struct {
		text, reason strings.Builder
		held         string // the reasoning's tail the events hold back (Options.Release)
		calls        []session.ToolCall
		usage        *Usage
		out          int // bytes of text, reasoning and calls so far: the reply's size, bounded by the window
		form         []formed
	}{}
	err := s.opts.Model.Step(ctx, req, func(d Delta) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.Forming != nil {
			if acc.held != "" {
				s.thoughtEnd(&acc.held) // the reasoning block has ended
			}
			if req.Forming {
				r.form(&acc.form, d.Forming)
			}
			return nil
		}
		if d.Call != nil {
			acc.out += len(d.Call.Name) + len(d.Call.Arguments)
		}
		if acc.out += len(d.Text) + len(d.Reasoning); session.TextCost(acc.out) > req.ContextWindow {
			return ReplyTooLong(session.TextCost(acc.out), req.ContextWindow)
		}
		if d.Reasoning != "" {
			s.thought(&acc.reason, &acc.held, d.Reasoning)
		}
		if acc.held != "" && (d.Text != "" || d.Call != nil) {
			s.thoughtEnd(&acc.held) // the reasoning block has ended
		}
		if d.Text != "" {
			acc.text.WriteString(d.Text)
			if po.OnChunk != nil {
				po.OnChunk(Chunk{Text: d.Text})
			}
		}
		if d.Call != nil && toolsOn {
			acc.calls = append(acc.calls, *d.Call)
			if acc.form != nil {
				r.formEnd(acc.form, len(acc.calls)-1)
			}
		}
		if d.Usage != nil {
			acc.usage = d.Usage
		}
		return nil
	})
	calls, usage := acc.calls, acc.usage
	if ctx.Err() != nil {
		return "", nil, nil, abortError(ctx)
	}
	if acc.held != "" {
		s.thoughtEnd(&acc.held)
	}
	if err != nil {
		if session.KindOf(err) == session.KindOperation && !errors.Is(err, session.ErrModel) {
			err = session.Wrap(session.KindOperation, session.ErrModel, err)
		}
		return "", nil, nil, err
	}
	r.count(in+session.CostOf(tail), acc.out, usage, len(calls), req.Backend, t0)
	r.reason = acc.reason.String()
	if acc.form != nil {
		formedIDs(calls, acc.form)
	}
	var seen map[string]bool // ids given so far in this step, once there are many
	if len(calls) > 8 {
		seen = make(map[string]bool, len(calls))
	}
	given := func(i int, id string) bool {
		if seen != nil {
			return seen[id]
		}
		for _, c := range calls[:i] {
			if c.CallID == id {
				return true
			}
		}
		return false
	}
	for i := range calls {
		c := &calls[i]
		for c.CallID == "" || given(i, c.CallID) || s.hist.HasCallID(c.CallID) {
			s.nextID++
			c.CallID = "call_" + strconv.Itoa(s.nextID)
		}
		if seen != nil {
			seen[c.CallID] = true
		}
		if !isJSONObject(c.Arguments) {
			if r.malformed == nil {
				r.malformed = make(map[string]string)
			}
			r.malformed[c.CallID] = string(c.Arguments)
			c.Arguments = jsonv.RawMessage("{}")
		} else {
			c.Arguments = canonicalJSON(c.Arguments)
		}
	}
	return acc.text.String(), calls, usage, nil
}

// count adds a finished step to the prompt's spending and the session's totals, and
// sends its stepusage event to a page that listens. The input is the request, the
// output its reply (out bytes of text and calls): the backend's figures when it reported
// them, else the estimate contextUsage is measured in.
func (r *run) count(in, out int, usage *Usage, calls, backend int, t0 Duration) {
	s := r.s
	u := StepUsage{ToolCalls: calls, Backend: backend}
	if usage != nil {
		u.InputTokens, u.OutputTokens = usage.InputTokens, usage.OutputTokens
		u.CachedTokens, u.Cached = usage.CachedTokens, usage.Cached
	} else {
		u.Estimated = true
		u.InputTokens = in // contextUsage, declarations included
		u.OutputTokens = session.TextCost(out)
	}
	r.spent += u.InputTokens + u.OutputTokens
	r.steps++
	s.totals.add(u)
	if s.listens(EventStepUsage) {
		s.publish() // session.usage, read in the handler, counts this step
		step := u   // on the heap only here, when someone listens
		s.emit(Event{Type: EventStepUsage, Step: &step, Duration: s.opts.Now() - t0})
	}
}

// ReplyTooLong is the error that stops a step whose reply (requested, in estimated
// tokens) has outgrown the whole context window: it could never be kept, and a model (or
// a page's generator) that does not stop would otherwise grow the module's memory
// without end. A QuotaExceededError.
func ReplyTooLong(requested, window int) error {
	return &session.Error{Kind: session.KindQuotaExceeded, Rule: session.ErrQuotaExceeded,
		Requested: requested, Quota: window,
		Msg: "the model's reply is longer than the context window"}
}

// canonicalJSON re-encodes a model's arguments as the page's own calls are encoded
// (session.Normalize): compact, keys sorted, strings escaped as jsonv writes them. A call
// then costs the same (session.Cost counts bytes) whether the model made it or the page
// passes the exported history back, so contextUsage is the sum of what
// measureContextUsage says of each message.
func canonicalJSON(b jsonv.RawMessage) jsonv.RawMessage {
	if string(b) == "{}" {
		return b // the arguments of a tool that takes none: canonical as they are
	}
	v, err := jsonv.Decode(b)
	if err != nil {
		return b
	}
	out, err := jsonv.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

func isJSONObject(b jsonv.RawMessage) bool {
	i := jsonv.SkipSpace(b, 0)
	return len(b)-i >= 2 && b[i] == '{' && jsonv.Valid(b)
}

// thought passes a piece of the model's reasoning to the page that listens, and keeps it
// in b under KeepReasoning. What Options.Release holds back waits in held, before the
// next piece, until the block ends (thoughtEnd). The step's callback calls it at every
// piece of reasoning; it stays out of the callback without a directive: it is over the
// compiler's inlining budget (the module built with go:noinline here was the same, byte
// for byte).
func (s *Session) thought(b *strings.Builder, held *string, text string) {
	if s.opts.KeepReasoning {
		b.WriteString(text)
	}
	if !s.listens(EventReasoning) {
		return
	}
	if s.opts.Release != nil {
		text = *held + text
		n := s.opts.Release(text)
		text, *held = text[:n], text[n:]
		if text == "" {
			return
		}
	}
	s.opts.OnEvent(Event{Type: EventReasoning, Text: text})
}

// thoughtEnd sends what thought held back: the reasoning block has ended (the step's
// text, a call, or the step's end follows), so no more of it can complete a secret.
// Inlined at its calls: the module is 292 bytes brotli smaller than with it kept out of
// line (265 bytes of code more).
func (s *Session) thoughtEnd(held *string) {
	s.emit(Event{Type: EventReasoning, Text: *held})
	*held = ""
}

// assistant is a step's assistant message: its reasoning first (kept under
// KeepReasoning), then its text, and no empty text beside calls.
func assistant(text, reason string, calls bool) session.Message {
	m := session.TextMessage(session.RoleAssistant, text)
	if reason != "" {
		m.Parts = append([]session.Part{{Type: session.PartReasoning, Text: reason}}, m.Parts...)
		if text == "" && calls {
			m.Parts = m.Parts[:1]
		}
	}
	return m
}

func (s *Session) emit(e Event) {
	if s.listens(e.Type) {
		s.opts.OnEvent(e)
	}
}

// listens reports whether an event of type t would reach OnEvent.
func (s *Session) listens(t EventType) bool {
	return s.opts.OnEvent != nil && (s.opts.Listens == nil || s.opts.Listens(t))
}

// clock reads Options.Now for timing a toolresult event, when one would be sent.
func (s *Session) clock() Duration {
	if s.listens(EventToolResult) {
		return s.opts.Now()
	}
	return 0
}
