package openai

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// reader walks one JSON document in place and reads the members a caller asks for, the
// way encoding/json's Unmarshal read the same document into a struct before. This package
// must not link encoding/json's reflection-based coder (it costs the browser startup
// time), and the SSE hot path should not build a map of every member (id, model,
// created, …) of each chunk, as jsonv.Decode would, to read three of them.
//
// What it keeps of Unmarshal into a struct:
//   - keys select fields exactly or, failing that, under case folding (memberKey.is);
//   - unknown members are skipped, but still checked;
//   - null leaves a string, number or struct field as it is (pointers and slices are
//     cleared by their callers);
//   - a value of the wrong type fails the document, but only once all of it has been
//     read: a syntax error anywhere takes precedence, with encoding/json's message (err).
//
// Methods stop doing anything once broken is set, so callers check it only at the end.
type reader struct {
	data     []byte
	pos      int
	broken   bool   // a syntax error; err asks jsonv for its message
	mismatch error  // the first value of the wrong type
	scratch  []byte // where str unescapes strings
}

// maxDepth is encoding/json's nesting limit, kept so that the same documents fail.
const maxDepth = 10000

// errUnreadable stands in for a syntax error jsonv did not find: unreachable while the
// reader and jsonv agree on what JSON is (FuzzDecodeChunk holds them to that).
var errUnreadable = errors.New("invalid JSON")

// end checks that only white space follows the value just read and reports whether
// Unmarshal would have succeeded.
func (r *reader) end() bool {
	if !r.broken {
		if r.space(); r.pos < len(r.data) {
			r.broken = true
		}
	}
	return !r.broken && r.mismatch == nil
}

// err is end's verdict as the error encoding/json's Unmarshal would have returned: the
// syntax error (same message), or the first mismatch, or nil.
func (r *reader) err() error {
	if r.end() {
		return nil
	}
	if r.broken {
		if _, err := jsonv.Decode(r.data); err != nil {
			return err
		}
		return errUnreadable
	}
	return r.mismatch
}

// fail marks a syntax error; it returns false for the callers' convenience.
func (r *reader) fail() bool {
	r.broken = true
	return false
}

