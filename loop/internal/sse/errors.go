package sse

import "errors"

// ErrTooLarge: an event (its data lines together, with the newlines that join them) or
// one line of the stream is larger than the limit Read was given. The caller names the
// server and the limit.
var ErrTooLarge = errors.New("an event is larger than the limit")
