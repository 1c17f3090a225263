package schema

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"langmodel/internal/sfmt"
)

// ErrUnsupported is wrapped by Compile errors for a keyword (or a form of a
// keyword, such as a remote $ref) that this validator deliberately does not
// implement. The error text names the keyword and its schema location.
var ErrUnsupported = errors.New("unsupported JSON Schema keyword")

// ErrInvalid is wrapped by Compile errors for malformed schemas: a keyword
// with a value of the wrong shape, an unresolvable $ref, a $ref cycle that
// would loop forever, or a schema that is neither an object nor a boolean.
var ErrInvalid = errors.New("invalid JSON Schema")

// schemaError is a Compile error: a full message plus the sentinel it wraps.
type schemaError struct {
	msg     string
	kind    error
	feature string // for ErrUnsupported: what is unsupported, e.g. "remote $ref"
}

func (e *schemaError) Error() string { return e.msg }
func (e *schemaError) Unwrap() error { return e.kind }

// unsupported and invalid are a Compile error. Not inlined: the compiler calls them at 38
// places, where their bodies cost 6 KB of code. The package is built without inlining
// (the Makefile's NOINLINE): no go:noinline mark is needed (with the marks, the module
// was the same, byte for byte).
func unsupported(feature, format string, args ...any) error {
	return &schemaError{msg: "schema: unsupported " + sfmt.Sprintf(format, args...), kind: ErrUnsupported, feature: feature}
}

// invalid is the Compile error of a schema that is not valid JSON Schema.
func invalid(format string, args ...any) error {
	return &schemaError{msg: "schema: " + sfmt.Sprintf(format, args...), kind: ErrInvalid}
}

// where renders a schema location for a Compile error message.
func where(loc string) string {
	if loc == "" {
		return "the root"
	}
	return loc
}

// ValidationError describes the first violation Validate found.
type ValidationError struct {
	// InstancePath is a JSON Pointer to the offending value, "" for the root,
	// e.g. "/items/0/name".
	InstancePath string
	// Keyword is the schema keyword that failed, e.g. "type" or "required".
	Keyword string
	// Message is a sentence for a language model (or a person) to read: the
	// instance path ("/" for the root), a colon, and what is wrong, e.g.
	// `/location: expected string, got number`.
	Message string

	detail string // Message without the path prefix
}

// Error returns "at " followed by Message, e.g.
// `at /count: 7 is greater than the maximum 5`.
func (e *ValidationError) Error() string { return "at " + e.Message }

func newValidationError(ptr, keyword, detail string) *ValidationError {
	disp := ptr
	if disp == "" {
		disp = "/"
	}
	return &ValidationError{InstancePath: ptr, Keyword: keyword, Message: disp + ": " + detail, detail: detail}
}

// errQuiet is the result of a failed check in quiet mode, where only
// pass/fail matters (inside not, if, contains and the first pass of
// anyOf/oneOf). It never reaches a caller of Validate.
var errQuiet = &ValidationError{Keyword: "quiet", Message: "/: invalid", detail: "invalid"}

// state is the instance location being validated, as a stack of segments;
// it is only rendered as a JSON Pointer when a violation is reported.
type state struct {
	segs []seg
	buf  [8]seg
}

type seg struct {
	key string
	idx int // -1 for an object member
}

func (st *state) pushKey(k string) { st.segs = append(st.segs, seg{key: k, idx: -1}) }
func (st *state) pushIdx(i int)    { st.segs = append(st.segs, seg{idx: i}) }
func (st *state) pop()             { st.segs = st.segs[:len(st.segs)-1] }

func (st *state) pointer() string {
	var b strings.Builder
	for _, s := range st.segs {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(escapeToken(s.key))
		}
	}
	return b.String()
}

// fail reports a violation at p (or errQuiet in quiet mode, without
// formatting anything).
func fail(q bool, p *state, keyword, format string, args ...any) *ValidationError {
	if q {
		return errQuiet
	}
	return newValidationError(p.pointer(), keyword, sfmt.Sprintf(format, args...))
}

// render shows a JSON value in a message, shortened to about max characters.
func render(v any, max int) string {
	return truncate(string(appendValue(nil, v, false, max)), max)
}

// appendValue appends v as compact JSON-like text with object keys sorted
// and strings quoted Go-style (strconv.Quote, close to JSON and already
// linked). With canon, numbers are normalised (so that 1 and 1.0 agree) and
// the output is a key for equality; otherwise appending stops once max bytes
// are reached.
func appendValue(b []byte, v any, canon bool, max int) []byte {
	if !canon && len(b) > max {
		return b
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return strconv.AppendQuote(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e, canon, max)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = appendValue(b, x[k], canon, max)
		}
		return append(b, '}')
	}
	s, ok := numText(v)
	if !ok {
		return sfmt.Appendf(b, "(%T)", v)
	}
	d, ok := parseDecimal(s)
	if !canon || !ok {
		return append(b, s...)
	}
	if d.neg {
		b = append(b, '-')
	}
	b = append(b, d.digits...)
	b = append(b, 'e')
	return strconv.AppendInt(b, d.exp, 10)
}

func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// renderList shows up to 10 values separated by commas.
func renderList(vals []any) string {
	var b strings.Builder
	for i, v := range vals {
		if i == 10 {
			b.WriteString(", … (" + strconv.Itoa(len(vals)-10) + " more)")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(render(v, 60))
	}
	return b.String()
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
