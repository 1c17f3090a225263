package jshost

// Source transforms for what goja cannot run: `for await` loops (goja has no
// async iteration) and ES module syntax (goja has no module loader). Both work
// on tokens from a small lexer, never on raw text, and keep every line where it
// was, so stack traces point into the original file.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

type tokKind uint8

const (
	tokIdent tokKind = iota + 1
	tokPunct
	tokString
	tokTemplate
	tokRegex
	tokNumber
)

type token struct {
	kind       tokKind
	start, end int
}

type lexer struct {
	src  string
	pos  int
	toks []token
}

// lex splits src into tokens, skipping spaces and comments. Punctuators are
// one byte each. A template literal is one token (its substitutions are lexed
// only to find its end). Whether a '/' starts a regular expression is decided
// by the token before it, as lexers without a parser do: after ')', ']', '}',
// a name, a number or a literal it divides.
func lex(src string) ([]token, error) {
	l := &lexer{src: src}
	if strings.HasPrefix(src, "#!") {
		l.pos = len(src)
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			l.pos = i
		}
	}
	if err := l.tokens(false); err != nil {
		return nil, err
	}
	return l.toks, nil
}

func (l *lexer) errorf(pos int, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", 1+strings.Count(l.src[:pos], "\n"), fmt.Sprintf(format, args...))
}

// tokens lexes to the end of src or, inside a template substitution (sub), up
// to the '}' that closes it.
func (l *lexer) tokens(sub bool) error {
	depth := 0
	for {
		if err := l.space(); err != nil {
			return err
		}
		if l.pos >= len(l.src) {
			if sub {
				return l.errorf(len(l.src), "unterminated template literal")
			}
			return nil
		}
		start, c := l.pos, l.src[l.pos]
		kind := tokPunct
		switch {
		case c == '"' || c == '\'':
			if err := l.quoted(c); err != nil {
				return err
			}
			kind = tokString
		case c == '`':
			if err := l.template(); err != nil {
				return err
			}
			kind = tokTemplate
		case isIdentByte(c) && !isDigit(c):
			for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
				l.pos++
			}
			kind = tokIdent
		case isDigit(c) || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
			for l.pos < len(l.src) && (isIdentByte(l.src[l.pos]) || l.src[l.pos] == '.') {
				l.pos++
			}
			kind = tokNumber
		case c == '/' && l.regexAllowed():
			if err := l.regex(); err != nil {
				return err
			}
			kind = tokRegex
		default:
			if sub {
				if c == '{' {
					depth++
				} else if c == '}' {
					if depth == 0 {
						return nil
					}
					depth--
				}
			}
			l.pos++
		}
		l.toks = append(l.toks, token{kind, start, l.pos})
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c >= 0x80
}

func (l *lexer) space() error {
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case strings.HasPrefix(l.src[l.pos:], "\uFEFF"):
			l.pos += len("\uFEFF")
		case strings.HasPrefix(l.src[l.pos:], "\u00A0"):
			l.pos += len("\u00A0")
		case strings.HasPrefix(l.src[l.pos:], "//"):
			if i := strings.IndexByte(l.src[l.pos:], '\n'); i >= 0 {
				l.pos += i
			} else {
				l.pos = len(l.src)
			}
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			i := strings.Index(l.src[l.pos+2:], "*/")
			if i < 0 {
				return l.errorf(l.pos, "unterminated comment")
			}
			l.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) quoted(q byte) error {
	start := l.pos
	for l.pos++; l.pos < len(l.src); {
		switch l.src[l.pos] {
		case '\\':
			l.pos += 2
		case q:
			l.pos++
			return nil
		case '\n':
			return l.errorf(start, "unterminated string")
		default:
			l.pos++
		}
	}
	return l.errorf(start, "unterminated string")
}

func (l *lexer) template() error {
	start := l.pos
	for l.pos++; l.pos < len(l.src); {
		switch {
		case l.src[l.pos] == '\\':
			l.pos += 2
		case l.src[l.pos] == '`':
			l.pos++
			return nil
		case strings.HasPrefix(l.src[l.pos:], "${"):
			sub := &lexer{src: l.src, pos: l.pos + 2}
			if err := sub.tokens(true); err != nil {
				return err
			}
			l.pos = sub.pos + 1
		default:
			l.pos++
		}
	}
	return l.errorf(start, "unterminated template literal")
}

