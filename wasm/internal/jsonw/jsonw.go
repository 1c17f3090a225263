// Package jsonw is the JSON writer the binding's easyjson-generated code writes with, in
// place of github.com/mailru/easyjson/jwriter. It has the subset of jwriter's API that
// generated code and the binding use, over a plain byte slice.
//
// Why not jwriter itself: jwriter's buffer package imports net (for net.Buffers in one
// method), and net's package initialisation stays in the module even though nothing calls
// it: 53 KB brotli of the 1.0 MB budget (measured: a syscall/js + encoding/json + regexp
// module grows from 726 KB to 779 KB with a blank import of net). The go:generate line in
// protocol.go points the generated file at this package.
package jsonw

import (
	"strconv"
	"unicode/utf8"
)

// Writer accumulates one JSON document. Error is the first error a Raw call reported.
type Writer struct {
	Error  error
	Buffer Buffer
}

// Buffer holds the bytes written; generated MarshalJSON methods read them through
// BuildBytes, as with jwriter.
type Buffer struct{ Buf []byte }

// BuildBytes returns the bytes written.
func (b *Buffer) BuildBytes(...[]byte) []byte { return b.Buf }

// RawByte appends c as is.
func (w *Writer) RawByte(c byte) { w.Buffer.Buf = append(w.Buffer.Buf, c) }

// RawString appends s as is.
func (w *Writer) RawString(s string) { w.Buffer.Buf = append(w.Buffer.Buf, s...) }

// Raw appends data, already JSON, as is; err (from a MarshalJSON) is kept in Error and
// null written instead.
func (w *Writer) Raw(data []byte, err error) {
	switch {
	case err != nil:
		if w.Error == nil {
			w.Error = err
		}
		w.Buffer.Buf = append(w.Buffer.Buf, "null"...)
	case len(data) == 0:
		w.Buffer.Buf = append(w.Buffer.Buf, "null"...)
	default:
		w.Buffer.Buf = append(w.Buffer.Buf, data...)
	}
}

// Int appends n.
func (w *Writer) Int(n int) { w.Buffer.Buf = strconv.AppendInt(w.Buffer.Buf, int64(n), 10) }

// Int64 appends n.
func (w *Writer) Int64(n int64) { w.Buffer.Buf = strconv.AppendInt(w.Buffer.Buf, n, 10) }

// Bool appends b.
func (w *Writer) Bool(b bool) { w.Buffer.Buf = strconv.AppendBool(w.Buffer.Buf, b) }

// BuildBytes returns the document, or Error.
func (w *Writer) BuildBytes() ([]byte, error) {
	if w.Error != nil {
		return nil, w.Error
	}
	return w.Buffer.Buf, nil
}

const hex = "0123456789abcdef"

// String appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as encoding/json does;
// U+2028 and U+2029 are escaped so the text is also a valid JS literal.
func (w *Writer) String(s string) {
	b := append(w.Buffer.Buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	w.Buffer.Buf = append(b, '"')
}
