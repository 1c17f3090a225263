package jsonv

import (
	"bytes"
	"strconv"
)

// The module's own names for encoding/json's RawMessage, Number, SyntaxError, Compact
// and the scanner's error messages. Importing encoding/json at all, even for a type,
// links its initialisation (reflect's types, the float encoders), and through fmt the
// initialisation of os (stdin, stdout and stderr as *os.File, with internal/poll, io/fs
// and syscall's file system behind them): 34.6 KB brotli of the module, where these
// cost about 1 KB. `make size` fails if the module links encoding/json again.

// RawMessage is JSON text kept as it was written, as encoding/json's RawMessage: its
// methods make encoding/json (in tests and tools) write and read it as that type.
type RawMessage []byte

// MarshalJSON returns m as the JSON text it holds, or null for nil.
func (m RawMessage) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	return m, nil
}

// UnmarshalJSON sets *m to a copy of data.
func (m *RawMessage) UnmarshalJSON(data []byte) error {
	*m = append((*m)[0:0], data...)
	return nil
}

// Number is a JSON number kept as its text, as encoding/json's Number: what Decode gives
// for a number, and what Append writes as it stands once checked.
type Number string

// String returns the number's text.
func (n Number) String() string { return string(n) }

// Float64 returns the number as a float64.
func (n Number) Float64() (float64, error) { return strconv.ParseFloat(string(n), 64) }

// Int64 returns the number as an int64.
func (n Number) Int64() (int64, error) { return strconv.ParseInt(string(n), 10, 64) }

// MarshalJSON writes the number's text (0 for the empty Number), as encoding/json does.
func (n Number) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("0"), nil
	}
	return []byte(n), nil
}

// UnmarshalJSON sets *n to a JSON number's text; null leaves it alone.
func (n *Number) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if end, ok := NumberEnd(data, 0); !ok || end != len(data) {
		return &SyntaxError{"json: cannot unmarshal " + string(data) + " into a Number", 0}
	}
	*n = Number(data)
	return nil
}

// A SyntaxError is a JSON syntax error worded as encoding/json's *json.SyntaxError
// (the page and the model read these words), with the offset just past the byte at
// fault (the length of the text for an early end).
type SyntaxError struct {
	msg    string
	Offset int64
}

func (e *SyntaxError) Error() string { return e.msg }

// Compact appends src to dst without the white space outside strings, as
// encoding/json's Compact does; on a syntax error it appends nothing and returns the
// error encoding/json's would (whose Offset is 0: its Compact does not count).
func Compact(dst *bytes.Buffer, src []byte) error {
	if err := Check(src); err != nil {
		err.(*SyntaxError).Offset = 0
		return err
	}
	start, in := 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && IsSpace(c):
			dst.Write(src[start:i])
			start = i + 1
		}
	}
	dst.Write(src[start:])
	return nil
}

// The states of Check, each a byte of the text encoding/json's scanner is in.
const (
	sValue        = iota // a value begins
	sValueOrEmpty        // a value or ] begins (after [)
	sKey                 // a key string begins (after ,)
	sKeyOrEmpty          // a key string or } begins (after {)
	sEnd                 // a value ended
	sString
	sEsc
	sEscU // and the next three: sEscU + digits seen
	sEscU1
	sEscU2
	sEscU3
	sNeg
	s1 // in the integer part after a non-zero digit
	s0 // after the integer part (or the lone 0)
	sDot
	sDot0
	sE
	sESign
	sE0
	sLiteral // in true, false or null
)

// the parse stack's frames
const (
	inArray byte = iota
	inKey
	inValue
)

