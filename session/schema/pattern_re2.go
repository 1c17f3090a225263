//go:build !js || re2

package schema

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Outside the browser, patterns run on Go's RE2 engine. The browser module leaves this
// file out (it is built for js without the re2 tag) and installs the page's own RegExp
// instead, which is what JSON Schema specifies and keeps regexp out of the module
// (about 90 KB brotli). `GOOS=js go test -tags re2` runs the tests with RE2.
func init() { Patterns = compileRE2 }

// compileRE2 compiles an ECMA-262 pattern with Go's RE2 engine, after rewriting the one
// common ECMA spelling RE2 rejects outright: \uXXXX (and \u{X…}), including surrogate
// pairs. Other ECMA features RE2 lacks (lookaround, backreferences, \cX, …) make the
// schema unsupported; a pattern that is malformed in any dialect (unbalanced brackets, a
// dangling quantifier) makes it invalid. Known semantic gaps that compile anyway: RE2's \s
// is ASCII whitespace only, and '.' matches \r, U+2028 and U+2029.
func compileRE2(src string) (Matcher, error) {
	re, err := regexp.Compile(translatePattern(src))
	if err == nil {
		return re, nil
	}
	if se, ok := err.(*syntax.Error); ok {
		switch se.Code {
		case syntax.ErrMissingBracket, syntax.ErrMissingParen, syntax.ErrUnexpectedParen,
			syntax.ErrMissingRepeatArgument, syntax.ErrTrailingBackslash, syntax.ErrInvalidCharRange,
			syntax.ErrInvalidRepeatOp:
			return nil, &PatternError{Invalid: true, Reason: err.Error()}
		}
	}
	return nil, &PatternError{Reason: "Go's RE2 engine lacks this regular-expression feature (" + err.Error() + ")"}
}

func translatePattern(src string) string {
	if !strings.Contains(src, `\u`) {
		return src
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' || i+1 >= len(src) {
			b.WriteByte(c)
			continue
		}
		if src[i+1] != 'u' {
			b.WriteByte(c)
			b.WriteByte(src[i+1])
			i++
			continue
		}
		if r, n := readUnicodeEscape(src[i:]); n > 0 {
			// combine a UTF-16 surrogate pair into one code point
			if r >= 0xD800 && r < 0xDC00 {
				if lo, m := readUnicodeEscape(src[i+n:]); m > 0 && lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					n += m
				}
			}
			b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
			i += n - 1
			continue
		}
		b.WriteString(`\u`) // left for RE2 to reject
		i++
	}
	return b.String()
}

// readUnicodeEscape reads \uXXXX or \u{X…} at the start of s.
func readUnicodeEscape(s string) (rune, int) {
	if len(s) < 3 || s[0] != '\\' || s[1] != 'u' {
		return 0, 0
	}
	if s[2] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 4 || end > 9 {
			return 0, 0
		}
		v, err := strconv.ParseUint(s[3:end], 16, 32)
		if err != nil || v > 0x10FFFF {
			return 0, 0
		}
		return rune(v), end + 1
	}
	if len(s) < 6 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[2:6], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 6
}
