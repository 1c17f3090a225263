package openai

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// reader reads one JSON document in place with jsonv.Reader and reads the members a
// caller asks for, the way encoding/json's Unmarshal read the same document into a
// struct before. This package must not link encoding/json's reflection-based coder (it
// costs the browser startup time), and the SSE hot path should not build a map of every
// member (id, model, created, …) of each chunk, as jsonv.Decode would, to read three of
// them.
//
// What it keeps of Unmarshal into a struct:
//   - keys select fields exactly or, failing that, under case folding (jsonv.Key.Is);
//   - unknown members are skipped, but still checked;
//   - null leaves a string, number or struct field as it is (pointers and slices are
//     cleared by their callers);
//   - a value of the wrong type fails the document, but only once all of it has been
//     read: a syntax error anywhere takes precedence, with encoding/json's message (err).
type reader struct {
	jsonv.Reader
	mismatch error // the first value of the wrong type
}

// memberKey is a member's key as jsonv.Reader reads it.
type memberKey = jsonv.Key

// end checks that only white space follows the value just read and reports whether
// Unmarshal would have succeeded.
func (r *reader) end() bool { return r.End() && r.mismatch == nil }

// err is end's verdict as the error encoding/json's Unmarshal would have returned: the
// syntax error (same message), or the first mismatch, or nil.
func (r *reader) err() error {
	if r.end() {
		return nil
	}
	if r.Broken() {
		return r.SyntaxErr()
	}
	return r.mismatch
}

// stringField reads a member bound for a string field: a string is stored, null leaves
// *s as it is (nullClears: sets it to "", as for a *string field), anything else is a
// mismatch. at and field name it in the mismatch's message.
func (r *reader) stringField(s *string, nullClears bool, at, field string, depth int) {
	switch r.Peek() {
	case '"':
		*s = r.Str()
	case 'n':
		if r.Literal("null") && nullClears {
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
	switch c := r.Peek(); {
	case c == '-' || c >= '0' && c <= '9':
		text := r.Number()
		if r.Broken() {
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
		r.Literal("null")
	default:
		r.wrong(at, field, "an integer", depth)
	}
	return false
}

// structField reads a member bound for a struct (or pointer to one): an object goes to
// member, which reports true; null leaves the struct as it is, or the pointer is
// cleared: false; anything else is a mismatch.
func (r *reader) structField(at, field string, depth int, member func(key memberKey, depth int)) bool {
	switch r.Peek() {
	case '{':
		r.Object(depth, member)
		return true
	case 'n':
		r.Literal("null")
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
	switch r.Peek() {
	case '[':
		r.Array(depth, func(depth int) {
			element(n, depth)
			n++
		})
	case 'n':
		r.Literal("null")
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
	switch c := r.Peek(); {
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
	r.Skip(depth)
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
	r := reader{Reader: jsonv.Reader{Data: data}}
	var s string
	r.stringField(&s, false, "", "the value", 0)
	return s, r.end()
}

// readObject does what encoding/json's Unmarshal(data, &v) did for a struct v: member
// gets each key with r at its value, and must read or skip it; null is an empty object.
// It returns false when data is not JSON, not an object or null, or a member had the
// wrong type.
func readObject(data []byte, member func(r *reader, key memberKey, depth int)) bool {
	r := reader{Reader: jsonv.Reader{Data: data}}
	r.structField("", "the value", 0, func(key memberKey, depth int) { member(&r, key, depth) })
	return r.end()
}
