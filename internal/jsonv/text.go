package jsonv

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The pieces of JSON text that Decode and the in-place readers built on this package
// (the OpenAI backend reads each streamed chunk without building a map) share, so that
// there is one definition of a JSON number and a JSON string.

// NumberEnd returns the offset just past the JSON number that starts at data[i], or
// false where its syntax breaks.
func NumberEnd(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = digits(data, i)
	}
	return i, true
}

// Valid reports whether data is one JSON value, spaces around it allowed, as
// encoding/json's Valid does (nesting depth included), without building anything.
func Valid(data []byte) bool {
	end, ok := ValueEnd(data, SkipSpace(data, 0))
	return ok && SkipSpace(data, end) == len(data)
}

// ValueEnd checks the JSON value that starts at data[i] and returns the offset just past
// it, or false where its syntax breaks (or it nests deeper than encoding/json allows).
func ValueEnd(data []byte, i int) (int, bool) { return valueEnd(data, i, 0) }

func valueEnd(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; c {
	case '"':
		end, _, _, ok := StringEnd(data, i)
		return end, ok
	case '{', '[':
		if depth >= maxDepth {
			return i, false
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == closing {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(data) || data[i] != '"' {
					return i, false
				}
				if i, _, _, ok = StringEnd(data, i); !ok {
					return i, false
				}
				if i = SkipSpace(data, i); i >= len(data) || data[i] != ':' {
					return i, false
				}
				i = SkipSpace(data, i+1)
			}
			if i, ok = valueEnd(data, i, depth+1); !ok {
				return i, false
			}
			switch i = SkipSpace(data, i); {
			case i >= len(data):
				return i, false
			case data[i] == ',':
				i = SkipSpace(data, i+1)
			case data[i] == closing:
				return i + 1, true
			default:
				return i, false
			}
		}
	case 't':
		return literalEnd(data, i, "true")
	case 'f':
		return literalEnd(data, i, "false")
	case 'n':
		return literalEnd(data, i, "null")
	}
	return NumberEnd(data, i)
}

func literalEnd(data []byte, i int, lit string) (int, bool) {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

func digits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// StringEnd checks the JSON string whose opening quote is at data[i] and returns the
// offset just past its closing quote. plain reports that the text between the quotes
// is the value as it stands (no escapes, valid UTF-8), so that no Unescape is needed;
// ascii, that the text is all ASCII. ok is false for a string that is cut short, holds
// a raw control character or a malformed escape.
func StringEnd(data []byte, i int) (end int, plain, ascii, ok bool) {
	start := i + 1
	escaped, high := false, false
	for i = start; i < len(data); i++ {
		// Eight bytes at a time up to the next quote, backslash or control character: a
		// long history is mostly text, and the module reads every message it is given.
		if littleEndian {
			for i+8 <= len(data) {
				w := *(*uint64)(unsafe.Pointer(&data[i]))
				stop := stops(w)
				if stop == 0 {
					high = high || w&highs != 0
					i += 8
					continue
				}
				skip := uint(bits.TrailingZeros64(stop)) &^ 7 // the bits of the bytes before it
				high = high || w&highs&(1<<skip-1) != 0
				i += int(skip >> 3)
				break
			}
			if i >= len(data) {
				break
			}
		}
		c := data[i]
		if plainByte[c] {
			continue
		}
		switch {
		case c == '"':
			return i + 1, !escaped && (!high || utf8.Valid(data[start:i])), !high, true
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return i + 1, false, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := hex4(data, i+2); !ok {
					return i + 2, false, false, false
				}
				i += 5
			default:
				return i + 1, false, false, false
			}
		case c < 0x20:
			return i, false, false, false
		default:
			high = true
		}
	}
	return i, false, false, false
}

// String reads the JSON string whose opening quote is at data[i] as Decode reads it: its
// value, and the offset just past its closing quote; ok is false where StringEnd's is. A
// plain string's value is a substring of in when in is data as a string (pass "" to copy
// it instead), so that reading many strings of one text allocates nothing.
func String(data []byte, in string, i int) (s string, end int, ok bool) {
	end, plain, _, ok := StringEnd(data, i)
	if !ok {
		return "", end, false
	}
	text := data[i+1 : end-1]
	switch {
	case plain && len(in) == len(data):
		return in[i+1 : end-1], end, true
	case plain:
		return string(text), end, true
	}
	return string(Unescape(make([]byte, 0, len(text)), text)), end, true
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// stops marks, in the high bit of each of the eight bytes of w, the bytes StringEnd must
// stop at: a quote, a backslash or a control character (not the bytes of multi-byte
// characters: the caller notes those from highs). These are the usual word-at-a-time
// tests ("has a zero byte", "has a byte less than n"): the lowest mark is exact, marks
// above it may not be, which is all the caller uses.
func stops(w uint64) uint64 {
	q, b := w^('"'*ones), w^('\\'*ones)
	return (((w - 0x20*ones) &^ w) | ((q - ones) &^ q) | ((b - ones) &^ b)) & highs
}

// littleEndian is whether a word loaded from memory holds its first byte lowest, which
// StringEnd's word-at-a-time loop assumes (wasm, amd64 and arm64 do); elsewhere they go byte by byte.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// plainByte marks the bytes a string's text holds as they are: not the closing quote, a
// backslash, a control character (an error) or part of a multi-byte character.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Unescape appends the value of a string's text (what lies between its quotes, checked
// by StringEnd) to dst, decoded as encoding/json decodes it: escapes resolved, a
// surrogate pair joined into one character, a lone surrogate and each byte of invalid
// UTF-8 made U+FFFD.
func Unescape(dst, text []byte) []byte {
	for i := 0; i < len(text); {
		start := i
		for i < len(text) && text[i] != '\\' && text[i] < utf8.RuneSelf {
			i++
		}
		dst = append(dst, text[start:i]...)
		switch {
		case i == len(text):
			return dst
		case text[i] != '\\':
			r, size := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, text[i:i+size]...)
			}
			i += size
		case text[i+1] == 'u':
			r, _ := hex4(text, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				// Joined with an escaped low surrogate right after it, else U+FFFD, and
				// whatever follows is read anew.
				if i+6 <= len(text) && text[i] == '\\' && text[i+1] == 'u' {
					r2, _ := hex4(text, i+2)
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						dst = utf8.AppendRune(dst, pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = append(dst, unescaped[text[i+1]])
			i += 2
		}
	}
	return dst
}

// unescaped maps the letter of a one-letter escape to the byte it stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads the four hex digits of a \u escape at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
