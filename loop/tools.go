package loop

import (
	"langmodel/internal/jsonv"
	"langmodel/session"
)

// ToolRunner is the port that runs a tool's execute: in the browser it calls the page's
// JS function; in tests, Go functions. Run returns the result parts, or an error whose
// message goes back to the model as a tool error. It must return when ctx is done (the
// prompt was aborted or the session destroyed): the loop runs a step's lone call on its
// own goroutine and waits for it, and gives up at once only on calls run side by side.
// progress reports the tool's progress(value) calls, as JSON.
type ToolRunner interface {
	Run(ctx Context, call session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error)
}

// DeclaredRunner is a ToolRunner that runs a call by the declaration the loop checked
// and approved it against (its Source: the route taken when the step's tools were), never
// by looking the call's name up when it runs: the loop calls RunDeclared rather than Run
// when the runner has it. It refuses with an error (a tool error for the model) a tool
// whose source no longer offers exactly that declaration (loop/policy.go).
type DeclaredRunner interface {
	RunDeclared(ctx Context, call session.ToolCall, tool *session.Tool, progress func(jsonv.RawMessage)) ([]session.ResultPart, error)
}

// RunnerFunc adapts a function to ToolRunner.
type RunnerFunc func(ctx Context, call session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error)

// Run calls f.
func (f RunnerFunc) Run(ctx Context, call session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	return f(ctx, call, progress)
}

// Approver decides whether a call may run. It returns ok, or a reason for refusing; an
// error counts as a refusal with the error's message. Its ctx ends with the prompt.
type Approver func(ctx Context, call session.ToolCall, tool *session.Tool) (ok bool, reason string, err error)

// OnLimit is what happens when a prompt reaches a limit: more calls than MaxToolCalls
// allows, an identical call asked for more than MaxRepeatedCalls times, or MaxTokens spent.
type OnLimit string

const (
	// LimitError rejects the prompt with an OperationError naming the limit.
	LimitError OnLimit = "error"
	// LimitAnswer answers the extra calls with a tool error and asks the model once more,
	// with tools off, for a final answer.
	LimitAnswer OnLimit = "answer"
)

// DefaultMaxToolCalls is toolUseConfig.maxToolCalls when the page gives none.
const DefaultMaxToolCalls = 16

// DefaultMaxRepeatedCalls is toolUseConfig.maxRepeatedCalls when the page gives none: an
// identical call (same tool, same canonical arguments) may run three times in one prompt,
// and the fourth stops the loop. A model that asks again for what it has just been
// answered is stuck; small models are, often (vercel/ai #17606). See RATIONALE.md "Why
// does a repeated call stop the loop by default?".
const DefaultMaxRepeatedCalls = 3

// ToolUse is toolUseConfig. The zero value is the default: enabled, 16 calls, parallel,
// onLimit "error", no approval.
type ToolUse struct {
	Disabled     bool // enabled === false: every call goes back to the page
	MaxToolCalls int  // 0 means DefaultMaxToolCalls
	// MaxRepeatedCalls is how many times one identical call may run in a prompt: 0 means
	// DefaultMaxRepeatedCalls, below 0 no limit (maxRepeatedCalls: 0).
	MaxRepeatedCalls int
	// MaxTokens is the prompt's token budget, input and output of all its model steps
	// (the backend's figures where it reports them, the estimate otherwise); 0: none.
	// It is checked before the loop runs a step's calls.
	MaxTokens  int
	Sequential bool // parallel === false: a step's calls run one after another
	OnLimit    OnLimit
	Approve    Approver
	// Search is toolSearch: when the declarations do not fit their share of the window,
	// the model finds tools by searching (toolsearch.go).
	Search ToolSearch
}

func (u ToolUse) max() int {
	if u.MaxToolCalls <= 0 {
		return DefaultMaxToolCalls
	}
	return u.MaxToolCalls
}

// maxRepeated is MaxRepeatedCalls with its default; 0 means no limit.
func (u ToolUse) maxRepeated() int {
	switch {
	case u.MaxRepeatedCalls == 0:
		return DefaultMaxRepeatedCalls
	case u.MaxRepeatedCalls < 0:
		return 0
	}
	return u.MaxRepeatedCalls
}

// Mode is how a session uses its tools, decided once at creation (DESIGN.md §3).
type Mode string

const (
	ModeNone   Mode = "none"   // no tools
	ModeClosed Mode = "closed" // every tool has execute: the loop runs every call
	ModeOpen   Mode = "open"   // no tool has execute, or tool use is disabled: calls go to the page
	ModeHybrid Mode = "hybrid" // some do: those run, the others go to the page
)

func modeOf(tools []session.Tool, use ToolUse) Mode {
	if len(tools) == 0 {
		return ModeNone
	}
	if use.Disabled {
		return ModeOpen
	}
	n := 0
	for _, t := range tools {
		if t.HasExecute {
			n++
		}
	}
	switch n {
	case 0:
		return ModeOpen
	case len(tools):
		return ModeClosed
	default:
		return ModeHybrid
	}
}
