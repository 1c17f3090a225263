package openai

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBackoff_RetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, retryAfter string
		attempt          int
		want             time.Duration
	}{
		{"none: exponential from 0.5 s", "", 2, 2 * time.Second},
		{"seconds", "3", 0, 3 * time.Second},
		{"fractional seconds", " 1.5 ", 0, 1500 * time.Millisecond},
		{"an HTTP date", "Wed, 25 Nov 2026 08:00:07 GMT", 0, 7 * time.Second},
		{"an HTTP date in the past", "Wed, 25 Nov 2026 07:59:00 GMT", 0, 0},
		{"an HTTP date past the cap", "Thu, 26 Nov 2026 08:00:00 GMT", 0, maxDelay},
		{"over the cap", "3600", 0, maxDelay},
		{"a date in another zone is not an HTTP date", "Wed, 25 Nov 2026 08:00:07 EST", 1, time.Second},
		{"a bad month", "Wed, 25 Nob 2026 08:00:07 GMT", 1, time.Second},
		{"a bad hour", "Wed, 25 Nov 2026 24:00:07 GMT", 1, time.Second},
		{"a one-digit day", "Wed, 5 Nov 2026 08:00:07 GMT", 1, time.Second},
		{"garbage", "soon", 1, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, backoff(tc.attempt, tc.retryAfter, now))
		})
	}
}
