package schema

// Matcher is a compiled pattern: it reports whether a string contains a match, as
// ECMA-262's RegExp.prototype.test does (JSON Schema patterns are not anchored).
type Matcher interface {
	MatchString(s string) bool
}

// PatternCompiler compiles a JSON Schema pattern (an ECMA-262 regular expression). A
// pattern that is malformed returns a *PatternError with Invalid set; one the engine
// cannot run, a *PatternError without it.
type PatternCompiler func(src string) (Matcher, error)

// PatternError says why a pattern did not compile.
type PatternError struct {
	Invalid bool // malformed in any dialect (else: a feature the engine lacks)
	Reason  string
}

func (e *PatternError) Error() string { return e.Reason }

// Patterns compiles the pattern and patternProperties keywords. Native builds use Go's
// RE2 engine (pattern_re2.go); the browser module sets the page's RegExp. When it is nil,
// a schema with a pattern is unsupported.
var Patterns PatternCompiler

func compilePattern(keyword, src, loc string) (Matcher, error) {
	if Patterns == nil {
		return nil, unsupported("pattern", "pattern %q in %q at %s: no regular-expression engine is installed", src, keyword, where(loc))
	}
	m, err := Patterns(src)
	if err == nil {
		return m, nil
	}
	if pe, ok := err.(*PatternError); ok && pe.Invalid {
		return nil, invalid("%q at %s: pattern %q is not a valid regular expression (%s)", keyword, where(loc), src, pe.Reason)
	}
	return nil, unsupported("ECMA regex feature", "pattern %q in %q at %s: %v", src, keyword, where(loc), err)
}