// Check returns nil if data is one JSON value, white space around it allowed, or the
// *SyntaxError encoding/json's scanner gives for it: the same first byte at fault, the
// same words, the same offset as json.Unmarshal's (checked against encoding/json by
// FuzzCheck).
func Check(data []byte) error {
	var stack []byte
	state := sValue
	word := ""   // the literal being read
	next := 0    // the index in word of the byte expected next
	top := false // a top-level value has ended
	for i := 0; i <= len(data); i++ {
		if state == sString { // the plain bytes of a string, without the switch
			for i < len(data) && data[i] >= 0x20 && data[i] != '"' && data[i] != '\\' {
				i++
			}
		}
		c := byte(' ') // the scanner ends the text with a space
		if i < len(data) {
			c = data[i]
		}
		if top {
			if !IsSpace(c) {
				return syntaxErrorAt(c, "after top-level value", i, len(data))
			}
			continue
		}
		sp := IsSpace(c)
	again:
		switch state {
		case sValueOrEmpty, sValue:
			if sp {
				break
			}
			if c == ']' && state == sValueOrEmpty {
				state = sEnd
				goto again
			}
			switch {
			case c == '{' || c == '[':
				if len(stack) >= 10000 {
					return syntaxErrorAt(c, "exceeded max depth", i, len(data))
				}
				if c == '{' {
					stack, state = append(stack, inKey), sKeyOrEmpty
				} else {
					stack, state = append(stack, inArray), sValueOrEmpty
				}
			case c == '"':
				state = sString
			case c == '-':
				state = sNeg
			case c == '0':
				state = s0
			case '1' <= c && c <= '9':
				state = s1
			case c == 't':
				state, word, next = sLiteral, "true", 1
			case c == 'f':
				state, word, next = sLiteral, "false", 1
			case c == 'n':
				state, word, next = sLiteral, "null", 1
			default:
				return syntaxErrorAt(c, "looking for beginning of value", i, len(data))
			}
		case sKeyOrEmpty, sKey:
			if sp {
				break
			}
			if c == '}' && state == sKeyOrEmpty {
				stack[len(stack)-1] = inValue
				state = sEnd
				goto again
			}
			if c != '"' {
				return syntaxErrorAt(c, "looking for beginning of object key string", i, len(data))
			}
			state = sString
		case sEnd:
			n := len(stack)
			if n == 0 {
				top = true
				if !sp {
					return syntaxErrorAt(c, "after top-level value", i, len(data))
				}
				break
			}
			if sp {
				break
			}
			switch stack[n-1] {
			case inKey:
				if c != ':' {
					return syntaxErrorAt(c, "after object key", i, len(data))
				}
				stack[n-1], state = inValue, sValue
			case inValue:
				if c == ',' {
					stack[n-1], state = inKey, sKey
				} else if c == '}' {
					stack = stack[:n-1]
				} else {
					return syntaxErrorAt(c, "after object key:value pair", i, len(data))
				}
			default:
				if c == ',' {
					state = sValue
				} else if c == ']' {
					stack = stack[:n-1]
				} else {
					return syntaxErrorAt(c, "after array element", i, len(data))
				}
			}
			if len(stack) == 0 && state == sEnd {
				top = true
			}
		case sString:
			if c == '"' {
				state = sEnd
			} else if c == '\\' {
				state = sEsc
			} else if c < 0x20 {
				return syntaxErrorAt(c, "in string literal", i, len(data))
			}
		case sEsc:
			switch c {
			case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
				state = sString
			case 'u':
				state = sEscU
			default:
				return syntaxErrorAt(c, "in string escape code", i, len(data))
			}
		case sEscU, sEscU1, sEscU2, sEscU3:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return syntaxErrorAt(c, "in \\u hexadecimal character escape", i, len(data))
			}
			if state++; state > sEscU3 {
				state = sString
			}
		case sNeg:
			if c == '0' {
				state = s0
			} else if '1' <= c && c <= '9' {
				state = s1
			} else {
				return syntaxErrorAt(c, "in numeric literal", i, len(data))
			}
		case s1, s0, sDot0, sE0:
			if '0' <= c && c <= '9' && state != s0 {
				break
			}
			if c == '.' && state != sDot0 && state != sE0 {
				state = sDot
			} else if (c == 'e' || c == 'E') && state != sE0 {
				state = sE
			} else {
				state = sEnd
				goto again
			}
		case sDot:
			if '0' <= c && c <= '9' {
				state = sDot0
			} else {
				return syntaxErrorAt(c, "after decimal point in numeric literal", i, len(data))
			}
		case sE, sESign:
			if (c == '+' || c == '-') && state == sE {
				state = sESign
			} else if '0' <= c && c <= '9' {
				state = sE0
			} else {
				return syntaxErrorAt(c, "in exponent of numeric literal", i, len(data))
			}
		case sLiteral:
			if c != word[next] {
				return syntaxErrorAt(c, "in literal "+word+" (expecting "+quoteChar(word[next])+")", i, len(data))
			}
			if next++; next == len(word) {
				state = sEnd
			}
		}
	}
	if !top {
		return &SyntaxError{"unexpected end of JSON input", int64(len(data))}
	}
	return nil
}

// syntaxErrorAt is the scanner's error for the byte c at data[i] (i == n: the text ends).
// Not inlined: inlined at the scanner's calls it cost 6.5 KB of code, 1.8 KB brotli.
//
//go:noinline
func syntaxErrorAt(c byte, context string, i, n int) error {
	return &SyntaxError{"invalid character " + quoteChar(c) + " " + context, int64(min(i+1, n))}
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// quoteChar quotes a byte as encoding/json's scanner does in its messages.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
