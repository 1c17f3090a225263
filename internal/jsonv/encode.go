package jsonv

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"langmodel/internal/order"
	"langmodel/internal/sfmt"
)

// Marshal returns v's JSON encoding, byte for byte what json.Marshal returns: map keys
// sorted, strings escaped for HTML (<, > and & as \u003c, \u003e, \u0026), numbers as
// given. v may be what Decode returns — nil, bool, string, Number, []any,
// map[string]any — and also float64, int, int64, []string, map[string]string or
// RawMessage (compacted, as json.Marshal does a json.RawMessage). Anything else is an error.
func Marshal(v any) ([]byte, error) { return Append(nil, v) }

// Append appends v's encoding (as Marshal) to dst. On error dst is returned unchanged.
func Append(dst []byte, v any) ([]byte, error) {
	out, err := appendValue(dst, v)
	if err != nil {
		return dst, err
	}
	return out, nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return AppendString(b, v), nil
	case Number:
		return appendNumber(b, v)
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, e)
		}
		return append(b, ']'), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range order.Keys(v) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendString(b, k), ':')
			var err error
			if b, err = appendValue(b, v[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case map[string]string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range order.Keys(v) {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(append(AppendString(b, k), ':'), v[k])
		}
		return append(b, '}'), nil
	case RawMessage:
		if v == nil {
			return append(b, "null"...), nil
		}
		var c bytes.Buffer
		if err := Compact(&c, v); err != nil {
			return b, sfmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: %w", err)
		}
		return appendHTMLEscaped(b, c.Bytes()), nil
	}
	return b, sfmt.Errorf("json: unsupported type: %T", v)
}

// appendHTMLEscaped appends JSON text with <, >, &, U+2028 and U+2029 escaped, as
// json.HTMLEscape does (its loop, without a bytes.Buffer: HTMLEscape is 3 KB of code).
func appendHTMLEscaped(b, js []byte) []byte {
	start := 0
	for i, c := range js {
		if c == '<' || c == '>' || c == '&' {
			b = append(append(b, js[start:i]...), '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		}
		// U+2028 and U+2029 are E2 80 A8 and E2 80 A9
		if c == 0xE2 && i+2 < len(js) && js[i+1] == 0x80 && js[i+2]&^1 == 0xA8 {
			b = append(append(b, js[start:i]...), '\\', 'u', '2', '0', '2', hex[js[i+2]&0xF])
			start = i + len("\u2029")
		}
	}
	return append(b, js[start:]...)
}

// appendNumber writes a json.Number as its text, after checking it is a JSON number;
// the empty Number is 0, as encoding/json has it.
func appendNumber(b []byte, n Number) ([]byte, error) {
	if n == "" {
		return append(b, '0'), nil
	}
	if end, ok := NumberEnd([]byte(n), 0); !ok || end != len(n) {
		return b, sfmt.Errorf("json: invalid number literal %q", string(n))
	}
	return append(b, n...), nil
}

// appendFloat formats f as encoding/json does: like JavaScript, decimal notation
// between 1e-6 and 1e21, exponent notation (with no leading zero in the exponent)
// outside it.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, sfmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as json.Marshal escapes it: control
// characters, quote and backslash; <, > and & (so the text is safe inside HTML);
// U+2028 and U+2029 (so it is a valid JavaScript literal); invalid UTF-8 becomes
// U+FFFD.
func AppendString(b []byte, s string) []byte { return appendString(b, s, true) }

// AppendStringKeepHTML is AppendString with <, > and & kept as they are, as
// json.Encoder writes them after SetEscapeHTML(false): for JSON that no HTML page embeds,
// such as the module's channel to its JS face.
func AppendStringKeepHTML(b []byte, s string) []byte { return appendString(b, s, false) }

// plainASCII says which bytes need no escaping: bit keepHTML where <, > and & stay,
// bit escapeHTML where they are escaped; none beyond ASCII (those go through the rune
// path). One lookup per byte, where the comparisons were six: long histories are
// exported whole (session.history, worker mode's copy).
var plainASCII = func() (t [256]uint8) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		switch c {
		case '"', '\\':
		case '<', '>', '&':
			t[c] = keepHTML
		default:
			t[c] = keepHTML | escapeHTML
		}
	}
	return t
}()

const (
	keepHTML   = 1
	escapeHTML = 2
)

func appendString(b []byte, s string, escapeHTMLChars bool) []byte {
	b = append(b, '"')
	plain := uint8(keepHTML)
	if escapeHTMLChars {
		plain = escapeHTML
	}
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c]&plain != 0 {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
