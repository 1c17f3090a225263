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

// CompilePattern compiles an ECMA-262 pattern (Unicode mode, no flags) for a pattern or
// patternProperties keyword, or a RegExp responseConstraint, on the linear-time engine
// every build uses (internal/relin): the strings it tests are the model's output, which
// must not be able to block the page, so what cannot run in linear time (lookaround,
// backreferences) is refused rather than run on a backtracking engine. Errors are
// *relin.Error values (Unsupported set for refused syntax). See RATIONALE.md, "Why a
// regular-expression engine of our own?".
func CompilePattern(src string) (Matcher, error) { return relin.Compile(src) }

// PatternError is why a pattern did not compile: Unsupported for refused syntax,
// otherwise a malformed pattern.
type PatternError = relin.Error

func compilePattern(keyword, src, loc string) (Matcher, error) {
	m, err := relin.Compile(src)
	if err == nil {
		return m, nil
	}
	var re *relin.Error
	if errors.As(err, &re) && re.Unsupported {
		return nil, unsupported("pattern", "pattern %q in %q at %s: %v", src, keyword, where(loc), err)
	}
	return nil, invalid("%q at %s: pattern %q is not a valid regular expression (%v)", keyword, where(loc), src, err)
}
