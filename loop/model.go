package loop

import (
	"langmodel/internal/jsonv"
	"langmodel/session"
)

// Model is the port a backend implements: one step of generation. Step reads the request,
// streams what the model produces through emit, in order, and returns when the step is
// complete. It must stop promptly, returning ctx.Err(), when ctx is done. An error
// returned by emit means the loop wants no more: Step returns it.
type Model interface {
	Step(ctx Context, req *Request, emit func(Delta) error) error
}

// Request is one step's input. Messages is the session's own history, shared without a
// copy: a Model must not modify it or keep it after Step returns.
type Request struct {
	Messages []session.Message
	// Tools are the declarations the model may call this step; empty when tools are off
	// (no tools, toolUseConfig.enabled false, or the final step after onLimit "answer").
	Tools      []session.Tool
	ToolChoice ToolChoice
	// ResponseConstraint is a JSON Schema the answer must match, or nil.
	ResponseConstraint  jsonv.RawMessage
	OmitConstraintInput bool
	SamplingMode        string
	// ContextWindow is the session's window. A reply longer than it could never be kept:
	// the loop stops a step whose deltas outgrow it, and a wrapper that holds the model's
	// text back (textproto, until a call block closes) must stop it too (ReplyTooLong).
	ContextWindow int
	// Backend is the one field a Model sets: a chain of backends (loop/chain) says which
	// of its members answered, its index plus one, for the stepusage event and recordings.
	Backend int
	// Failed is the prompt's memory of a chain's members that failed (loop/chain): a bit
	// per member, set by the chain, kept by the loop across the steps of one prompt() and
	// new for the next. nil: none kept (a compaction's summary step).
	Failed *uint64
	// Forming asks for Delta.Forming as calls are written: someone listens for
	// toolcalldelta. A model that cannot tell may ignore it; without it a model sends none.
	Forming bool
}

// ToolChoice tells the model whether it may, must or must not call tools.
type ToolChoice struct {
	Mode string // "auto" (the zero value), "none", "required" or "tool"
	Name string // the tool, when Mode is "tool"
}

// Delta is one piece of a step: text, reasoning, a complete tool call, or usage figures.
type Delta struct {
	Text string
	// Reasoning is what the model thinks before it answers (reasoning_content, or a
	// <think> block split from the text by Thinking): never the answer, never a call.
	Reasoning string
	Call      *session.ToolCall // arguments complete; CallID may be empty (the loop assigns one)
	Usage     *Usage
	Forming   *Forming // provisional, only when Request.Forming asks: only Call says that a call happens
}

// Usage is what a backend reports of a step, when it knows.
type Usage struct {
	InputTokens, OutputTokens int
	// CachedTokens are the input tokens the backend found already processed, in its
	// prompt-prefix cache (OpenAI's and llama.cpp's usage.prompt_tokens_details.cached_tokens;
	// wllama's too); Cached says that it reported them.
	CachedTokens int
	Cached       bool
}

// Windowed is implemented by models that know their context window.
type Windowed interface {
	ContextWindow() int
}

// Linguist is implemented by models that know which languages they serve; availability()
// answers "unavailable", and create() rejects with NotSupportedError, for an expected
// language a model does not serve. A model that does not say serves the languages of
// session.CommonLanguage.
type Linguist interface {
	// ServesLanguage reports whether the model reads and writes the language of tag, a
	// canonical BCP 47 tag (session.CanonicalLanguageTag).
	ServesLanguage(tag string) bool
}

// DefaultContextWindow is the window of a model that does not say.
const DefaultContextWindow = 32768
