package openai

import (
	"strconv"
	"strings"

	"langmodel/loop"
)

// Backoff bounds: exponential from baseDelay, never longer than maxDelay, whatever the
// server's Retry-After asks (a page should not hang for minutes behind a spinner).
const (
	baseDelay = 500 * loop.Millisecond
	maxDelay  = 20 * loop.Second
)

func retryable(status int) bool {
	return status == 429 || status == 500 || status == 502 || status == 503 || status == 504
}

// backoff is the wait before retry number attempt+1: the server's Retry-After (seconds or
// an HTTP date, against now in Unix seconds) when it gives one, else 0.5 s, 1 s, 2 s, …;
// at most maxDelay.
func backoff(attempt int, retryAfter string, now int64) loop.Duration {
	d := baseDelay << attempt
	if ra := strings.TrimSpace(retryAfter); ra != "" {
		if secs, err := strconv.ParseFloat(ra, 64); err == nil && secs >= 0 {
			d = loop.Duration(secs * float64(loop.Second))
		} else if t, ok := httpDate(ra); ok {
			d = loop.Duration(max(min(t-now, 1<<32), -1)) * loop.Second // clamped: no overflow
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

// httpDate reads an HTTP date (RFC 9110 IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"),
// the form Retry-After takes, in Unix seconds. By hand: time.Parse links about 12 KB
// brotli of layout parsing that nothing else needs, and the module links no package time
// at all (internal/clock, make size).
func httpDate(s string) (int64, bool) {
	// Sun, 06 Nov 1994 08:49:37 GMT
	// 0123456789012345678901234567890
	if len(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
		s[19] != ':' || s[22] != ':' || s[25:] != " GMT" {
		return 0, false
	}
	month := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s[8:11])
	if month < 0 || month%3 != 0 {
		return 0, false
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range []byte(s[from:to]) {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	day, year, hh, mm, ss := num(5, 7), num(12, 16), num(17, 19), num(20, 22), num(23, 25)
	if day < 1 || day > 31 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 {
		return 0, false
	}
	return unixDays(year, month/3+1)*86400 + int64((day-1)*86400+hh*3600+mm*60+ss), true
}

// unixDays is the number of days from 1970-01-01 to the first day of month m (1-12) of
// year y (0-9999), proleptic Gregorian; the day and time are added to it linearly, so a
// day past the month's end carries over as time.Date's normalisation does. By hand:
// time.Date (and Location.lookup behind it) links time's time-zone code (make size).
func unixDays(y, m int) int64 {
	if m <= 2 { // count from March, so that the leap day ends the year
		y--
	}
	era := (y+400)/400 - 1 // floor(y/400) for y >= -1
	yoe := y - era*400
	doy := (153*((m+9)%12) + 2) / 5
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - 719468
}
