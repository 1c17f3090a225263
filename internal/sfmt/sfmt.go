// Package sfmt formats messages as fmt does, for the verbs the engine's messages use: %s,
// %v, %d, %q, %T, %w and %%, without flags, widths or precisions. It exists for size: fmt
// prints any value through reflection, which keeps fmt, internal/fmtsort and most of
// reflect in the module (RATIONALE.md "How does the module stay within its size budget?"); make size
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
	"unsafe"
)

// Sprintf is fmt.Sprintf for the verbs above. Not inlined: the module calls it at 51
// places, where its body (Appendf and the conversion) cost 7 KB of code. The package is
// built without inlining (the Makefile's NOINLINE), so it needs no go:noinline mark: with
// one, the module was the same, byte for byte.
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
			b = badVerb(b, verb, "(MISSING)")
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
		return badVerb(b, verb, "(<nil>)")
	}
	if verb != 'd' {
		switch x := v.(type) {
		case error:
			return appendText(b, verb, x.Error())
		case interface{ String() string }:
			return appendText(b, verb, x.String())
		}
	}
	// The value by its kind, read where the interface points: a value of these kinds is
	// never stored in the interface word itself (reflect's ifaceIndir), so the word is a
	// pointer to it. reflect.Value's accessors, which cover every kind, cost 4 KB of code.
	t := reflect.TypeOf(v)
	p := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
	switch k := t.Kind(); {
	case k == reflect.String && verb != 'd':
		return appendText(b, verb, *(*string)(p))
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && verb != 'd':
		if verb == 'v' || verb == 'w' {
			b = append(b, '[')
			bs := *(*[]byte)(p)
			for i := range bs {
				if i > 0 {
					b = append(b, ' ')
				}
				b = appendInt(b, reflect.Uint8, unsafe.Pointer(&bs[i]))
			}
			return append(b, ']')
		}
		return appendText(b, verb, string(*(*[]byte)(p)))
	case k >= reflect.Int && k <= reflect.Uintptr && verb != 'q':
		return appendInt(b, k, p)
	case k == reflect.Bool && (verb == 'v' || verb == 'w'):
		return strconv.AppendBool(b, *(*bool)(p))
	case k == reflect.Float64 && (verb == 'v' || verb == 'w'):
		return strconv.AppendFloat(b, *(*float64)(p), 'g', -1, 64)
	case k == reflect.Float32 && (verb == 'v' || verb == 'w'):
		return strconv.AppendFloat(b, float64(*(*float32)(p)), 'g', -1, 32)
	}
	return badVerb(b, verb, "("+t.String()+")")
}

// badVerb is verb's complaint about its operand, as fmt words it: %!verb(what).
func badVerb(b []byte, verb byte, what string) []byte {
	return append(append(append(b, "%!"...), verb), what...)
}

// appendInt is an integer of kind k (Int to Uintptr) at p, in decimal.
func appendInt(b []byte, k reflect.Kind, p unsafe.Pointer) []byte {
	var i int64
	var u uint64
	switch k {
	case reflect.Int:
		i = int64(*(*int)(p))
	case reflect.Int8:
		i = int64(*(*int8)(p))
	case reflect.Int16:
		i = int64(*(*int16)(p))
	case reflect.Int32:
		i = int64(*(*int32)(p))
	case reflect.Int64:
		i = *(*int64)(p)
	case reflect.Uint:
		u = uint64(*(*uint)(p))
	case reflect.Uint8:
		u = uint64(*(*uint8)(p))
	case reflect.Uint16:
		u = uint64(*(*uint16)(p))
	case reflect.Uint32:
		u = uint64(*(*uint32)(p))
	case reflect.Uint64:
		u = *(*uint64)(p)
	default:
		u = uint64(*(*uintptr)(p))
	}
	if i < 0 {
		b, u = append(b, '-'), uint64(-i) // -i of the smallest int64 is itself, as a uint64 its magnitude
	} else if i > 0 {
		u = uint64(i)
	}
	return strconv.AppendUint(b, u, 10)
}

// appendText is a string under %s, %v or %q.
func appendText(b []byte, verb byte, s string) []byte {
	switch verb {
	case 'q':
		return strconv.AppendQuote(b, s)
	case 's', 'v', 'w':
		return append(b, s...)
	}
	return badVerb(b, verb, "(string="+s+")")
}
