//go:build js && wasm

package main

import (
	"syscall/js"

	"langmodel/session/schema"
)

// The schema validator's pattern and patternProperties keywords run on the page's own
// RegExp: JSON Schema defines patterns as ECMA-262 regular expressions, so this is the
// faithful engine, and leaving Go's regexp out saves about 90 KB brotli of the module's
// 1.0 MB budget. The "u" flag makes \u{…}, code-point classes and surrogate pairs behave
// as the spec's Unicode mode does; without "g" or "y", test() keeps no state.
func init() { schema.Patterns = compileRegExp }

var regExp = js.Global().Get("RegExp")

type jsPattern struct{ re js.Value }

func (p jsPattern) MatchString(s string) bool { return p.re.Call("test", s).Bool() }

func compileRegExp(src string) (m schema.Matcher, err error) {
	defer func() {
		// new RegExp throws a SyntaxError for a malformed pattern; syscall/js turns a
		// JS exception into a panic with a js.Error.
		if r := recover(); r != nil {
			if jerr, ok := r.(js.Error); ok {
				m, err = nil, &schema.PatternError{Invalid: true, Reason: jerr.Error()}
				return
			}
			panic(r)
		}
	}()
	return jsPattern{re: regExp.New(src, "u")}, nil
}
