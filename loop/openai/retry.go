package openai

import (
	"strconv"
	"strings"
	"time"
)

// Backoff bounds: exponential from baseDelay, never longer than maxDelay, whatever the
// server's Retry-After asks (a page should not hang for minutes behind a spinner).
const (
	baseDelay = 500 * time.Millisecond
	maxDelay  = 20 * time.Second
)

func retryable(status int) bool {
	return status == 429 || status == 500 || status == 502 || status == 503 || status == 504
}

// backoff is the wait before retry number attempt+1: the server's Retry-After (seconds or
// an HTTP date) when it gives one, else 0.5 s, 1 s, 2 s, …; at most maxDelay.
func backoff(attempt int, retryAfter string, now time.Time) time.Duration {
	d := baseDelay << attempt
	if ra := strings.TrimSpace(retryAfter); ra != "" {
		if secs, err := strconv.ParseFloat(ra, 64); err == nil && secs >= 0 {
			d = time.Duration(secs * float64(time.Second))
		} else if t, err := time.Parse(time.RFC1123, ra); err == nil {
			d = t.Sub(now)
		}
	}
	if d < 0 {
		d = 0
	}
	if d > maxDelay {
		d = maxDelay
	}
	return d
}