func (r *reader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the first byte of the next value, or 0 at the end
// (and once broken, so that nothing more is read).
func (r *reader) peek() byte {
	if r.broken {
		return 0
	}
	if r.pos < len(r.data) && r.data[r.pos] > ' ' {
		return r.data[r.pos] // no white space: the usual case
	}
	if r.space(); r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

// object reads the object at r.pos; member gets each key with r at its value and must
// read or skip that value. depth counts the containers around the object.
func (r *reader) object(depth int, member func(key memberKey, depth int)) {
	if depth++; depth > maxDepth {
		r.fail()
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

// key reads the next member's key and the colon after it, leaving r at the value; false
// after the closing brace or on a syntax error. Keys with escapes are unescaped.
func (r *reader) key(first bool) (memberKey, bool) {
	c := r.peek()
	switch {
	case c == '}':
		r.pos++
		return memberKey{}, false
	case !first && c == ',':
		r.pos++
		c = r.peek()
	case !first:
		return memberKey{}, r.fail()
	}
	if c != '"' {
		return memberKey{}, r.fail()
	}
	text, plain, ascii, ok := r.scanString()
	if !ok {
		return memberKey{}, false
	}
	key := memberKey{text, ascii}
	if !plain {
		key = makeKey(jsonv.Unescape(nil, text)) // rare: not worth a buffer
	}
	if r.peek() != ':' {
		return memberKey{}, r.fail()
	}
	r.pos++
	r.space()
	return key, true
}

// array reads the array at r.pos, calling element with r at each element, which it must
// read or skip.
func (r *reader) array(depth int, element func(depth int)) {
	if depth++; depth > maxDepth {
		r.fail()
		return
	}
	r.pos++ // '['
	if r.peek() == ']' {
		r.pos++
		return
	}
	for {
		element(depth)
		switch r.peek() {
		case ',':
			r.pos++
			r.space()
		case ']':
			r.pos++
			return
		default:
			r.fail()
			return
		}
	}
}

// memberKey is a member's key as read, with whether it is all ASCII: almost every key
// is, and those need no Unicode case folding to be compared with field names.
type memberKey struct {
	text  []byte
	ascii bool
}

func makeKey(text []byte) memberKey {
	for _, c := range text {
		if c >= utf8.RuneSelf {
			return memberKey{text, false}
		}
	}
	return memberKey{text, true}
}

// is reports whether the key selects the field name (ASCII), as encoding/json chose
// fields: by exact name or, failing that, equal under case folding (its foldName is
// bytes.EqualFold). OpenAI-compatible servers send lower-case keys; proxies in front of
// them do not always ({"Message": …}).
func (k memberKey) is(name string) bool {
	if len(k.text) != len(name) {
		// Only keys beyond ASCII can fold to a name of another length: 'k' and 's' have
		// folds outside it (the Kelvin sign, the long s).
		return !k.ascii && bytes.EqualFold(k.text, []byte(name))
	}
	return string(k.text) == name || k.folds(name)
}

func (k memberKey) folds(name string) bool {
	if !k.ascii {
		return bytes.EqualFold(k.text, []byte(name))
	}
	for i, c := range k.text {
		if lowerASCII(c) != lowerASCII(name[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// skip checks and passes over the value at r.pos.
func (r *reader) skip(depth int) {
	switch c := r.peek(); {
	case c == '{':
		r.object(depth, func(_ memberKey, depth int) { r.skip(depth) })
	case c == '[':
		r.array(depth, r.skip)
	case c == '"':
		r.scanString()
	case c == '-' || c >= '0' && c <= '9':
		r.number()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.fail()
	}
}

// raw passes over the value at r.pos and returns its text, as jsonv.RawMessage held it.
// The slice aliases the document.
func (r *reader) raw(depth int) []byte {
	start := r.pos
	r.skip(depth)
	return r.data[start:r.pos]
}

func (r *reader) literal(word string) bool {
	if !bytes.HasPrefix(r.data[r.pos:], []byte(word)) {
		return r.fail()
	}
	r.pos += len(word)
	return true
}

// number passes over the number at r.pos and returns its text.
func (r *reader) number() []byte {
	end, ok := jsonv.NumberEnd(r.data, r.pos)
	if !ok {
		r.fail()
		return nil
	}
	text := r.data[r.pos:end]
	r.pos = end
	return text
}

// scanString checks the string whose opening quote is at r.pos and moves past it. It
// returns the text between the quotes, whether that text is the value as it stands (no
// escapes, valid UTF-8; else jsonv.Unescape decodes it) and whether it is all ASCII.
func (r *reader) scanString() (text []byte, plain, ascii, ok bool) {
	end, plain, ascii, ok := jsonv.StringEnd(r.data, r.pos)
	if !ok {
		return nil, false, false, r.fail()
	}
	text = r.data[r.pos+1 : end-1]
	r.pos = end
	return text, plain, ascii, true
}

// str reads the string at r.pos. Plain text is the value; the rest is unescaped through
// r.scratch, so each string costs one allocation.
func (r *reader) str() string {
	text, plain, _, ok := r.scanString()
	switch {
	case !ok:
		return ""
	case plain:
		return string(text)
	}
	r.scratch = jsonv.Unescape(r.scratch[:0], text)
	return string(r.scratch)
}

// stringField reads a member bound for a string field: a string is stored, null leaves
// *s as it is (nullClears: sets it to "", as for a *string field), anything else is a
// mismatch. at and field name it in the mismatch's message.
func (r *reader) stringField(s *string, nullClears bool, at, field string, depth int) {
	switch r.peek() {
	case '"':
		*s = r.str()
	case 'n':
		if r.literal("null") && nullClears {
			*s = ""
		}
	default:
		r.wrong(at, field, "a string", depth)
	}
}

// intField reads a member bound for an int field: a number that is an integer within
// int's range is stored, null leaves *n, anything else is a mismatch. It reports whether
// *n was set (for *int fields).
func (r *reader) intField(n *int, at, field string, depth int) bool {
	switch c := r.peek(); {
	case c == '-' || c >= '0' && c <= '9':
		text := r.number()
		if r.broken {
			return false
		}
		v, ok := parseInt(text)
		if !ok {
			r.mismatchf("%s is the number %s, not an integer", path(at, field), text)
			return false
		}
		*n = v
		return true
	case c == 'n':
		r.literal("null")
	default:
		r.wrong(at, field, "an integer", depth)
	}
	return false
}

// structField reads a member bound for a struct (or pointer to one): an object goes to
// member, which reports true; null leaves the struct as it is, or the pointer is
// cleared: false; anything else is a mismatch.
func (r *reader) structField(at, field string, depth int, member func(key memberKey, depth int)) bool {
	switch r.peek() {
	case '{':
		r.object(depth, member)
		return true
	case 'n':
		r.literal("null")
	default:
		r.wrong(at, field, "an object", depth)
	}
	return false
}

// arrayField reads a member bound for a slice: an array calls element for each entry
// with its position, and returns the entries' count; null (a nil slice) returns 0;
// anything else is a mismatch.
func (r *reader) arrayField(at, field string, depth int, element func(i, depth int)) int {
	n := 0
	switch r.peek() {
	case '[':
		r.array(depth, func(depth int) {
			element(n, depth)
			n++
		})
	case 'n':
		r.literal("null")
	default:
		r.wrong(at, field, "an array", depth)
	}
	return n
}

// wrong records a mismatch for the value at r.pos, which Unmarshal could not store
// in the field named at.field, and passes over it (checking it: a later syntax error
// still wins).
func (r *reader) wrong(at, field, want string, depth int) {
	var got string
	switch c := r.peek(); {
	case c == '{':
		got = "an object"
	case c == '[':
		got = "an array"
	case c == '"':
		got = "a string"
	case c == 't' || c == 'f':
		got = "a boolean"
	default:
		got = "a number"
	}
	r.skip(depth)
	r.mismatchf("%s is %s, not %s", path(at, field), got, want)
}

func (r *reader) mismatchf(format string, args ...any) {
	if r.mismatch == nil {
		r.mismatch = sfmt.Errorf(format, args...)
	}
}

func path(at, field string) string {
	if at == "" {
		return field
	}
	return at + "." + field
}

// parseInt reads a checked JSON number as encoding/json read it into an int
// (strconv.ParseInt): no fraction, no exponent, within int's range.
func parseInt(text []byte) (int, bool) {
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	limit := uint64(1<<(strconv.IntSize-1) - 1)
	if neg {
		limit++
	}
	var n uint64
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return int(-n), true
	}
	return int(n), true
}

// readString does what encoding/json's Unmarshal(data, &s) did for a string s: a
// string, or null (""); false when data is not JSON or holds another type.
func readString(data []byte) (string, bool) {
	r := reader{data: data}
	var s string
	r.stringField(&s, false, "", "the value", 0)
	return s, r.end()
}

// readObject does what encoding/json's Unmarshal(data, &v) did for a struct v: member
// gets each key with r at its value, and must read or skip it; null is an empty object.
// It returns false when data is not JSON, not an object or null, or a member had the
// wrong type.
func readObject(data []byte, member func(r *reader, key memberKey, depth int)) bool {
	r := reader{data: data}
	r.structField("", "the value", 0, func(key memberKey, depth int) { member(&r, key, depth) })
	return r.end()
}
