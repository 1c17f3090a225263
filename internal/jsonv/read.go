package jsonv

import (
	"bytes"
	"errors"
	"iter"
	"unicode/utf8"
)

// The product's one JSON reader, for the readers that want some members of a document
// without building a map of all of them (Decode's way): the page's messages (wasm), an
// OpenAI-compatible server's chunks and errors, a model's call objects. Two ways in:
//
//   - Reader, a cursor that checks the syntax as it goes: the members a caller asks for
//     are read, the others skipped but still checked, and End says whether the document
//     was one well-formed value (SyntaxErr words it as encoding/json would).
//   - Members and Elements, for text already checked whole (Valid, Check): they give
//     each member's or element's text, which ValueEnd delimits.
//
// FuzzAgreesWithEncodingJSON holds both to encoding/json on the same inputs.

// Reader reads one JSON document in place, value by value. Its methods stop doing
// anything once the syntax breaks (Broken), so callers check only at the end.
type Reader struct {
	Data    []byte
	Scratch []byte // where Str unescapes strings; kept by callers across documents
	pos     int
	broken  bool
}

// errUnreadable stands in for a syntax error Decode did not find: unreachable while the
// Reader and Decode agree on what JSON is (fuzzed).
var errUnreadable = errors.New("invalid JSON")

// Broken reports whether the syntax broke.
func (r *Reader) Broken() bool { return r.broken }

// End checks that only white space follows the value just read and reports whether the
// document was well formed.
func (r *Reader) End() bool {
	if !r.broken {
		if r.pos = SkipSpace(r.Data, r.pos); r.pos < len(r.Data) {
			r.broken = true
		}
	}
	return !r.broken
}

// SyntaxErr is the error encoding/json gives for a document End found broken.
func (r *Reader) SyntaxErr() error {
	if _, err := Decode(r.Data); err != nil {
		return err
	}
	return errUnreadable
}

// Fail marks a syntax error; it returns false for the callers' convenience.
func (r *Reader) Fail() bool {
	r.broken = true
	return false
}

// Peek skips white space and returns the first byte of the next value, or 0 at the end
// (and once broken, so that nothing more is read).
func (r *Reader) Peek() byte {
	if r.broken {
		return 0
	}
	if r.pos < len(r.Data) && r.Data[r.pos] > ' ' {
		return r.Data[r.pos] // no white space: the usual case
	}
	if r.pos = SkipSpace(r.Data, r.pos); r.pos < len(r.Data) {
		return r.Data[r.pos]
	}
	return 0
}

// Object reads the object at the cursor; member gets each key with the cursor at its
// value and must read or skip that value. depth counts the containers around the object.
func (r *Reader) Object(depth int, member func(key Key, depth int)) {
	if depth++; depth > maxDepth {
		r.Fail()
		return
	}
	r.pos++ // '{'
	for first := true; ; first = false {
		key, ok := r.key(first)
		if !ok {
			return
		}
		member(key, depth)
	}
}

// key reads the next member's key and the colon after it, leaving the cursor at the
// value; false after the closing brace or on a syntax error. Keys with escapes are
// unescaped.
func (r *Reader) key(first bool) (Key, bool) {
	c := r.Peek()
	switch {
	case c == '}':
		r.pos++
		return Key{}, false
	case !first && c == ',':
		r.pos++
		c = r.Peek()
	case !first:
		return Key{}, r.Fail()
	}
	if c != '"' {
		return Key{}, r.Fail()
	}
	text, plain, ascii, ok := r.scanString()
	if !ok {
		return Key{}, false
	}
	key := Key{text, ascii}
	if !plain {
		key = MakeKey(Unescape(nil, text)) // rare: not worth a buffer
	}
	if r.Peek() != ':' {
		return Key{}, r.Fail()
	}
	r.pos = SkipSpace(r.Data, r.pos+1)
	return key, true
}

// Array reads the array at the cursor, calling element with the cursor at each element,
// which it must read or skip.
func (r *Reader) Array(depth int, element func(depth int)) {
	if depth++; depth > maxDepth {
		r.Fail()
		return
	}
	r.pos++ // '['
	if r.Peek() == ']' {
		r.pos++
		return
	}
	for {
		element(depth)
		switch r.Peek() {
		case ',':
			r.pos = SkipSpace(r.Data, r.pos+1)
		case ']':
			r.pos++
			return
		default:
			r.Fail()
			return
		}
	}
}

// Skip checks and passes over the value at the cursor.
func (r *Reader) Skip(depth int) {
	switch c := r.Peek(); {
	case c == '{':
		r.Object(depth, func(_ Key, depth int) { r.Skip(depth) })
	case c == '[':
		r.Array(depth, r.Skip)
	case c == '"':
		r.scanString()
	case c == '-' || c >= '0' && c <= '9':
		r.Number()
	case c == 't':
		r.Literal("true")
	case c == 'f':
		r.Literal("false")
	case c == 'n':
		r.Literal("null")
	default:
		r.Fail()
	}
}

