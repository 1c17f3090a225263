package wasm

import (
	"bytes"
	"errors"
	"strconv"
	"unsafe"

	"langmodel/internal/jsonv"
)

// The page's messages are read by hand, field by field, instead of with easyjson's
// jlexer: jlexer links fmt (and, through it, most of reflect) into the module, and the
// messages are a handful of flat objects (RATIONALE.md "How does the module stay
// within its size budget?"). jsonv reads the JSON: a message is split into its fields by
// its Reader, which checks the syntax as it goes (parse; the scanner words the error of one
// that fails), or checked whole (jsonv.Valid) and walked (decode), so the readers below
// only see well-formed JSON.

// fields is a message's type: it takes the value of each field it knows.
type fields interface {
	field(key string, v value) error
}

// value is one field's value, as its JSON text.
type value []byte

func (v value) null() bool { return string(v) == "null" }

func (v value) str(into *string) error {
	if v.null() {
		return nil
	}
	if len(v) == 0 || v[0] != '"' {
		return errors.New("expected a string")
	}
	*into, _, _ = jsonv.String(v, "", 0)
	return nil
}

// key is the value of a string that names a field. A plain one aliases the message's
// bytes instead of copying them: nothing writes a message after the handler has it
// (Receive copies what the page sent), and a key is compared, or kept with the message.
func (v value) key() (string, error) {
	if len(v) < 2 || v[0] != '"' {
		return "", errors.New("expected a string")
	}
	if _, plain, _, _ := jsonv.StringEnd(v, 0); plain {
		if len(v) == 2 {
			return "", nil
		}
		return unsafe.String(&v[1], len(v)-2), nil
	}
	return string(jsonv.Unescape(nil, v[1:len(v)-1])), nil
}

func (v value) int64(into *int64) error {
	if v.null() {
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return errors.New("expected an integer")
	}
	*into = n
	return nil
}

func (v value) int(into *int) error {
	var n int64
	if err := v.int64(&n); err != nil {
		return err
	}
	if n != int64(int(n)) {
		return errors.New("expected an integer")
	}
	if !v.null() {
		*into = int(n)
	}
	return nil
}

// bool is not inlined: inlined where fields read a boolean, 2.5 KB of code, 2 KB brotli.
//
//go:noinline
func (v value) bool(into *bool) error {
	switch string(v) {
	case "true":
		*into = true
	case "false":
		*into = false
	case "null":
	default:
		return errors.New("expected a boolean")
	}
	return nil
}

// boolPtr sets *into to a fresh bool, or leaves it nil for null.
func (v value) boolPtr(into **bool) error {
	if v.null() {
		return nil
	}
	b := new(bool)
	if err := v.bool(b); err != nil {
		return err
	}
	*into = b
	return nil
}

// raw keeps the value's text as it stands (null included), as jsonv.RawMessage does.
func (v value) raw(into *jsonv.RawMessage) error {
	*into = jsonv.RawMessage(v)
	return nil
}

// object reads an object value into f; null leaves f as it is.
func (v value) object(f fields) error {
	if v.null() {
		return nil
	}
	return walk(v, f)
}

// message is one message from the page, checked whole and split into its fields in one
// pass (parse), so that neither the envelope nor the request reads past a long value
// (a history of ten thousand messages) again.
type message struct {
	raw   []byte
	n     int      // fields
	first [8]field // the first 8 fields: the page's messages have no more
	more  []field  // the others
	// attach is what the page sent after the message (Port.Send's tail): a create
	// request's packed history (packed.go).
	attach []byte
}

// add appends a field.
func (m *message) add(f field) {
	if m.n < len(m.first) {
		m.first[m.n] = f
	} else {
		m.more = append(m.more, f)
	}
	m.n++
}

// at returns field i.
func (m *message) at(i int) field {
	if i < len(m.first) {
		return m.first[i]
	}
	return m.more[i-len(m.first)]
}

// field is one of a message's fields: its key and its value's text.
type field struct {
	key string
	v   value
}

// parse checks raw as one JSON object and splits it into its fields (jsonv.Reader, which
// checks the syntax as it goes). An error names what is wrong: the scanner's own words
// for malformed JSON, or "expected an object".
func parse(raw []byte, m *message) error {
	*m = message{raw: raw}
	r := jsonv.Reader{Data: raw}
	if r.Peek() != '{' {
		return notObject(raw)
	}
	r.Object(0, func(key jsonv.Key, depth int) {
		m.add(field{key: keyString(key.Text), v: value(r.Raw(depth))})
	})
	if !r.End() {
		return malformed(raw)
	}
	return nil
}

// keyString is a key the Reader read: unescaped, it aliases the message's bytes (value.key).
func keyString(text []byte) string {
	if len(text) == 0 {
		return ""
	}
	return unsafe.String(&text[0], len(text))
}

// into reads the message's fields into f, in order.
func (m *message) into(f fields) error {
	for i := range m.n {
		fl := m.at(i)
		if err := f.field(fl.key, fl.v); err != nil {
			return errors.New(fl.key + ": " + err.Error())
		}
	}
	return nil
}

// malformed is the error for raw, which is not well-formed JSON, in encoding/json's
// scanner's words.
func malformed(raw []byte) error {
	var b bytes.Buffer
	if err := jsonv.Compact(&b, raw); err != nil {
		return err
	}
	return errors.New("expected an object")
}

// notObject is the error for raw when it does not start an object.
func notObject(raw []byte) error {
	if !jsonv.Valid(raw) {
		return malformed(raw)
	}
	return errors.New("expected an object")
}

// decode reads one message from the page into f.
func decode(raw []byte, f fields) error {
	if !jsonv.Valid(raw) {
		var b bytes.Buffer
		return jsonv.Compact(&b, raw) // the scanner's own words
	}
	return walk(bytes.TrimSpace(raw), f)
}

// walk reads the object that is all of data (well-formed JSON) into f.
func walk(data []byte, f fields) error {
	if len(data) == 0 || data[0] != '{' {
		return errors.New("expected an object")
	}
	for k, v := range jsonv.Members(data, 0) {
		key, err := value(k).key()
		if err != nil {
			return err
		}
		if err := f.field(key, value(v)); err != nil {
			return errors.New(key + ": " + err.Error())
		}
	}
	return nil
}
