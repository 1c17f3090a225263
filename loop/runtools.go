package loop

import (
	"strings"
	"sync"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/session"
)

// runTools answers calls: each is checked (known tool, valid arguments, approved) and run
// through the ToolRunner, concurrently unless ToolUse.Sequential. Results come back in
// call order whatever order the tools finish in. When ctx ends first, runTools returns
// with the abort error as soon as the runner of a lone call returns (ToolRunner must
// return when ctx is done), at once when there are several; tools still running see ctx
// done and their results are dropped.
func (r *run) runTools(ctx Context, calls []session.ToolCall) ([]session.ToolResult, error) {
	s := r.s
	results := make([]session.ToolResult, len(calls))
	// A lone call runs on the loop's own goroutine, whose stack has grown already: no
	// goroutine to start, switch to and back from (spawn says why that counts).
	if len(calls) == 1 {
		s.emit(Event{Type: EventToolCall, Call: &calls[0], Tool: s.tools[calls[0].Name]})
		r.runAt(ctx, calls, results, 0)
		if ctx.Err() != nil {
			return nil, abortError(ctx)
		}
		return results, nil
	}
	finished := make(chan int, len(calls))
	start := func(i int) {
		s.emit(Event{Type: EventToolCall, Call: &calls[i], Tool: s.tools[calls[i].Name]})
		spawn(func() {
			r.runAt(ctx, calls, results, i)
			finished <- i
		})
	}
	if !s.opts.ToolUse.Sequential {
		for i := range calls {
			start(i)
		}
	}
	for n := 0; n < len(calls); n++ {
		if s.opts.ToolUse.Sequential {
			start(n)
		}
		select {
		case <-finished:
		case <-ctx.Done():
			return nil, abortError(ctx)
		}
	}
	if ctx.Err() != nil {
		return nil, abortError(ctx)
	}
	return results, nil
}

// runAt answers calls[i] into results[i] and sends its toolresult event, unless ctx ended
// meanwhile (the result is then dropped).
func (r *run) runAt(ctx Context, calls []session.ToolCall, results []session.ToolResult, i int) {
	s := r.s
	t0 := s.clock()
	res := r.runOne(ctx, calls[i])
	if ctx.Err() == nil {
		results[i] = res
		var t *session.Tool // set for the search alone: its result is marked the engine's
		if s.search != nil && calls[i].Name == SearchToolName {
			t = &searchTool
		}
		s.emit(Event{Type: EventToolResult, Call: &calls[i], Tool: t, Result: &res, Duration: s.clock() - t0})
	}
}

// runOne answers one call by the tool policy (policy.go). Every way a call can fail
// becomes a tool error for the model, never a failed prompt: an unknown tool, arguments
// that are not an object or break the schema, a refusal or missing approval, a tool that
// throws or reports isError.
func (r *run) runOne(ctx Context, c session.ToolCall) session.ToolResult {
	s := r.s
	t := s.tools[c.Name]
	if s.search != nil && !r.offered(c.Name) {
		// In search mode the model may call what its step offered, nothing else: a
		// guessed name is told where to look (never the list of every tool).
		return session.ErrorResult(c, "tool "+quote(c.Name)+" is not among the tools you were given; call "+SearchToolName+" to find the tool you need")
	}
	if t == &searchTool {
		return r.search(c) // the engine's own: approve never sees it
	}
	if t == nil && s.gone[c.Name] {
		return session.ErrorResult(c, "tool "+c.Name+" is no longer available: the page unregistered it")
	}
	if t == nil {
		return session.ErrorResult(c, "unknown tool "+quote(c.Name)+"; the tools are: "+strings.Join(s.toolNames(), ", "))
	}
	if raw, bad := r.malformed[c.CallID]; bad {
		return session.ErrorResult(c, "invalid arguments for tool "+c.Name+": not a JSON object: "+raw)
	}
	if msg := t.ValidateArguments(c.Arguments); msg != "" {
		return session.ErrorResult(c, msg)
	}
	if msg := r.approval(ctx, c, t); msg != "" {
		return session.ErrorResult(c, msg)
	}
	if ctx.Err() != nil {
		// An approval that lands as the prompt is aborted starts nothing.
		return session.ErrorResult(c, "the prompt was aborted before the tool ran")
	}
	var mu sync.Mutex // progress may be reported from any goroutine
	progress := func(p jsonv.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() == nil {
			s.emit(Event{Type: EventToolProgress, Call: &c, Progress: p})
		}
	}
	var parts []session.ResultPart
	var err error
	if d, ok := s.opts.Runner.(DeclaredRunner); ok {
		parts, err = d.RunDeclared(ctx, c, t, progress)
	} else {
		parts, err = s.opts.Runner.Run(ctx, c, progress)
	}
	return readResult(t, c, parts, err)
}

func (s *Session) toolNames() []string {
	return order.Keys(s.tools)
}

func quote(s string) string {
	return string(jsonv.AppendString(nil, s))
}
