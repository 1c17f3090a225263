package schema

import (
	"errors"

	"langmodel/internal/relin"
)

// Matcher is a compiled pattern: it reports whether a string contains a match, as
// ECMA-262's RegExp.prototype.test does (JSON Schema patterns are not anchored).
type Matcher interface {
	MatchString(s string) bool
}

// PatternCompiler compiles a JSON Schema pattern (an ECMA-262 regular expression). A
// pattern that is malformed returns a *PatternError with Invalid set; one the engine
// refuses, a *PatternError without it.
type PatternCompiler func(src string) (Matcher, error)

// PatternError says why a pattern did not compile.
type PatternError struct {
	Invalid bool // malformed (else: syntax the engine refuses)
	Reason  string
}

func (e *PatternError) Error() string { return e.Reason }

// Patterns compiles the pattern and patternProperties keywords, and RegExp
// responseConstraints (session/constraint.go): internal/relin in every build, natively
// and in the module alike. The strings it tests are the model's output, which must not
// be able to block the page, so syntax that cannot run in linear time (lookaround,
// backreferences) is refused rather than run on a backtracking engine such as the page's
// RegExp. See RATIONALE.md, "Why a regular-expression engine of our own?".
var Patterns PatternCompiler = compileLinear

func compileLinear(src string) (Matcher, error) {
	m, err := relin.Compile(src)
	if err != nil {
		re, _ := errors.AsType[*relin.Error](err)
		return nil, &PatternError{Invalid: re == nil || !re.Unsupported, Reason: err.Error()}
	}
	return m, nil
}

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
