package loop

import (
	"langmodel/session"
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
