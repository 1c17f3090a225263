package loop

import (
	"errors"

	"langmodel/session"
)

// The stops beside maxToolCalls (session.ErrToolLimit), each an OperationError under
// onLimit "error".
var (
	// ErrRepeatedCall: the model asked for the same call (same tool, same canonical
	// arguments) more than toolUseConfig.maxRepeatedCalls times in one prompt.
	ErrRepeatedCall = errors.New("repeated tool call")
	// ErrTokenBudget: the prompt's model steps spent more than toolUseConfig.maxTokens.
	ErrTokenBudget = errors.New("token budget spent")
)

// FailedPrompt is the error of a prompt or append that failed, was aborted or went over
// the limit. The history is then exactly as it was before the call; Transcript holds what
// the call had added before it failed, for inspection.
type FailedPrompt struct {
	Err        error
	Transcript []session.Message
}

func (e *FailedPrompt) Error() string { return e.Err.Error() }
func (e *FailedPrompt) Unwrap() error { return e.Err }
