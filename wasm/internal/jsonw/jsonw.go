//go:build !easyjson_generate

// Package jsonw is the JSON writer the binding's easyjson-generated code writes with, in
// place of github.com/mailru/easyjson/jwriter. It has the subset of jwriter's API that
// generated code and the binding use, over a plain byte slice.
//
// Why not jwriter itself: jwriter's buffer package imports net (for net.Buffers in one
// method), and net's package initialisation stays in the module even though nothing calls
// it: 53 KB brotli of the module's size budget (Makefile: SIZE_BUDGET; measured: a syscall/js
// + encoding/json + regexp module grows from 726 KB to 779 KB with a blank import of net).
// The go:generate line in protocol.go points the generated file at this package.
package jsonw

import (
	"strconv"

	"langmodel/internal/jsonv"
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

// RawByte appends c as is. RawByte, RawString, Raw, Int, Int64 and Bool are not
// inlined: the generated code and the binding call them at some 90 places, where their
// bodies (an append and its growth, strconv's fast path), inlined, cost 38 KB of code,
// 7 KB brotli.
//
//go:noinline
func (w *Writer) RawByte(c byte) { w.Buffer.Buf = append(w.Buffer.Buf, c) }

// RawString appends s as is (not inlined: see RawByte).
//
//go:noinline
func (w *Writer) RawString(s string) { w.Buffer.Buf = append(w.Buffer.Buf, s...) }

// Raw appends data, already JSON, as is; err (from a MarshalJSON) is kept in Error and
// null written instead (not inlined: see RawByte).
//
//go:noinline
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

// Int appends n (not inlined: see RawByte).
//
//go:noinline
func (w *Writer) Int(n int) { w.Buffer.Buf = strconv.AppendInt(w.Buffer.Buf, int64(n), 10) }

// Int64 appends n (not inlined: see RawByte).
//
//go:noinline
func (w *Writer) Int64(n int64) { w.Buffer.Buf = strconv.AppendInt(w.Buffer.Buf, n, 10) }

// Bool appends b (not inlined: see RawByte).
//
//go:noinline
func (w *Writer) Bool(b bool) { w.Buffer.Buf = strconv.AppendBool(w.Buffer.Buf, b) }

// BuildBytes returns the document, or Error.
func (w *Writer) BuildBytes() ([]byte, error) {
	if w.Error != nil {
		return nil, w.Error
	}
	return w.Buffer.Buf, nil
}

// String appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as encoding/json does;
// U+2028 and U+2029 are escaped so the text is also a valid JS literal; <, > and & stay
// as they are (the channel's JSON is never embedded in HTML).
func (w *Writer) String(s string) { w.Buffer.Buf = jsonv.AppendStringKeepHTML(w.Buffer.Buf, s) }