// Raw passes over the value at the cursor and returns its text, as RawMessage holds it.
// The slice aliases the document. It checks the value as Skip does (the same syntax, the
// same depth), with ValueEnd's loop instead of a call per container.
func (r *Reader) Raw(depth int) []byte {
	start := r.pos
	if r.Peek() == 0 {
		r.Fail()
		return r.Data[start:r.pos]
	}
	end, ok := valueEnd(r.Data, r.pos, depth)
	if !ok {
		r.Fail()
	}
	r.pos = end
	return r.Data[start:end]
}

// Literal passes over word (true, false or null) at the cursor.
func (r *Reader) Literal(word string) bool {
	if !bytes.HasPrefix(r.Data[r.pos:], []byte(word)) {
		return r.Fail()
	}
	r.pos += len(word)
	return true
}

// Number passes over the number at the cursor and returns its text.
func (r *Reader) Number() []byte {
	end, ok := NumberEnd(r.Data, r.pos)
	if !ok {
		r.Fail()
		return nil
	}
	text := r.Data[r.pos:end]
	r.pos = end
	return text
}

// scanString checks the string whose opening quote is at the cursor and moves past it,
// returning the text between the quotes and StringEnd's plain and ascii.
func (r *Reader) scanString() (text []byte, plain, ascii, ok bool) {
	end, plain, ascii, ok := StringEnd(r.Data, r.pos)
	if !ok {
		return nil, false, false, r.Fail()
	}
	text = r.Data[r.pos+1 : end-1]
	r.pos = end
	return text, plain, ascii, true
}

// Str reads the string at the cursor. Plain text is the value; the rest is unescaped
// through r.Scratch, so each string costs one allocation.
func (r *Reader) Str() string {
	text, plain, _, ok := r.scanString()
	switch {
	case !ok:
		return ""
	case plain:
		return string(text)
	}
	r.Scratch = Unescape(r.Scratch[:0], text)
	return string(r.Scratch)
}

// Key is a member's key as read (unescaped), with whether it is all ASCII: almost every
// key is, and those need no Unicode case folding to be compared with field names.
type Key struct {
	Text  []byte
	ASCII bool
}

// MakeKey makes the Key for an unescaped key's text.
func MakeKey(text []byte) Key {
	for _, c := range text {
		if c >= utf8.RuneSelf {
			return Key{text, false}
		}
	}
	return Key{text, true}
}

// Is reports whether the key selects the field name (ASCII), as encoding/json chose
// fields: by exact name or, failing that, equal under case folding (its foldName is
// bytes.EqualFold).
func (k Key) Is(name string) bool {
	if len(k.Text) != len(name) {
		// Only keys beyond ASCII can fold to a name of another length: 'k' and 's' have
		// folds outside it (the Kelvin sign, the long s).
		return !k.ASCII && bytes.EqualFold(k.Text, []byte(name))
	}
	if string(k.Text) == name {
		return true
	}
	if !k.ASCII {
		return bytes.EqualFold(k.Text, []byte(name))
	}
	for i, c := range k.Text {
		if LowerASCII(c) != LowerASCII(name[i]) {
			return false
		}
	}
	return true
}

// LowerASCII returns c in lower case if it is an ASCII capital letter.
func LowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// LowerASCIIString returns s with its ASCII capitals in lower case, s itself when it
// has none: for names that are ASCII by their standard (header names, MIME types),
// where strings.ToLower's Unicode tables would cost the module 9 KB of code.
func LowerASCIIString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = LowerASCII(b[j])
			}
			return string(b)
		}
	}
	return s
}

// Members yields the members of the well-formed object at data[i]: each key as written
// (quotes included) and the value's text, in the object's order.
func Members(data []byte, i int) iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) {
		i := SkipSpace(data, i+1)
		for i < len(data) && data[i] == '"' {
			k := skipValid(data, i)
			v := SkipSpace(data, SkipSpace(data, k)+1) // past the colon
			e := skipValid(data, v)
			if !yield(data[i:k], data[v:e]) {
				return
			}
			if i = SkipSpace(data, e); i < len(data) && data[i] == ',' {
				i = SkipSpace(data, i+1)
			}
		}
	}
}

// Elements yields the text of each element of the well-formed array at data[i].
func Elements(data []byte, i int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		i := SkipSpace(data, i+1)
		for i < len(data) && data[i] != ']' {
			e := skipValid(data, i)
			if !yield(data[i:e]) {
				return
			}
			if i = SkipSpace(data, e); i < len(data) && data[i] == ',' {
				i = SkipSpace(data, i+1)
			}
		}
	}
}

// skipValid returns the offset just past the value at data[i], which is well formed.
func skipValid(data []byte, i int) int {
	end, _ := ValueEnd(data, i)
	return end
}
