package loop

import "langmodel/internal/clock"

// Duration is a span of time in nanoseconds: an event's duration, a server's timeout.
// Not time.Duration: the module does not link package time (internal/clock says why);
// a time.Duration converts to one and back without loss (loop.Duration(d),
// time.Duration(d)).
type Duration = clock.Duration

// The units Go callers and backends write durations in.
const (
	Millisecond = clock.Millisecond
	Second      = clock.Second
	Minute      = clock.Minute
)