func (l *lexer) regex() error {
	start, inClass := l.pos, false
	for l.pos++; l.pos < len(l.src); l.pos++ {
		switch l.src[l.pos] {
		case '\\':
			l.pos++
		case '\n':
			return l.errorf(start, "unterminated regular expression")
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				for l.pos++; l.pos < len(l.src) && isIdentByte(l.src[l.pos]); l.pos++ {
				}
				return nil
			}
		}
	}
	return l.errorf(start, "unterminated regular expression")
}

// exprKeywords are the names after which a '/' starts a regular expression.
var exprKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true,
	"void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true,
}

func (l *lexer) regexAllowed() bool {
	if len(l.toks) == 0 {
		return true
	}
	t := l.toks[len(l.toks)-1]
	switch t.kind {
	case tokIdent:
		return exprKeywords[l.src[t.start:t.end]]
	case tokPunct:
		c := l.src[t.start]
		return c != ')' && c != ']' && c != '}'
	}
	return false
}

// toks is a token list with its source, for the transforms.
type toks struct {
	src string
	t   []token
}

func (s toks) text(i int) string {
	if i < 0 || i >= len(s.t) {
		return ""
	}
	return s.src[s.t[i].start:s.t[i].end]
}

func (s toks) word(i int) string {
	if i < 0 || i >= len(s.t) || s.t[i].kind != tokIdent {
		return ""
	}
	return s.text(i)
}

func (s toks) punct(i int, c byte) bool {
	return i >= 0 && i < len(s.t) && s.t[i].kind == tokPunct && s.src[s.t[i].start] == c
}

func (s toks) line(i int) int {
	pos := len(s.src)
	if i < len(s.t) {
		pos = s.t[i].start
	}
	return 1 + strings.Count(s.src[:pos], "\n")
}

func (s toks) errorf(i int, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", s.line(i), fmt.Sprintf(format, args...))
}

