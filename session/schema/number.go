package schema

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
)

// Numbers are compared exactly, on their decimal text: float64 is only a
// fast path (rounding is monotonic, so distinct floats order the decimals
// they came from; equal floats fall back to the exact comparison).

// decimal is an exact finite decimal: (-1)^neg × digits × 10^exp, where
// digits has no leading or trailing zeros ("" for zero, which is never neg).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

const maxExp = 1 << 40 // exponents are clamped here; no JSON text gets close

// parseDecimal parses JSON number syntax (leniently: a leading '+' and a
// missing integer or fraction part are accepted, for Go-formatted floats).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	if intPart == "" && frac == "" {
		return d, false
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			if e < maxExp {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return d, false
		}
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return d, false
	}
	digits := intPart
	if frac != "" {
		digits = intPart + frac
	}
	e -= int64(len(frac))
	for digits != "" && digits[0] == '0' {
		digits = digits[1:]
	}
	t := digits
	for t != "" && t[len(t)-1] == '0' {
		t = t[:len(t)-1]
	}
	e += int64(len(digits) - len(t))
	d.digits, d.exp = t, e
	if t == "" {
		d.neg, d.exp = false, 0
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d decimal) isInteger() bool { return d.digits == "" || d.exp >= 0 }

// cmpDecimal returns -1, 0 or +1 as a <, ==, > b.
func cmpDecimal(a, b decimal) int {
	switch {
	case a.digits == "" && b.digits == "":
		return 0
	case a.digits == "":
		if b.neg {
			return 1
		}
		return -1
	case b.digits == "":
		if a.neg {
			return -1
		}
		return 1
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpMagnitude(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpMagnitude(a, b decimal) int {
	// position of the most significant digit
	ma, mb := int64(len(a.digits))+a.exp, int64(len(b.digits))+b.exp
	if ma != mb {
		if ma < mb {
			return -1
		}
		return 1
	}
	return strings.Compare(a.digits, b.digits)
}

// isMultiple reports whether a is an integer multiple of b (b > 0, with at
// most maxMultipleDigits significant digits, checked at compile time).
// With a = A×10^ea and b = B×10^eb (A, B without trailing zeros),
// a/b = (A/B)×10^k for k = ea-eb. For k < 0 it is never an integer, since
// B×10^-k would have to divide A, which is not a multiple of 10. For k >= 0
// it is one exactly when A×10^k ≡ 0 (mod B), computed in uint64 arithmetic
// (with 128-bit intermediates) so that math/big stays out of the binary.
func isMultiple(a, b decimal) bool {
	if a.digits == "" {
		return true
	}
	k := a.exp - b.exp
	if k < 0 {
		return false
	}
	m, _ := strconv.ParseUint(b.digits, 10, 64)
	if m == 1 {
		return true
	}
	var r uint64 // A mod m
	for i := 0; i < len(a.digits); i++ {
		hi, lo := bits.Mul64(r, 10)
		lo, carry := bits.Add64(lo, uint64(a.digits[i]-'0'), 0)
		r = bits.Rem64(hi+carry, lo, m)
	}
	// r × 10^k mod m, by square and multiply
	for base := uint64(10) % m; k > 0 && r != 0; k >>= 1 {
		if k&1 == 1 {
			r = mulMod(r, base, m)
		}
		base = mulMod(base, base, m)
	}
	return r == 0
}

// maxMultipleDigits bounds the significant digits of a multipleOf value, so
// that it fits a uint64.
const maxMultipleDigits = 19

func mulMod(x, y, m uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return bits.Rem64(hi, lo, m)
}

// number is a numeric keyword value, parsed once at compile time.
type number struct {
	text string
	f    float64
	dec  decimal
}

func newNumber(v any) (*number, bool) {
	s, ok := numText(v)
	if !ok {
		return nil, false
	}
	d, ok := parseDecimal(s)
	if !ok {
		return nil, false
	}
	f, _ := strconv.ParseFloat(s, 64)
	return &number{text: s, f: f, dec: d}, true
}

// cmpNumber compares instance number text s (f is its float value, fok false
// if it did not parse) to a keyword value; ok is false when s is malformed.
func cmpNumber(s string, f float64, fok bool, lim *number) (c int, ok bool) {
	if fok && f != lim.f {
		if f < lim.f {
			return -1, true
		}
		return 1, true
	}
	d, ok := parseDecimal(s)
	if !ok {
		return 0, false
	}
	return cmpDecimal(d, lim.dec), true
}

// numText returns the decimal text of a numeric instance value: jsonv.Number
// as is, Go floats and integers formatted. NaN and infinities are not JSON.
func numText(v any) (string, bool) {
	switch x := v.(type) {
	case jsonv.Number:
		return string(x), true
	case float64:
		return floatText(x, 64)
	case float32:
		return floatText(float64(x), 32)
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

func floatText(f float64, bits int) (string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, bits), true
}

// isIntegerText reports whether number text has a zero fractional part.
func isIntegerText(s string) bool {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			plain = false
			break
		}
	}
	if plain {
		return true
	}
	d, ok := parseDecimal(s)
	return ok && d.isInteger()
}

// numEqual reports whether two number texts denote the same value.
func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	da, ok1 := parseDecimal(a)
	db, ok2 := parseDecimal(b)
	return ok1 && ok2 && cmpDecimal(da, db) == 0
}
