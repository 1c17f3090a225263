package textproto

// Reading call objects without encoding/json's reflection-based decoder, which the
// WebAssembly module must not link (it delays startup: V8 validates all code first).
// This file does what encoding/json's Unmarshal into a struct of four jsonv.RawMessage
// fields, and its Decoder over the block, did before: the scanner behind jsonv.Valid and
// jsonv.Compact checks the syntax and words the errors, and internal/jsonv reads values.

import (
	"bytes"
	"io"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// callJSON is a call object as models write it: the text of each member that matters,
// nil when the member is absent (a member that is null holds "null").
type callJSON struct {
	Name       jsonv.RawMessage
	Arguments  jsonv.RawMessage
	Parameters jsonv.RawMessage
	Function   jsonv.RawMessage
}

// readCall reads raw as a call object, reporting false where Unmarshal into callJSON
// failed: when raw is not valid JSON (see readValidCall for the rest).
func readCall(raw []byte) (callJSON, bool) {
	if !jsonv.Valid(raw) {
		return callJSON{}, false
	}
	return readValidCall(raw)
}

// readValidCall reads raw, which must be valid JSON, as encoding/json's Unmarshal read
// it into a struct with the fields name, arguments, parameters and function: null leaves
// every member absent; any other non-object is a type error (false); a key names a
// member when it matches exactly or under Unicode simple case folding, as encoding/json
// matches field names, so "Name" and "ARGUMENTS" count; of keys naming the same member,
// the last wins. The members alias raw.
func readValidCall(raw []byte) (c callJSON, ok bool) {
	i := jsonv.SkipSpace(raw, 0)
	if i == len(raw) {
		return c, false
	}
	switch raw[i] {
	case 'n':
		return c, true
	case '{':
	default:
		return c, false
	}
	for key, val := range jsonv.Members(raw, i) {
		if m := c.member(key); m != nil {
			*m = val
		}
	}
	return c, true
}

// member returns where the value of the key written as key (quotes included) goes, or
// nil for a key that is no member of a call.
func (c *callJSON) member(key []byte) *jsonv.RawMessage {
	k := key[1 : len(key)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		k = []byte(decodeString(key)) // "n\u0061me" is "name", as encoding/json reads it
	}
	// bytes.EqualFold is encoding/json's foldName equality: Unicode simple folding, so
	// "ſ" (U+017F) is an "s". Bytes of invalid UTF-8 match nothing either way.
	switch {
	case bytes.EqualFold(k, []byte("name")):
		return &c.Name
	case bytes.EqualFold(k, []byte("arguments")):
		return &c.Arguments
	case bytes.EqualFold(k, []byte("parameters")):
		return &c.Parameters
	case bytes.EqualFold(k, []byte("function")):
		return &c.Function
	}
	return nil
}

// name is the call's name: the "name" member when it is a string, or "" (Unmarshal into
// a string left it empty for null, and failed for anything else).
func (c *callJSON) name() string {
	if len(c.Name) == 0 || c.Name[0] != '"' {
		return ""
	}
	return decodeString(c.Name)
}

// toCall reads one call object: {"name", "arguments"} ("parameters" is accepted for
// "arguments", a string holding JSON for the object), or OpenAI's
// {"type": "function", "function": {…}}. raw must be valid JSON.
func toCall(raw []byte) (Call, error) {
	c, ok := readValidCall(raw)
	if !ok {
		return Call{}, ErrNotCall
	}
	return c.call()
}

func (c *callJSON) call() (Call, error) {
	if c.Function != nil && c.Name == nil {
		return toCall(c.Function)
	}
	name := c.name()
	if name == "" {
		return Call{}, ErrNotCall
	}
	args := c.Arguments
	if args == nil {
		args = c.Parameters
	}
	if args == nil || string(args) == "null" {
		return Call{Name: name, Arguments: jsonv.RawMessage("{}")}, nil
	}
	if args[0] == '"' {
		s := strings.TrimSpace(decodeString(args))
		switch {
		case s == "":
			args = jsonv.RawMessage("{}")
		case jsonv.Valid([]byte(s)):
			args = jsonv.RawMessage(s)
		}
	}
	a, _ := compact(args) // args is valid JSON here
	return Call{Name: name, Arguments: a}, nil
}

// callShaped reports whether a candidate value is a call (or an array of calls): an
// object with a "name" string and "arguments" or "parameters". v need not be valid JSON
// (the parser's lexer only tracks strings and brackets); if it is not, it is no call.
func callShaped(v []byte) bool {
	return jsonv.Valid(v) && shaped(v)
}

// shaped is callShaped for valid JSON, which is checked once, not at every level.
func shaped(v []byte) bool {
	if len(v) > 0 && v[0] == '[' {
		n := 0
		for it := range jsonv.Elements(v, 0) {
			if !shaped(it) {
				return false
			}
			n++
		}
		return n > 0
	}
	c, ok := readValidCall(v)
	if !ok {
		return false
	}
	if c.Function != nil && c.Name == nil {
		return shaped(c.Function)
	}
	return c.name() != "" && (c.Arguments != nil || c.Parameters != nil)
}

func compact(s []byte) (jsonv.RawMessage, error) {
	var b bytes.Buffer
	if err := jsonv.Compact(&b, s); err != nil {
		return nil, sfmt.Errorf("%w: %v", ErrBadJSON, err)
	}
	return b.Bytes(), nil
}

// decodeString decodes s, a valid JSON string (quotes included), as encoding/json does:
// escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD.
func decodeString(s []byte) string {
	str, _, _ := jsonv.String(s, "", 0)
	return str
}

// nextValue reads the first JSON value of a stream as json.Decoder.Decode read it, and
// returns its text and what follows it. At the end of the stream (nothing but white
// space left) the error is io.EOF; when the stream ends inside the value it is
// io.ErrUnexpectedEOF ("unexpected EOF", which the repair message quotes); otherwise it
// is encoding/json's *jsonv.SyntaxError for the first byte that cannot be JSON.
func nextValue(data []byte) (v, rest []byte, err error) {
	start := jsonv.SkipSpace(data, 0)
	if start == len(data) {
		return nil, nil, io.EOF
	}
	_, n, err := jsonv.DecodePrefix(data[start:])
	if err != nil {
		if cutShort(data[start:], err) {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, err
	}
	return data[start : start+n], data[start+n:], nil
}

// cutShort reports whether err, jsonv's error for the first value of data, means that
// data ends inside the value. jsonv words it as the scanner does over the whole input:
// "unexpected end of JSON input", or, where a space cannot stand (in a number, a literal,
// an escape), the error a space would cause there, which a real space in data causes
// too. So scan data again with a control character after it: the scanner fails on the
// same byte, with the same message, unless it read all of data without fault.
func cutShort(data []byte, err error) bool {
	probe := make([]byte, len(data)+1)
	copy(probe, data)
	probe[len(data)] = 0x01 // never valid after any prefix of a JSON value
	perr := jsonv.Compact(new(bytes.Buffer), probe)
	return perr == nil || perr.Error() != err.Error()
}
