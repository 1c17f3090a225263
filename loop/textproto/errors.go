package textproto

import "errors"

// Why a block opened by a call delimiter could not be read as calls: Block.Err wraps
// one or two of these, and the repair message quotes it to the model.
var (
	ErrBadJSON    = errors.New("the block is not valid JSON")
	ErrNotCall    = errors.New(`a call must be a JSON object with "name" (a non-empty string) and "arguments" (a JSON object)`)
	ErrEmptyBlock = errors.New("the block is empty")
	ErrNotClosed  = errors.New("the block was not closed")
)