// closing returns the index of the bracket that closes the one at i, or -1.
func (s toks) closing(i int) int {
	depth := 0
	for j := i; j < len(s.t); j++ {
		if s.t[j].kind != tokPunct {
			continue
		}
		switch s.src[s.t[j].start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// compound statements (but for and while loops) are not simple statements.
var compound = map[string]bool{
	"if": true, "for": true, "while": true, "do": true, "switch": true, "try": true, "with": true,
	"function": true, "class": true, "async": true,
}

// statementEnd returns the index of the last token of the statement starting
// at i: a simple statement ending in ';', or a for/while loop around one, or a
// block. It returns -1 for other compound statements.
func (s toks) statementEnd(i int) int {
	if s.punct(i, '{') {
		return s.closing(i)
	}
	if w := s.word(i); w == "for" || w == "while" {
		k := i + 1
		if w == "for" && s.word(k) == "await" {
			k++
		}
		if c := s.closing(k); s.punct(k, '(') && c > 0 {
			return s.statementEnd(c + 1)
		}
		return -1
	}
	if compound[s.word(i)] || s.punct(i+1, ':') {
		return -1
	}
	depth := 0
	for j := i; j < len(s.t); j++ {
		switch {
		case s.punct(j, '(') || s.punct(j, '[') || s.punct(j, '{'):
			depth++
		case s.punct(j, ')') || s.punct(j, ']') || s.punct(j, '}'):
			if depth--; depth < 0 {
				return -1
			}
		case depth == 0 && s.punct(j, ';'):
			return j
		}
	}
	return -1
}

// desugarForAwait rewrites every `for await (DECL of EXPR) { BODY }` into a
// plain loop over __jshostAsyncIterator(EXPR) (shims.js) that awaits next(),
// and calls return() when the body leaves early (break, return, throw), as the
// spec's AsyncIteratorClose does. The body must be a block or one simple
// statement ending in ';'. A label on the loop is not kept (a labelled
// continue then fails to compile).
func desugarForAwait(src string) (string, error) {
	if !strings.Contains(src, "await") {
		return src, nil
	}
	n := 0
	return desugar(src, &n)
}

func desugar(src string, n *int) (string, error) {
	t, err := lex(src)
	if err != nil {
		return "", err
	}
	s := toks{src, t}
	var b strings.Builder
	last := 0
	for i := 0; i+2 < len(t); i++ {
		if s.word(i) != "for" || s.word(i+1) != "await" || !s.punct(i+2, '(') {
			continue
		}
		closeParen := s.closing(i + 2)
		if closeParen < 0 {
			return "", s.errorf(i, "for await: unbalanced parentheses")
		}
		of := -1
		for j, depth := i+3, 0; j < closeParen && of < 0; j++ {
			switch {
			case s.punct(j, '(') || s.punct(j, '[') || s.punct(j, '{'):
				depth++
			case s.punct(j, ')') || s.punct(j, ']') || s.punct(j, '}'):
				depth--
			case depth == 0 && s.word(j) == "of":
				of = j
			}
		}
		if of < 0 {
			return "", s.errorf(i, "for await: only `for await (x of y)` is supported")
		}
		var end, bodyStart, bodyEnd int
		if s.punct(closeParen+1, '{') {
			if end = s.closing(closeParen + 1); end < 0 {
				return "", s.errorf(i, "for await: unbalanced braces")
			}
			bodyStart, bodyEnd = t[closeParen+1].end, t[end].start
		} else {
			if end = s.statementEnd(closeParen + 1); end < 0 {
				return "", s.errorf(i, "for await: jshost needs the loop body to be a block { … }, or a simple statement ending in ';'")
			}
			bodyStart, bodyEnd = t[closeParen+1].start, t[end].end
		}
		decl := src[t[i+2].end:t[of].start]
		expr, err := desugar(src[t[of].end:t[closeParen].start], n)
		if err != nil {
			return "", err
		}
		body, err := desugar(src[bodyStart:bodyEnd], n)
		if err != nil {
			return "", err
		}
		*n++
		b.WriteString(src[last:t[i].start])
		fmt.Fprintf(&b, "{const $jsIt%[1]d=__jshostAsyncIterator(%[2]s);let $jsOpen%[1]d=false;"+
			"try{for(;;){$jsOpen%[1]d=false;const $jsR%[1]d=await $jsIt%[1]d.next();if($jsR%[1]d.done)break;"+
			"$jsOpen%[1]d=true;%[3]s=$jsR%[1]d.value;{%[4]s}}}"+
			"finally{if($jsOpen%[1]d&&typeof $jsIt%[1]d.return===\"function\")await $jsIt%[1]d.return()}}",
			*n, expr, decl, body)
		last = t[end].end
		i = end
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// moduleSource is an ES module turned into a script.
type moduleSource struct {
	// code is a function expression; call it with (namespace, importer,
	// define). importer(spec, names) returns the namespace of a dependency,
	// define(namespace, getters, stars) fills in the exports.
	code string
	deps []string // import specifiers, in the order the module imports them
	// dynamic is set when the code uses import(…) or import.meta.
	dynamic bool
}

// importVar takes the place of the keyword "import" in import(…) and import.meta:
// importer(spec) loads a module and returns a promise of its namespace, and
// importer.meta is the module's import.meta ({url}).
const importVar = "$jsImp"

// defaultVar holds an `export default` expression; it fits in the place of
// "export default" (13 bytes plus at least one space), so offsets are kept.
const defaultVar = "$jsDflt"

// transformModule turns an ES module into a script (see LoadModule for the
// subset it accepts). Import declarations become constants read from the
// dependency's namespace at the top; `export` keywords are blanked out, and
// getters for the exported bindings are defined after the body, so exports
// are live. Every rewrite keeps lines (the import/export ones keep offsets
// too), and the names an exported declaration binds are read from goja's
// parser.
func transformModule(path, src string) (*moduleSource, error) {
	if err := noTopLevelAwait(src); err != nil {
		return nil, err
	}
	src, err := desugarForAwait(src)
	if err != nil {
		return nil, err
	}
	t, err := lex(src)
	if err != nil {
		return nil, err
	}
	s := toks{src, t}
	out := []byte(src)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
	}

	ms := &moduleSource{}
	var prelude strings.Builder
	nmod := 0
	// importFrom adds a dependency and returns the name of the constant that
	// holds its namespace; names are checked to exist when the module runs.
	importFrom := func(spec string, names []string) string {
		nmod++
		v := fmt.Sprintf("$jsM%d", nmod)
		if !slices.Contains(ms.deps, spec) {
			ms.deps = append(ms.deps, spec)
		}
		fmt.Fprintf(&prelude, "const %s=__jsh_import(%s,%s);", v, jsString(spec), jsStrings(names))
		return v
	}
	type export struct {
		name, expr string
		pos        int
	}
	var exports []export
	addExport := func(pos int, name, expr string) {
		exports = append(exports, export{name, expr, pos})
	}
	type decl struct {
		pos  int
		dflt bool
	}
	var decls []decl
	var stars []string

	depth := 0
	for i := 0; i < len(t); i++ {
		switch {
		case s.punct(i, '(') || s.punct(i, '[') || s.punct(i, '{'):
			depth++
			continue
		case s.punct(i, ')') || s.punct(i, ']') || s.punct(i, '}'):
			depth--
			continue
		}
		w := s.word(i)
		if w != "import" && w != "export" || s.punct(i-1, '.') {
			continue
		}
		if w == "import" && (s.punct(i+1, '(') || s.punct(i+1, '.')) {
			// import(…) and import.meta: "import" becomes importVar, a function of the
			// same length with a meta property (LoadModule).
			if s.punct(i+1, '.') && s.word(i+2) != "meta" {
				return nil, s.errorf(i, "import.%s is not supported", s.text(i+2))
			}
			copy(out[t[i].start:], importVar)
			ms.dynamic = true
			continue
		}
		if depth != 0 {
			continue // goja's parser rejects a declaration in a block
		}
		if w == "import" {
			end, err := parseImport(s, i, importFrom, &prelude)
			if err != nil {
				return nil, err
			}
			blank(t[i].start, t[end-1].end)
			i = end - 1
			continue
		}

		// export …
		j := i + 1
		switch kw := s.word(j); {
		case kw == "default":
			k := j + 1
			if s.word(k) == "async" && s.word(k+1) == "function" {
				k++
			}
			named := false
			if s.word(k) == "function" || s.word(k) == "class" {
				n := k + 1
				if s.punct(n, '*') {
					n++
				}
				named = s.word(n) != "" && s.word(n) != "extends"
			}
			if named {
				blank(t[i].start, t[j].end)
				decls = append(decls, decl{pos: t[j+1].start, dflt: true})
			} else {
				// "var $jsDflt=" then the span's line breaks, then spaces.
				span := src[t[i].start:t[j].end]
				repl := "var " + defaultVar + "=" + strings.Repeat("\n", strings.Count(span, "\n"))
				repl += strings.Repeat(" ", len(span)-len(repl))
				copy(out[t[i].start:], repl)
				addExport(t[i].start, "default", defaultVar)
			}
			i = j
		case kw == "const" || kw == "let" || kw == "var" || kw == "function" || kw == "class" ||
			kw == "async" && s.word(j+1) == "function":
			blank(t[i].start, t[i].end)
			decls = append(decls, decl{pos: t[j].start})
		case s.punct(j, '{'):
			type item struct{ local, name string }
			var items []item
			for j++; !s.punct(j, '}'); {
				local := s.word(j)
				if local == "" {
					return nil, s.errorf(j, "export { … }: expected a name, found %q", s.text(j))
				}
				name := local
				if j++; s.word(j) == "as" {
					if name = s.word(j + 1); name == "" {
						return nil, s.errorf(j, "export { … as … }: expected a name, found %q", s.text(j+1))
					}
					j += 2
				}
				items = append(items, item{local, name})
				if s.punct(j, ',') {
					j++
				} else if !s.punct(j, '}') {
					return nil, s.errorf(j, "export { … }: expected ',' or '}', found %q", s.text(j))
				}
			}
			j++
			var from string
			if s.word(j) == "from" {
				spec, err := specifier(s, j+1)
				if err != nil {
					return nil, err
				}
				var names []string
				for _, it := range items {
					names = append(names, it.local)
				}
				from = importFrom(spec, names)
				j += 2
			}
			for _, it := range items {
				expr := it.local
				if from != "" {
					expr = from + "." + it.local
				} else if it.local == "default" {
					return nil, s.errorf(i, "export { default } needs a from clause")
				}
				addExport(t[i].start, it.name, expr)
			}
			if s.punct(j, ';') {
				j++
			}
			blank(t[i].start, t[j-1].end)
			i = j - 1
		case s.punct(j, '*'):
			ns := ""
			if j++; s.word(j) == "as" {
				if ns = s.word(j + 1); ns == "" {
					return nil, s.errorf(j, "export * as: expected a name, found %q", s.text(j+1))
				}
				j += 2
			}
			if s.word(j) != "from" {
				return nil, s.errorf(j, "export *: expected from, found %q", s.text(j))
			}
			spec, err := specifier(s, j+1)
			if err != nil {
				return nil, err
			}
			m := importFrom(spec, nil)
			if ns != "" {
				addExport(t[i].start, ns, m)
			} else {
				stars = append(stars, m)
			}
			if j += 2; s.punct(j, ';') {
				j++
			}
			blank(t[i].start, t[j-1].end)
			i = j - 1
		default:
			return nil, s.errorf(i, "unsupported export form `export %s`", s.text(j))
		}
	}

	body := string(out)
	if len(decls) > 0 {
		prog, err := parser.ParseFile(nil, path, body, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range decls {
			var stmt ast.Statement
			for _, st := range prog.Body {
				if int(st.Idx0())-1 >= d.pos {
					stmt = st
					break
				}
			}
			names := declNames(stmt)
			if len(names) == 0 {
				return nil, fmt.Errorf("line %d: cannot read the names this export declares", 1+strings.Count(body[:d.pos], "\n"))
			}
			if d.dflt {
				names = names[:1]
			}
			for _, name := range names {
				key := name
				if d.dflt {
					key = "default"
				}
				addExport(d.pos, key, name)
			}
		}
	}

	slices.SortStableFunc(exports, func(a, b export) int { return a.pos - b.pos })
	for k := 1; k < len(exports); k++ {
		for _, e := range exports[:k] {
			if e.name == exports[k].name {
				return nil, fmt.Errorf("line %d: duplicate export %q", 1+strings.Count(body[:exports[k].pos], "\n"), e.name)
			}
		}
	}

	var code strings.Builder
	code.WriteString(`(function(__jsh_exports,__jsh_import,__jsh_define){"use strict";`)
	code.WriteString(prelude.String())
	if ms.dynamic {
		code.WriteString("const " + importVar + "=Object.assign((s)=>__jsh_import(s),{meta:__jsh_import.meta});")
	}
	code.WriteString(body)
	code.WriteString("\n;__jsh_define(__jsh_exports,{")
	for k, e := range exports {
		if k > 0 {
			code.WriteByte(',')
		}
		fmt.Fprintf(&code, "%s:()=>%s", jsString(e.name), e.expr)
	}
	code.WriteString("},[" + strings.Join(stars, ",") + "]);\n})")
	ms.code = code.String()
	return ms, nil
}

// noTopLevelAwait rejects `await` outside any function (modules are run as a
// plain function), checked before for await loops are rewritten into blocks.
func noTopLevelAwait(src string) error {
	t, err := lex(src)
	if err != nil {
		return err
	}
	s := toks{src, t}
	depth := 0
	for i := range t {
		switch {
		case s.punct(i, '(') || s.punct(i, '[') || s.punct(i, '{'):
			depth++
		case s.punct(i, ')') || s.punct(i, ']') || s.punct(i, '}'):
			depth--
		case depth == 0 && s.word(i) == "await" && !s.punct(i-1, '.'):
			return s.errorf(i, "top-level await is not supported")
		}
	}
	return nil
}

// parseImport reads the import declaration at i, writes its constants to
// prelude (through importFrom), and returns the index after it.
func parseImport(s toks, i int, importFrom func(string, []string) string, prelude *strings.Builder) (int, error) {
	j := i + 1
	if s.t[min(j, len(s.t)-1)].kind == tokString {
		spec, err := specifier(s, j)
		if err != nil {
			return 0, err
		}
		importFrom(spec, nil)
		j++
	} else {
		var binds []string // "local=" + path in the namespace
		var names []string
		if def := s.word(j); def != "" && def != "from" || def == "from" && s.word(j+1) == "from" {
			binds = append(binds, def+"=.default")
			names = append(names, "default")
			if j++; s.punct(j, ',') {
				j++
			}
		}
		switch {
		case s.punct(j, '*'):
			if s.word(j+1) != "as" || s.word(j+2) == "" {
				return 0, s.errorf(j, "import * must be followed by `as name`")
			}
			binds = append(binds, s.word(j+2)+"=")
			j += 3
		case s.punct(j, '{'):
			for j++; !s.punct(j, '}'); {
				name := s.word(j)
				if name == "" {
					return 0, s.errorf(j, "import { … }: expected a name, found %q", s.text(j))
				}
				local := name
				if j++; s.word(j) == "as" {
					if local = s.word(j + 1); local == "" {
						return 0, s.errorf(j, "import { … as … }: expected a name, found %q", s.text(j+1))
					}
					j += 2
				}
				if local == "default" {
					return 0, s.errorf(j, "import { default } must be renamed: { default as name }")
				}
				binds = append(binds, local+"=."+name)
				names = append(names, name)
				if s.punct(j, ',') {
					j++
				} else if !s.punct(j, '}') {
					return 0, s.errorf(j, "import { … }: expected ',' or '}', found %q", s.text(j))
				}
			}
			j++
		}
		if len(binds) == 0 {
			return 0, s.errorf(i, "unsupported import form `import %s`", s.text(i+1))
		}
		if s.word(j) != "from" {
			return 0, s.errorf(j, "import: expected from, found %q", s.text(j))
		}
		spec, err := specifier(s, j+1)
		if err != nil {
			return 0, err
		}
		m := importFrom(spec, names)
		for _, b := range binds {
			local, path, _ := strings.Cut(b, "=")
			fmt.Fprintf(prelude, "const %s=%s%s;", local, m, path)
		}
		j += 2
	}
	if w := s.word(j); (w == "with" || w == "assert") && s.line(j) == s.line(j-1) {
		return 0, s.errorf(j, "import attributes (`%s { … }`) are not supported", w)
	}
	if s.punct(j, ';') {
		j++
	}
	return j, nil
}

// specifier reads the module specifier at i: a relative ("./", "../") or
// absolute path in a string without escapes.
func specifier(s toks, i int) (string, error) {
	if i >= len(s.t) || s.t[i].kind != tokString {
		return "", s.errorf(i, "expected a module specifier string, found %q", s.text(i))
	}
	spec := s.text(i)
	spec = spec[1 : len(spec)-1]
	if strings.ContainsRune(spec, '\\') {
		return "", s.errorf(i, "module specifier %s: escapes are not supported", s.text(i))
	}
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && !strings.HasPrefix(spec, "/") {
		return "", s.errorf(i, "module specifier %q: only relative (./, ../) and absolute paths are supported", spec)
	}
	return spec, nil
}

// declNames lists the bindings a declaration statement creates.
func declNames(stmt ast.Statement) []string {
	var names []string
	switch st := stmt.(type) {
	case *ast.FunctionDeclaration:
		if st.Function.Name != nil {
			names = append(names, st.Function.Name.Name.String())
		}
	case *ast.ClassDeclaration:
		if st.Class.Name != nil {
			names = append(names, st.Class.Name.Name.String())
		}
	case *ast.VariableStatement:
		for _, b := range st.List {
			bindingNames(b.Target, &names)
		}
	case *ast.LexicalDeclaration:
		for _, b := range st.List {
			bindingNames(b.Target, &names)
		}
	}
	return names
}

func bindingNames(n ast.Node, names *[]string) {
	switch n := n.(type) {
	case *ast.Identifier:
		*names = append(*names, n.Name.String())
	case *ast.ObjectPattern:
		for _, p := range n.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				*names = append(*names, p.Name.Name.String())
			case *ast.PropertyKeyed:
				bindingNames(p.Value, names)
			}
		}
		if n.Rest != nil {
			bindingNames(n.Rest, names)
		}
	case *ast.ArrayPattern:
		for _, e := range n.Elements {
			if e != nil {
				bindingNames(e, names)
			}
		}
		if n.Rest != nil {
			bindingNames(n.Rest, names)
		}
	case *ast.AssignExpression:
		bindingNames(n.Left, names)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsStrings(list []string) string {
	if list == nil {
		list = []string{}
	}
	b, _ := json.Marshal(list)
	return string(b)
}
