package loop

import (
	"langmodel/internal/jsonv"
	"langmodel/session"
)

// EventType names a session event as the page sees it.
type EventType string

const (
	EventToolCall        EventType = "toolcall"        // a call the loop will handle has been requested
	EventToolProgress    EventType = "toolprogress"    // a running tool reported progress
	EventToolResult      EventType = "toolresult"      // a call ended: result or error
	EventContextOverflow EventType = "contextoverflow" // older messages were evicted
	EventStepUsage       EventType = "stepusage"       // a model step ended: its tokens and time
	EventReasoning       EventType = "reasoning"       // the model thought: Text is the new piece
	EventToolCallDelta   EventType = "toolcalldelta"   // a call the model is still writing (forming.go)
)

// Event is one step event. Handlers run on the goroutine that produced the event (tool
// goroutines for progress and results), so they must be safe for concurrent use.
type Event struct {
	Type     EventType
	Call     *session.ToolCall   // toolcall, toolprogress, toolresult
	Tool     *session.Tool       // toolcall: its annotations; nil for an unknown tool. toolresult: the search tool for its own (builtin)
	Progress jsonv.RawMessage    // toolprogress
	Result   *session.ToolResult // toolresult
	Duration Duration            // toolresult, stepusage
	Evicted  int                 // contextoverflow: how many messages the first eviction of the operation removed, or a compaction
	// Compacted marks a contextoverflow that compactOnOverflow answered: the history was
	// compacted from Before to After units of context usage (each compaction sends one).
	Compacted     bool
	Before, After int
	Step          *StepUsage // stepusage
	Text          string     // reasoning
	Forming       *Forming   // toolcalldelta
}

// StepUsage is what one model step spent: its input (the request) and output (the reply)
// in tokens, the backend's figures when it reported them, else the estimate
// (session.Cost, the measure of contextUsage), and how many calls it made.
type StepUsage struct {
	InputTokens, OutputTokens int
	Estimated                 bool // the figures are the estimate: the backend reported none
	CachedTokens              int  // of InputTokens, those the backend had cached (Usage.CachedTokens)
	Cached                    bool // the backend reported CachedTokens
	ToolCalls                 int
	Backend                   int // Request.Backend: which member of a chain answered, plus one
}

// Totals is what a session's model steps have spent since it was created (a clone's and
// a restored session's from the original's): session.usage. Steps that ended with an
// error, aborted or over a limit count too, since their tokens were spent even though
// the history forgets them; a step that failed inside the model does not (its figures
// are unknown).
type Totals struct {
	InputTokens, OutputTokens int
	Steps                     int
	Estimated                 int // of Steps, those whose figures are the estimate
	// CachedTokens are, of InputTokens, those the backends reported cached
	// (StepUsage.CachedTokens); a step whose backend reports none adds nothing.
	CachedTokens int
}

// add counts one step.
func (t *Totals) add(u StepUsage) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.Steps++
	t.CachedTokens += u.CachedTokens
	if u.Estimated {
		t.Estimated++
	}
}
