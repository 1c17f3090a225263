// Package sfmt formats messages as fmt does, for the verbs the engine's messages use: %s,
// %v, %d, %q, %T, %w and %%, without flags, widths or precisions. It exists for size: fmt
// prints any value through reflection, which keeps fmt, internal/fmtsort and most of
// reflect in the module (RATIONALE.md "How does the module stay under 850 KB?"); make size
// fails if the module links fmt again.
//
// Values print as fmt prints them with these verbs: an error as its Error(), a Stringer
// as its String(), strings, byte slices, booleans, integers and floats by their kind (named
// types included), nil as <nil>. A value of any other kind (a struct, a map, a pointer)
// prints as %!v(type), where fmt would print its fields: the engine formats none.
package sfmt

import (
	"errors"
	"reflect"
	"strconv"
)

// Sprintf is fmt.Sprintf for the verbs above.
func Sprintf(format string, args ...any) string { return string(Appendf(nil, format, args...)) }

// Errorf is fmt.Errorf for the verbs above: the error wraps each %w operand that is an
// error, for errors.Is and errors.As.
func Errorf(format string, args ...any) error {
	msg := Sprintf(format, args...)
	var wrapped []error
	n := 0
	for i := 0; i+1 < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if format[i] == '%' {
			continue
		}
		if format[i] == 'w' && n < len(args) {
			if err, ok := args[n].(error); ok {
				wrapped = append(wrapped, err)
			}
		}
		n++
	}
	if len(wrapped) == 0 {
		return errors.New(msg)
	}
	return &wrapError{msg: msg, errs: wrapped}
}

type wrapError struct {
	msg  string
	errs []error
}

func (e *wrapError) Error() string   { return e.msg }
func (e *wrapError) Unwrap() []error { return e.errs }

// Appendf is fmt.Appendf for the verbs above.
func Appendf(b []byte, format string, args ...any) []byte {
	n := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+1 == len(format) {
			b = append(b, "%!(NOVERB)"...)
			continue
		}
		i++
		verb := format[i]
		if verb == '%' {
			b = append(b, '%')
			continue
		}
		if n >= len(args) {
			b = append(append(append(b, "%!"...), verb), "(MISSING)"...)
			continue
		}
		b = appendArg(b, verb, args[n])
		n++
	}
	return b
}

func appendArg(b []byte, verb byte, v any) []byte {
	if verb == 'T' {
		if v == nil {
			return append(b, "<nil>"...)
		}
		return append(b, reflect.TypeOf(v).String()...)
	}
	if v == nil {
		if verb == 'v' || verb == 'w' {
			return append(b, "<nil>"...)
		}
		return append(append(append(b, "%!"...), verb), "(<nil>)"...)
	}
	if verb != 'd' {
		switch x := v.(type) {
		case error:
			return appendText(b, verb, x.Error())
		case interface{ String() string }:
			return appendText(b, verb, x.String())
		}
	}
	r := reflect.ValueOf(v)
	switch k := r.Kind(); {
	case k == reflect.String && verb != 'd':
		return appendText(b, verb, r.String())
	case k == reflect.Slice && r.Type().Elem().Kind() == reflect.Uint8 && verb != 'd':
		if verb == 'v' || verb == 'w' {
			b = append(b, '[')
			for i, c := range r.Bytes() {
				if i > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendUint(b, uint64(c), 10)
			}
			return append(b, ']')
		}
		return appendText(b, verb, string(r.Bytes()))
	case k >= reflect.Int && k <= reflect.Int64 && verb != 'q':
		return strconv.AppendInt(b, r.Int(), 10)
	case k >= reflect.Uint && k <= reflect.Uintptr && verb != 'q':
		return strconv.AppendUint(b, r.Uint(), 10)
	case k == reflect.Bool && (verb == 'v' || verb == 'w'):
		return strconv.AppendBool(b, r.Bool())
	case (k == reflect.Float64 || k == reflect.Float32) && (verb == 'v' || verb == 'w'):
		bits := 64
		if k == reflect.Float32 {
			bits = 32
		}
		return strconv.AppendFloat(b, r.Float(), 'g', -1, bits)
	}
	return append(append(append(append(b, "%!"...), verb), '('), reflect.TypeOf(v).String()+")"...)
}

// appendText is a string under %s, %v or %q.
func appendText(b []byte, verb byte, s string) []byte {
	switch verb {
	case 'q':
		return strconv.AppendQuote(b, s)
	case 's', 'v', 'w':
		return append(b, s...)
	}
	return append(append(append(append(b, "%!"...), verb), "(string="...), s+")"...)
}
