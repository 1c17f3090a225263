package openai

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
)

func TestBackoff_RetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, retryAfter string
		attempt          int
		want             loop.Duration
	}{
		{"none: exponential from 0.5 s", "", 2, 2 * loop.Second},
		{"seconds", "3", 0, 3 * loop.Second},
		{"fractional seconds", " 1.5 ", 0, 1500 * loop.Millisecond},
		{"an HTTP date", "Wed, 25 Nov 2026 08:00:07 GMT", 0, 7 * loop.Second},
		{"an HTTP date in the past", "Wed, 25 Nov 2026 07:59:00 GMT", 0, 0},
		{"an HTTP date past the cap", "Thu, 26 Nov 2026 08:00:00 GMT", 0, maxDelay},
		{"over the cap", "3600", 0, maxDelay},
		{"a date in another zone is not an HTTP date", "Wed, 25 Nov 2026 08:00:07 EST", 1, loop.Second},
		{"a bad month", "Wed, 25 Nob 2026 08:00:07 GMT", 1, loop.Second},
		{"a bad hour", "Wed, 25 Nov 2026 24:00:07 GMT", 1, loop.Second},
		{"a one-digit day", "Wed, 5 Nov 2026 08:00:07 GMT", 1, loop.Second},
		{"garbage", "soon", 1, loop.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, backoff(tc.attempt, tc.retryAfter, now.Unix()))
		})
	}
}

// TestHTTPDate_AsTimeDate: httpDate counts days by hand; it must land where time.Date
// does, its normalisation of out-of-range days and seconds included.
func TestHTTPDate_AsTimeDate(t *testing.T) {
	for _, tc := range []struct {
		name, date string
		want       time.Time
	}{
		{"RFC 9110's example", "Sun, 06 Nov 1994 08:49:37 GMT", time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)},
		{"the epoch", "Thu, 01 Jan 1970 00:00:00 GMT", time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"before the epoch", "Wed, 31 Dec 1969 23:59:59 GMT", time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"a leap day", "Thu, 29 Feb 2024 12:00:00 GMT", time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)},
		{"the day after a leap day", "Fri, 01 Mar 2024 00:00:00 GMT", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"February 29 of a year without one carries over", "Sun, 29 Feb 2026 00:00:00 GMT", time.Date(2026, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"a century without a leap day", "Mon, 29 Feb 2100 00:00:00 GMT", time.Date(2100, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"April 31 carries over", "Fri, 31 Apr 2026 00:00:00 GMT", time.Date(2026, 4, 31, 0, 0, 0, 0, time.UTC)},
		{"a leap second carries over", "Thu, 31 Dec 2026 23:59:60 GMT", time.Date(2026, 12, 31, 23, 59, 60, 0, time.UTC)},
		{"year 0", "Sat, 01 Jan 0000 00:00:00 GMT", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year 0, after its leap day", "Wed, 01 Mar 0000 00:00:00 GMT", time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"year 9999", "Fri, 31 Dec 9999 23:59:59 GMT", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := httpDate(tc.date)
			require.True(t, ok)
			require.Equal(t, tc.want.Unix(), got)
		})
	}
}
