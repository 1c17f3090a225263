package redact

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The matcher: it finds the set's forms in a text, read through up to Depth layers of
// JSON string escapes and percent-encoding, and replaces them.

// replace returns s with every match replaced, and whether there was one.
func (st *set) replace(s string, json bool) (string, bool) {
	start, end, keep := st.next(s, 0, json)
	if start < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for start >= 0 {
		b.WriteString(s[pos : start+keep])
		b.WriteString(Replacement)
		pos = end
		start, end, keep = st.next(s, end, json)
	}
	b.WriteString(s[pos:])
	return b.String(), true
}

// Depth is how many layers of escapes the matcher reads beneath a text: JSON string
// escapes of every kind (\/, \u0073, a JSON text inside a string inside a string) and
// percent-encoding, each layer either or both. A JSON message's own string escapes
// (Redactor.JSON) are read besides, as the layer above these.
const Depth = 3

// The outcomes of reading a unit.
const (
	unitOK   = iota
	unitEnd  // the text ended, or ended inside an escape: more text may complete it
	unitStop // a JSON string's closing quote: nothing is matched across it
)

// unit reads the unit at s[i] at depth d: the bytes it stands for, where the next
// begins, and an outcome. At depth 0 a unit is a byte (stop: a '"' ends the string, in a
// JSON message); at depth d it is a unit of depth d-1, or a JSON escape or a %XX made of
// such units, decoded. A malformed escape stands for its first byte.
func unit(s string, i, d int, stop bool, buf *[4]byte) ([]byte, int, int) {
	if i < len(s) { // the usual byte stands for itself at every depth
		if c := s[i]; c != '\\' && c != '%' && (c != '"' || !stop) {
			buf[0] = c
			return buf[:1], i + 1, unitOK
		}
	}
	if d == 0 {
		switch {
		case i >= len(s):
			return nil, i, unitEnd
		case stop && s[i] == '"':
			return nil, i, unitStop
		}
		buf[0] = s[i]
		return buf[:1], i + 1, unitOK
	}
	u, j, out := unit(s, i, d-1, stop, buf)
	if out != unitOK || len(u) != 1 || (u[0] != '\\' && u[0] != '%') {
		return u, j, out
	}
	c := u[0]
	tail := stop && d > 1 // an escape's own bytes may be a quote at depth 0 (\")
	if c == '%' {
		hi, k, out := hexUnits(s, j, d-1, tail, 2, buf)
		if out == unitEnd {
			return nil, k, unitEnd
		}
		if out != unitOK {
			buf[0] = '%'
			return buf[:1], j, unitOK
		}
		buf[0] = byte(hi)
		return buf[:1], k, unitOK
	}
	e, k, out := unit(s, j, d-1, tail, buf)
	if out == unitEnd {
		return nil, k, unitEnd
	}
	if out != unitOK || len(e) != 1 {
		buf[0] = '\\'
		return buf[:1], j, unitOK
	}
	switch e[0] {
	case '"', '\\', '/':
	case 'b':
		buf[0] = '\b'
	case 'f':
		buf[0] = '\f'
	case 'n':
		buf[0] = '\n'
	case 'r':
		buf[0] = '\r'
	case 't':
		buf[0] = '\t'
	case 'u':
		r, m, out := hexUnits(s, k, d-1, tail, 4, buf)
		if out == unitEnd {
			return nil, m, unitEnd
		}
		if out != unitOK {
			buf[0] = '\\'
			return buf[:1], j, unitOK
		}
		if 0xD800 <= r && r < 0xDC00 { // a surrogate pair's second half, if it follows
			if b, n, out := unit(s, m, d-1, tail, buf); out == unitOK && len(b) == 1 && b[0] == '\\' {
				if b, n, out = unit(s, n, d-1, tail, buf); out == unitOK && len(b) == 1 && b[0] == 'u' {
					if lo, n, out := hexUnits(s, n, d-1, tail, 4, buf); out == unitOK && 0xDC00 <= lo && lo < 0xE000 {
						r, m = 0x10000+(r-0xD800)<<10+(lo-0xDC00), n
					}
				}
			}
		}
		return buf[:utf8.EncodeRune(buf[:], rune(r))], m, unitOK
	default:
		buf[0] = '\\'
		return buf[:1], j, unitOK
	}
	return buf[:1], k, unitOK
}

