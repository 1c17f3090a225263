//go:build !js

package clock

import "time"

// start is the origin of Now.
var start = time.Now()

// Now is the time since the program started, by the monotonic clock.
func Now() Duration { return Duration(time.Since(start)) }

// Unix is the wall clock in seconds since 1970 UTC.
func Unix() int64 { return time.Now().Unix() }

// defaultSchedule is package time's timers.
func defaultSchedule(d Duration, fire func()) (cancel func()) {
	t := time.AfterFunc(time.Duration(d), fire)
	return func() { t.Stop() }
}
