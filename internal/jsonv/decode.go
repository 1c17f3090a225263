// Package jsonv reads and writes JSON values — nil, bool, string, Number, []any
// and map[string]any — without reflection, with encoding/json's results.
//
// Why not encoding/json itself: its Marshal and Unmarshal pull reflect, time's
// formatting and parsing and encoding/json's own coders into the module, about 450 KB of
// the 3.1 MB of code V8 must validate before the module can start (measured: a bare
// module with jlexer grows from 1.68 to 2.09 MB of code with one Marshal and one
// Unmarshal). Its Check and Compact word their errors as encoding/json's scanner does
// (raw.go), so they read as encoding/json's do.
//
// Decode gives what json.Decoder with UseNumber gives; Marshal gives what json.Marshal
// gives for the same values. The tests hold both to encoding/json on the same inputs.
package jsonv

import (
	"bytes"
	"errors"
)

// maxDepth is encoding/json's nesting limit, kept so that the same documents fail.
const maxDepth = 10000

// errSyntax marks a failure the scanner will describe; see syntaxError.
var errSyntax = errors.New("jsonv: invalid JSON")

// Decode parses data as exactly one JSON value, with white space around it allowed.
// Errors are encoding/json's *json.SyntaxError with its message; its Offset is 0
// (json.Compact, which words the message, does not count bytes).
func Decode(data []byte) (any, error) {
	v, n, err := DecodePrefix(data)
	if err != nil {
		return nil, err
	}
	if n = SkipSpace(data, n); n < len(data) {
		return nil, syntaxError(data)
	}
	return v, nil
}

// DecodePrefix parses the first JSON value in data (after white space) and returns it
// with the offset just past it, as json.Decoder.Decode reads one value of a stream.
func DecodePrefix(data []byte) (v any, n int, err error) {
	d := decoder{data: data}
	v = d.value(SkipSpace(data, 0), 0)
	if d.err != nil {
		// The scanner stops at the same first error, since the value before it is the
		// same: its message is the one encoding/json would give.
		return nil, 0, syntaxError(data)
	}
	return v, d.pos, nil
}

// syntaxError returns the error encoding/json reports for data, which has one.
func syntaxError(data []byte) error {
	var b bytes.Buffer
	if err := Compact(&b, data); err != nil {
		return err
	}
	return errSyntax // unreachable while the decoder and the scanner agree (fuzzed)
}

// SkipSpace returns the offset of the first byte at or after i that is not JSON white
// space.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// decoder parses one value; pos is where it stopped, err the first failure.
type decoder struct {
	data []byte
	pos  int
	err  error
}

// fail records a syntax error. Where it is does not matter: syntaxError asks the scanner,
// which stops at the same first error.
func (d *decoder) fail() any {
	d.err = errSyntax
	return nil
}

func (d *decoder) value(i, depth int) any {
	if i >= len(d.data) {
		// An empty or cut-short document: the scanner says "unexpected end of JSON input".
		return d.fail()
	}
	switch c := d.data[i]; {
	case c == '{':
		if depth >= maxDepth {
			return d.fail()
		}
		return d.object(i+1, depth+1)
	case c == '[':
		if depth >= maxDepth {
			return d.fail()
		}
		return d.array(i+1, depth+1)
	case c == '"':
		s, j, ok := d.string(i + 1)
		if !ok {
			return d.fail()
		}
		d.pos = j
		return s
	case c == '-' || c >= '0' && c <= '9':
		j, ok := NumberEnd(d.data, i)
		if !ok {
			return d.fail()
		}
		d.pos = j
		return Number(d.data[i:j])
	case c == 't':
		return d.literal(i, "true", true)
	case c == 'f':
		return d.literal(i, "false", false)
	case c == 'n':
		return d.literal(i, "null", nil)
	}
	return d.fail()
}

func (d *decoder) literal(i int, word string, v any) any {
	for k := 1; k < len(word); k++ {
		if i+k >= len(d.data) || d.data[i+k] != word[k] {
			return d.fail()
		}
	}
	d.pos = i + len(word)
	return v
}

func (d *decoder) object(i, depth int) any {
	m := map[string]any{}
	i = SkipSpace(d.data, i)
	if i < len(d.data) && d.data[i] == '}' {
		d.pos = i + 1
		return m
	}
	for {
		if i >= len(d.data) || d.data[i] != '"' {
			return d.fail()
		}
		key, j, ok := d.string(i + 1)
		if !ok {
			return d.fail()
		}
		i = SkipSpace(d.data, j)
		if i >= len(d.data) || d.data[i] != ':' {
			return d.fail()
		}
		v := d.value(SkipSpace(d.data, i+1), depth)
		if d.err != nil {
			return nil
		}
		m[key] = v
		i = SkipSpace(d.data, d.pos)
		if i >= len(d.data) {
			return d.fail()
		}
		switch d.data[i] {
		case ',':
			i = SkipSpace(d.data, i+1)
		case '}':
			d.pos = i + 1
			return m
		default:
			return d.fail()
		}
	}
}

func (d *decoder) array(i, depth int) any {
	a := []any{}
	i = SkipSpace(d.data, i)
	if i < len(d.data) && d.data[i] == ']' {
		d.pos = i + 1
		return a
	}
	for {
		v := d.value(i, depth)
		if d.err != nil {
			return nil
		}
		a = append(a, v)
		i = SkipSpace(d.data, d.pos)
		if i >= len(d.data) {
			return d.fail()
		}
		switch d.data[i] {
		case ',':
			i = SkipSpace(d.data, i+1)
		case ']':
			d.pos = i + 1
			return a
		default:
			return d.fail()
		}
	}
}

// string decodes the JSON string whose opening quote is just before i and returns it
// with the offset past its closing quote. Invalid UTF-8 and lone surrogates become
// U+FFFD, as encoding/json does; a raw control character is a syntax error.
func (d *decoder) string(i int) (string, int, bool) { return String(d.data, "", i-1) }