// hexUnits reads n hex digits as units of depth d from s[i]: their value and the end;
// unitStop when one is not a hex digit.
func hexUnits(s string, i, d int, stop bool, n int, buf *[4]byte) (int, int, int) {
	v := 0
	for ; n > 0; n-- {
		u, j, out := unit(s, i, d, stop, buf)
		if out == unitEnd {
			return 0, j, unitEnd
		}
		if out != unitOK || len(u) != 1 || unhex(u[0]) < 0 {
			return 0, i, unitStop
		}
		v, i = v<<4|unhex(u[0]), j
	}
	return v, i, unitOK
}

// next finds the leftmost (then longest) match in s at or after from: its start, end and
// how many of its bytes are kept; start -1 when there is none. In JSON mode, from must be
// at a token's start (not inside an escape), matches start only inside strings, and the
// text is read from depth 1 (the string's escapes) to Depth+1; otherwise from 0 to Depth.
func (st *set) next(s string, from int, json bool) (start, end, keep int) {
	inString := false
	if json {
		// Whether from is inside a string: the caller resumes after a match, which ends
		// inside one; a scan from 0 starts outside.
		inString = from > 0
	}
	var buf [4]byte
	for i := from; i < len(s); {
		c, n := s[i], 1
		if !st.hot[c] { // the usual byte: begins no form, changes no state
			i++
			continue
		}
		if json {
			switch {
			case c == '"':
				inString = !inString
				i++
				continue
			case !inString:
				i++
				continue
			case c == '\\':
				u, j, out := unit(s, i, 1, true, &buf)
				if out == unitOK {
					n = j - i
					// The usual escape (\", \n, \/) stands for a byte that begins no
					// form and no deeper escape: nothing can start here.
					if len(u) == 1 && u[0] != '\\' && u[0] != '%' && len(st.first[u[0]]) == 0 {
						i += n
						continue
					}
				}
			}
		}
		if e, k, _ := st.at(s, i, json, false); e >= 0 {
			return i, e, k
		}
		i += n
	}
	return -1, -1, 0
}

// at returns where the longest match at s[i] ends and how many of its bytes are kept
// (-1: none). With partial, it reports instead (end len(s)) a match the text's end cuts
// short.
func (st *set) at(s string, i int, json, partial bool) (end, keep int, cut bool) {
	lo, hi := 0, Depth
	if json {
		lo, hi = 1, Depth+1
	}
	best := -1
	var buf [4]byte
	for d := lo; d <= hi; d++ {
		u, j, out := unit(s, i, d, json, &buf)
		if out == unitEnd && partial {
			return len(s), 0, true
		}
		if out != unitOK {
			break
		}
		deeper := u[0] == '\\' || u[0] == '%'
		for _, f := range st.first[u[0]] {
			fm := &st.forms[f]
			// Most candidates fail at their second byte: when the first is a plain byte,
			// checked here, without decoding.
			if j == i+1 && j < len(s) {
				if c := s[i+1]; c != fm.s[1] && c != '\\' && c != '%' && !(c == '+' && fm.s[1] == ' ') && !(fm.b64 && space(c)) {
					continue
				}
			}
			e, esc, short := matchAt(s, i, fm, d, json)
			if short && partial {
				return len(s), 0, true
			}
			if e > best {
				best, keep = e, fm.keep
			}
			deeper = deeper || esc
		}
		if !deeper { // no escape read at this depth: the next reads the same
			break
		}
	}
	return best, keep, false
}

// matchAt returns where f's match at s[i], read at depth d, ends (-1: none), whether an
// escape's first byte was among the units it read (a deeper read may differ), and
// whether the text ended before the match did. A base64 form's characters may be apart
// by white space (a MIME line break); a space in the secret matches a '+'.
func matchAt(s string, i int, f *form, d int, stop bool) (end int, esc, short bool) {
	var buf [4]byte
	j, spaces := i, 0
	for k := 0; k < len(f.s); {
		u, n, out := unit(s, j, d, stop, &buf)
		if out != unitOK {
			return -1, esc, out == unitEnd
		}
		if len(u) == 1 {
			c := u[0]
			esc = esc || c == '\\' || c == '%'
			if c == f.s[k] || c == '+' && f.s[k] == ' ' {
				k, j, spaces = k+1, n, 0
				continue
			}
			if f.b64 && k > 0 && space(c) && spaces < maxSpaces {
				j, spaces = n, spaces+1
				continue
			}
			return -1, esc, false
		}
		if !strings.HasPrefix(f.s[k:], unsafe.String(&u[0], len(u))) {
			return -1, esc, false
		}
		k, j = k+len(u), n
	}
	return j, esc, false
}

func space(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// maxSpaces is how much white space a base64 form's match reads past between two of its
// characters (MIME's CRLF is two).
const maxSpaces = 4
