package session

import (
	"errors"

	"langmodel/internal/sfmt"
)

// Kind is the name of the exception a failure becomes in the page: a DOMException name,
// or "TypeError" for the ECMAScript error. The engine keeps errors as values; only js/
// builds exceptions from {kind, message, fields}. See RATIONALE.md "Why are errors values, and who builds the DOMException?".
type Kind string

// The kinds the explainer and DESIGN.md §3 name.
const (
	KindType          Kind = "TypeError"
	KindRange         Kind = "RangeError" // an ECMAScript error too, like TypeError
	KindNotSupported  Kind = "NotSupportedError"
	KindSyntax        Kind = "SyntaxError"
	KindAbort         Kind = "AbortError"
	KindInvalidState  Kind = "InvalidStateError"
	KindQuotaExceeded Kind = "QuotaExceededError"
	KindData          Kind = "DataError"
	KindOperation     Kind = "OperationError"
	KindNetwork       Kind = "NetworkError"
	KindNotAllowed    Kind = "NotAllowedError"
)

// One sentinel per rule. A violation wraps its rule, so errors.Is(err, ErrPrefixNotLast)
// holds, and carries the Kind the page sees.
var (
	ErrSystemNotFirst      = errors.New("a system message may only be the first message of the session")
	ErrPrefixNotAssistant  = errors.New("prefix is only allowed on an assistant message")
	ErrPrefixNotLast       = errors.New("prefix is only allowed on the last message")
	ErrUnknownRole         = errors.New("unknown role")
	ErrUnknownContentType  = errors.New("unknown content type")
	ErrBadMessage          = errors.New("malformed message")
	ErrTextNotString       = errors.New("text content must be a string")
	ErrAssistantContent    = errors.New("assistant messages may only hold text and tool calls")
	ErrUnexpectedInput     = errors.New("content type not declared in expectedInputs")
	ErrMisplacedToolPart   = errors.New("tool content in a message of the wrong role")
	ErrBadToolCall         = errors.New("malformed tool call")
	ErrBadToolResult       = errors.New("malformed tool result")
	ErrResultWithoutCall   = errors.New("a tool result must answer an earlier, unanswered tool call")
	ErrDuplicateCallID     = errors.New("callID already used by an unanswered tool call")
	ErrBadTool             = errors.New("invalid tool declaration")
	ErrUnsupportedSchema   = errors.New("unsupported JSON Schema feature")
	ErrToolsNeedToolOutput = errors.New(`tools without execute need {type: "tool-call"} in expectedOutputs`)
	ErrQuotaExceeded       = errors.New("the input does not fit in the context window")
	ErrAborted             = errors.New("aborted")
	ErrDestroyed           = errors.New("the session has been destroyed")
	ErrToolLimit           = errors.New("tool call limit reached")
	ErrModel               = errors.New("the model failed")
)

// Error is a rule violation: which rule, the kind the page sees, and where it happened.
type Error struct {
	Kind Kind
	Rule error  // the sentinel; errors.Is matches it
	Msg  string // the full message: rule and detail
	// Requested and Quota are set for KindQuotaExceeded (the explainer's QuotaExceededError).
	Requested, Quota int
	cause            error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the rule and, when there is one, the cause (a context error, a schema error).
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Rule, e.cause}
	}
	return []error{e.Rule}
}

// Errorf builds a violation of rule: "rule: detail".
func Errorf(kind Kind, rule error, format string, args ...any) *Error {
	msg := rule.Error()
	if format != "" {
		msg += ": " + sfmt.Sprintf(format, args...)
	}
	return &Error{Kind: kind, Rule: rule, Msg: msg}
}

// Wrap builds a violation of rule caused by err; the message is "rule: err".
func Wrap(kind Kind, rule error, err error) *Error {
	return &Error{Kind: kind, Rule: rule, Msg: rule.Error() + ": " + err.Error(), cause: err}
}

// KindOf returns the kind the page sees for err. Context cancellation and deadlines are
// aborts; anything the engine did not classify is an OperationError.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	if contextEnded(err) {
		return KindAbort
	}
	return KindOperation
}

// contextEnded reports whether err is or wraps the error of a context that ended:
// context.Canceled, context.DeadlineExceeded (a Go caller's context) or loop.Canceled.
// By their text, which package context fixes as firmly as the values: naming the values
// would link package context, and package time behind it, into the module (internal/clock).
func contextEnded(err error) bool {
	for err != nil {
		if s := err.Error(); s == "context canceled" || s == "context deadline exceeded" {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if contextEnded(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
