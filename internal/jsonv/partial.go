package jsonv

import "unicode/utf8"

// Complete closes the beginning of a JSON text that is still arriving (a tool call's
// arguments as the model writes them) into one valid JSON value, appended to dst: the
// longest prefix (leading spaces left out) that ends on a whole value, a container just opened, or inside a string
// value (cut before an escape or a character still incomplete), with the strings and
// containers it leaves open closed. `{"city": "Par` becomes `{"city": "Par"}`, `{"a": 1,
// "b` becomes `{"a": 1}`, `[tr` becomes `[]`. A key cut short is left out with its
// member; a number is taken as it stands when it is one (`12` may still become `123`).
// ok is false when no prefix makes a value (nothing but spaces, a bare scalar cut short,
// or text that is not JSON from its first byte). What follows a complete top-level value
// is ignored.
//
// It is for display (the toolcalldelta event's partial object), never for deciding
// anything: the call's arguments are only what the finished call says.
func Complete(dst, data []byte) (out []byte, ok bool) {
	var stack []byte // the open containers, '{' or '['
	cut, cutDepth := -1, 0
	mark := func(i int) { cut, cutDepth = i, len(stack) }
	const (
		wantValue = iota // a value (or, after '[', the array's end)
		wantKey          // a key (or, after '{', the object's end)
		wantColon
		wantNext // ',' or the container's end
	)
	state := wantValue
	fresh := false // a container was just opened: its end may come next
	i := SkipSpace(data, 0)
	start := i
scan:
	for i < len(data) {
		c := data[i]
		switch state {
		case wantValue:
			switch {
			case c == '{' || c == '[':
				if len(stack) >= maxDepth {
					break scan
				}
				stack = append(stack, c)
				i++
				mark(i)
				state = wantKey
				if c == '[' {
					state = wantValue
				}
				i = SkipSpace(data, i)
				fresh = true
				continue
			case c == ']' && fresh:
				stack = stack[:len(stack)-1] // an empty array
				i++
				state = wantNext
			case c == '"':
				end, _, _, whole := StringEnd(data, i)
				if !whole {
					k, broken := stringPrefix(data, i+1)
					if broken || len(stack) == 0 {
						break scan // not JSON, or a bare string cut short: no value
					}
					dst = append(append(dst, data[start:k]...), '"')
					return closeAll(dst, stack), true
				}
				i = end
				state = wantNext
			default:
				end, ok := scalarEnd(data, i)
				if !ok {
					break scan
				}
				i = end
				state = wantNext
			}
		case wantKey:
			switch c {
			case '}':
				if !fresh {
					break scan // after a comma: not JSON
				}
				stack = stack[:len(stack)-1]
				i++
				state = wantNext
			case '"':
				end, _, _, whole := StringEnd(data, i)
				if !whole {
					break scan
				}
				i = end
				state = wantColon
			default:
				break scan
			}
		case wantColon:
			if c != ':' {
				break scan
			}
			i++
			state = wantValue
		case wantNext:
			if len(stack) == 0 {
				break scan // the whole value: what follows is not ours
			}
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				state = wantValue
				if top == '{' {
					state = wantKey
				}
			case c == '}' && top == '{' || c == ']' && top == '[':
				stack = stack[:len(stack)-1]
				i++
			default:
				break scan
			}
		}
		if state == wantNext {
			mark(i) // a whole value ends here
		}
		i = SkipSpace(data, i)
		fresh = false
	}
	if cut < 0 {
		return dst, false
	}
	return closeAll(append(dst, data[start:cut]...), stack[:cutDepth]), true
}

// closeAll appends the closers of the open containers, innermost first.
func closeAll(dst, stack []byte) []byte {
	for j := len(stack) - 1; j >= 0; j-- {
		dst = append(dst, stack[j]+2) // '{'+2 is '}', '['+2 is ']'
	}
	return dst
}

// stringPrefix reads a string that StringEnd found not whole, from the text after its
// opening quote at data[i], and returns the end of its longest prefix (leading spaces left out) that ends on a
// whole character (not inside an escape or an incomplete UTF-8 sequence), or broken
// when the string is not merely cut short (a control character, a malformed escape).
func stringPrefix(data []byte, i int) (end int, broken bool) {
	for i < len(data) {
		switch c := data[i]; {
		case c == '\\':
			if i+1 >= len(data) {
				return i, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(data) {
						return i, false
					}
					if h := data[j] | 0x20; !isDigit(data[j]) && (h < 'a' || h > 'f') {
						return i, true
					}
				}
				i += 6
			default:
				return i, true
			}
		case c < 0x20:
			return i, true
		case c < utf8.RuneSelf:
			i++
		default:
			if !utf8.FullRune(data[i:]) {
				return i, false
			}
			_, n := utf8.DecodeRune(data[i:])
			i += n
		}
	}
	return i, false
}

// scalarEnd reads a number or a literal at data[i]; one cut short, or not JSON, is not ok.
func scalarEnd(data []byte, i int) (int, bool) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if data[i] == lit[0] {
			if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
				return i + len(lit), true
			}
			return i, false
		}
	}
	return NumberEnd(data, i)
}
