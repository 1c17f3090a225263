// Package relin matches ECMA-262 regular expressions in time linear in the input: the
// patterns of JSON Schema's pattern and patternProperties keywords, and the RegExps of
// responseConstraint, which the model's untrusted output is tested against. A
// backtracking engine (the page's RegExp) takes 47 s for ^(a+)+$ on 33 characters and
// blocks the page meanwhile; this one (a Pike VM, as in RE2) takes time proportional to
// the input times the size of the pattern, whatever either holds.
//
// The syntax is ECMA-262's in Unicode mode (the "u" flag): literals, ".", classes with
// ranges and \d \D \w \W \s \S, the escapes \t \n \v \f \r \0 \cX \xHH \uHHHH \u{H…}
// (surrogate pairs combine) and identity escapes of syntax characters, ^ $ \b \B,
// groups (capturing, named, non-capturing), alternation, and every quantifier
// (* + ? {n} {n,} {n,m} and their lazy forms; laziness changes which match is found,
// never whether there is one). Patterns are unanchored and flagless, as JSON Schema
// specifies.
//
// What cannot run in linear time, or needs tables the module does not carry, is refused
// with an *Error whose Unsupported is set: backreferences (\1, \k<name>), lookahead and
// lookbehind, Unicode property escapes (\p{…}), inline modifiers. Malformed patterns
// (what new RegExp(src, "u") throws a SyntaxError for) give an *Error without it.
//
// relin imports only strconv and unicode/utf8: Go's regexp would add about 90 KB brotli to
// the module (RATIONALE.md, "Why a regular-expression engine of our own?").
package relin

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is why a pattern did not compile.
type Error struct {
	// Unsupported is set for valid ECMA-262 syntax this engine refuses (it cannot run in
	// linear time, or needs Unicode tables); otherwise the pattern is malformed.
	Unsupported bool
	Offset      int    // byte offset in the pattern where the problem starts
	Msg         string // what is wrong, e.g. "lookahead (?= is not supported"
}

func (e *Error) Error() string { return e.Msg + " at offset " + strconv.Itoa(e.Offset) }

// Limits on what a pattern may expand to: counted repetitions copy their operand, so
// (a{1000}){1000} would otherwise compile to a million instructions.
const (
	maxInsts = 20000 // instructions in a compiled program
	maxDepth = 1000  // nested groups
)

type kind uint8

const (
	// the leaf kinds are numbered as their instructions (relin.go)
	kSet      kind = iota // one code point in set (sorted, merged [lo, hi] pairs)
	kCat                  // subs in sequence
	kAlt                  // one of subs
	kRepeat               // subs[0], min to max times (max -1: unbounded)
	kBegin                // ^ (4, as opBegin)
	kEnd                  // $
	kWordB                // \b
	kNotWordB             // \B
)

type node struct {
	kind     kind
	set      []rune
	subs     []*node
	min, max int
	size     int // instructions it compiles to, at most maxInsts+1 (set by measure)
}

type parser struct {
	src   string
	pos   int
	depth int
}

func (p *parser) fail(at int, msg string) *Error { return &Error{Offset: at, Msg: msg} }

func (p *parser) refuse(at int, msg string) *Error {
	return &Error{Unsupported: true, Offset: at, Msg: msg + " is not supported (it cannot be matched in linear time)"}
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) peek() rune {
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return r
}

func (p *parser) next() rune {
	r, w := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += w
	return r
}

func (p *parser) has(prefix string) bool {
	return len(p.src)-p.pos >= len(prefix) && p.src[p.pos:p.pos+len(prefix)] == prefix
}

// parse reads a whole pattern.
func parse(src string) (*node, error) {
	p := &parser{src: src}
	n, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if !p.eof() { // only a ')' stops a top-level disjunction early
		return nil, p.fail(p.pos, "unmatched )")
	}
	return n, nil
}

func (p *parser) disjunction() (*node, error) {
	var alts []*node
	for {
		a, err := p.alternative()
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
		if p.eof() || p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{kind: kAlt, subs: alts}, nil
}

func (p *parser) alternative() (*node, error) {
	cat := &node{kind: kCat}
	for !p.eof() && p.peek() != '|' && p.peek() != ')' {
		start := p.pos
		atom, quantifiable, err := p.term()
		if err != nil {
			return nil, err
		}
		if err := p.quantifier(&atom, quantifiable, start); err != nil {
			return nil, err
		}
		cat.subs = append(cat.subs, atom)
	}
	return cat, nil
}

// term reads an assertion or an atom; quantifiable is false for assertions.
func (p *parser) term() (*node, bool, error) {
	start := p.pos
	switch c := p.next(); c {
	case '^':
		return &node{kind: kBegin}, false, nil
	case '$':
		return &node{kind: kEnd}, false, nil
	case '.':
		return &node{kind: kSet, set: dot}, true, nil
	case '(':
		return p.group(start)
	case '[':
		set, err := p.class(start)
		return &node{kind: kSet, set: set}, true, err
	case '\\':
		return p.atomEscape(start)
	case '*', '+', '?':
		return nil, false, p.fail(start, "nothing to repeat before "+string(c))
	case '{':
		p.pos = start
		if _, _, ok := p.braces(); ok {
			return nil, false, p.fail(start, "nothing to repeat before {")
		}
		return nil, false, p.fail(start, "lone { (write \\{)")
	case '}', ']':
		return nil, false, p.fail(start, "lone "+string(c)+" (write \\"+string(c)+")")
	default:
		return &node{kind: kSet, set: []rune{c, c}}, true, nil
	}
}

func (p *parser) group(start int) (*node, bool, error) {
	if p.has("?") {
		p.pos++
		c := p.next()
		if c == '<' && !p.has("=") && !p.has("!") { // a named group
			name := p.pos
			for !p.eof() && p.peek() != '>' {
				c := p.next()
				if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c > 0x7f || p.pos-name > 1 && c >= '0' && c <= '9') {
					p.pos = len(p.src) // fails below
				}
			}
			if !p.has(">") || p.pos == name {
				return nil, false, p.fail(start, "invalid group name")
			}
			p.pos++
		} else if c != ':' {
			what := "the group syntax " // inline modifiers, (?i:…)
			if c == '=' || c == '!' {
				what = "lookahead "
			} else if c == '<' {
				what = "lookbehind "
				p.pos++
			}
			return nil, false, p.refuse(start, what+p.src[start:p.pos])
		}
	}
	if p.depth++; p.depth > maxDepth {
		return nil, false, &Error{Unsupported: true, Offset: start, Msg: "groups nested more than " + strconv.Itoa(maxDepth) + " deep are not supported"}
	}
	n, err := p.disjunction()
	p.depth--
	if err != nil {
		return nil, false, err
	}
	if p.eof() {
		return nil, false, p.fail(start, "unterminated group")
	}
	p.pos++ // ')'
	return n, true, nil
}

// quantifier applies a following * + ? {n} {n,} {n,m} (and a lazy ?) to atom.
func (p *parser) quantifier(atom **node, quantifiable bool, start int) error {
	if p.eof() {
		return nil
	}
	at := p.pos
	min, max := 0, 0
	switch p.peek() {
	case '*':
		p.pos++
		min, max = 0, -1
	case '+':
		p.pos++
		min, max = 1, -1
	case '?':
		p.pos++
		min, max = 0, 1
	case '{':
		var ok bool
		if min, max, ok = p.braces(); !ok {
			return p.fail(at, "lone { (write \\{)")
		}
		if max >= 0 && max < min {
			return p.fail(at, "numbers out of order in {} quantifier")
		}
	default:
		return nil
	}
	if !quantifiable {
		return p.fail(at, "nothing to repeat: "+p.src[start:at]+" is an assertion")
	}
	if !p.eof() && p.peek() == '?' {
		p.pos++ // lazy: the same set of matches
	}
	if !p.eof() {
		if c := p.peek(); c == '*' || c == '+' || c == '?' || c == '{' {
			return p.fail(p.pos, "nothing to repeat before "+string(c))
		}
	}
	*atom = &node{kind: kRepeat, subs: []*node{*atom}, min: min, max: max}
	return nil
}

// braces reads {n}, {n,} or {n,m} at p.pos; when there is none it moves nothing.
// Counts beyond what can compile are clamped (the program-size limit refuses them).
func (p *parser) braces() (min, max int, ok bool) {
	save := p.pos
	if p.eof() || p.peek() != '{' {
		return 0, 0, false
	}
	p.pos++
	min, ok = p.number()
	if !ok {
		p.pos = save
		return 0, 0, false
	}
	max = min
	if !p.eof() && p.peek() == ',' {
		p.pos++
		max = -1
		if !p.eof() && p.peek() != '}' {
			if max, ok = p.number(); !ok {
				p.pos = save
				return 0, 0, false
			}
		}
	}
	if p.eof() || p.peek() != '}' {
		p.pos = save
		return 0, 0, false
	}
	p.pos++
	return min, max, true
}

func (p *parser) number() (int, bool) {
	start, n := p.pos, 0
	for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		if n < maxInsts+1 {
			n = n*10 + int(p.src[p.pos]-'0')
		}
		p.pos++
	}
	return n, p.pos > start
}

// atomEscape reads what follows a backslash outside a class.
func (p *parser) atomEscape(start int) (*node, bool, error) {
	if p.eof() {
		return nil, false, p.fail(start, "\\ at the end of the pattern")
	}
	switch c := p.peek(); c {
	case 'b':
		p.pos++
		return &node{kind: kWordB}, false, nil
	case 'B':
		p.pos++
		return &node{kind: kNotWordB}, false, nil
	case 'k':
		return nil, false, p.refuse(start, "the backreference \\k")
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return nil, false, p.refuse(start, "the backreference \\"+string(c))
	}
	set, err := p.escape(start, false)
	return &node{kind: kSet, set: set}, true, err
}

// escape reads a character or class escape after a backslash (p.pos is past it), as a set.
func (p *parser) escape(start int, inClass bool) ([]rune, error) {
	c := p.next()
	r, ok := c, false // the one character the escape stands for, when ok
	switch c {
	case 'd', 'D', 'w', 'W', 's', 'S':
		set := digit
		if c|0x20 == 'w' {
			set = word
		} else if c|0x20 == 's' {
			set = space
		}
		if c < 'a' {
			set = negate(set)
		}
		return set, nil
	case 'p', 'P':
		return nil, &Error{Unsupported: true, Offset: start, Msg: "Unicode property escapes (\\p{…}) are not supported"}
	case '0':
		if !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
			return nil, p.fail(start, "invalid escape \\0 followed by a digit")
		}
		r, ok = 0, true
	case 'c':
		if l := p.peek(); !p.eof() && (l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z') {
			p.pos++
			r, ok = l%32, true
		}
	case 'x':
		r, ok = p.hex(2)
	case 'u':
		if r, ok = p.unicodeEscape(); !ok {
			return nil, p.fail(start, "invalid Unicode escape")
		}
	case 'b', '-':
		r, ok = c, inClass // \b is a backspace in a class, \- a hyphen
		if c == 'b' {
			r = '\b'
		}
	default:
		// IndexByte for an ASCII c: IndexRune would link a search for any rune
		if k := strings.IndexByte("tnvfr", byte(c)); k >= 0 && c < 0x80 {
			r, ok = rune("\t\n\v\f\r"[k]), true
		} else {
			ok = c < 0x80 && strings.IndexByte(`^$\.*+?()[]{}|/`, byte(c)) >= 0
		}
	}
	if !ok {
		return nil, p.fail(start, "invalid escape "+p.src[start:p.pos])
	}
	return []rune{r, r}, nil
}

func (p *parser) hex(n int) (rune, bool) {
	if len(p.src)-p.pos < n {
		return 0, false
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
	if err != nil || p.src[p.pos] == '+' {
		return 0, false
	}
	p.pos += n
	return rune(v), true
}

// unicodeEscape reads HHHH or {H…} after \u, joining a \uHHHH\uHHHH surrogate pair.
func (p *parser) unicodeEscape() (rune, bool) {
	if p.has("{") {
		end := p.pos + 1
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end == len(p.src) || end == p.pos+1 {
			return 0, false
		}
		v, err := strconv.ParseUint(p.src[p.pos+1:end], 16, 32)
		if err != nil || v > utf8.MaxRune || p.src[p.pos+1] == '+' {
			return 0, false
		}
		p.pos = end + 1
		return rune(v), true
	}
	hi, ok := p.hex(4)
	if !ok {
		return 0, false
	}
	if hi >= 0xD800 && hi < 0xDC00 && p.has(`\u`) {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex(4); ok && lo >= 0xDC00 && lo < 0xE000 {
			return 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00), true
		}
		p.pos = save
	}
	return hi, true
}

// class reads a character class after its '['.
func (p *parser) class(start int) ([]rune, error) {
	neg := false
	if !p.eof() && p.peek() == '^' {
		p.pos++
		neg = true
	}
	var set []rune
	for {
		if p.eof() {
			return nil, p.fail(start, "unterminated character class")
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		lo, loSingle, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if p.has("-") && !p.has("-]") {
			dash := p.pos
			p.pos++
			hi, hiSingle, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if !loSingle || !hiSingle {
				return nil, p.fail(dash, "a class escape cannot bound a range")
			}
			if hi[0] < lo[0] {
				return nil, p.fail(dash, "range out of order in character class")
			}
			set = append(set, lo[0], hi[0])
			continue
		}
		set = append(set, lo...)
	}
	set = normalize(set)
	if neg {
		set = negate(set)
	}
	return set, nil
}

// classAtom reads one class member: a character (single) or a class escape.
func (p *parser) classAtom() (set []rune, single bool, err error) {
	start := p.pos
	c := p.next()
	if c != '\\' {
		return one(c), true, nil
	}
	if p.eof() {
		return nil, false, p.fail(start, "\\ at the end of the pattern")
	}
	set, err = p.escape(start, true)
	return set, err == nil && len(set) == 2 && set[0] == set[1] && !isClassEscape(p.src[start+1]), err
}

func isClassEscape(c byte) bool {
	switch c {
	case 'd', 'D', 'w', 'W', 's', 'S':
		return true
	}
	return false
}

// Sets are sorted, non-overlapping, non-adjacent [lo, hi] pairs.
var (
	digit = []rune{'0', '9'}
	word  = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	// ECMA-262 WhiteSpace and LineTerminator
	space = []rune{'\t', '\r', ' ', ' ', 0xA0, 0xA0, 0x1680, 0x1680, 0x2000, 0x200A,
		0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF}
	// everything but the line terminators
	dot = []rune{0, '\n' - 1, '\n' + 1, '\r' - 1, '\r' + 1, 0x2027, 0x202A, utf8.MaxRune}
)

func one(r rune) []rune { return []rune{r, r} }

// normalize sorts pairs and merges those that overlap or touch.
func normalize(set []rune) []rune {
	// insertion sort by lo: classes are short, and slices.SortFunc would add 4 KB brotli
	for i := 2; i < len(set); i += 2 {
		for j := i; j > 0 && set[j] < set[j-2]; j -= 2 {
			set[j], set[j+1], set[j-2], set[j-1] = set[j-2], set[j-1], set[j], set[j+1]
		}
	}
	out := set[:0:0]
	for i := 0; i < len(set); i += 2 {
		if n := len(out); n > 0 && set[i] <= out[n-1]+1 {
			out[n-1] = max(out[n-1], set[i+1])
			continue
		}
		out = append(out, set[i], set[i+1])
	}
	return out
}

// negate complements a normalized set over all code points.
func negate(set []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i < len(set); i += 2 {
		if set[i] > next {
			out = append(out, next, set[i]-1)
		}
		next = set[i+1] + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, next, utf8.MaxRune)
	}
	return out
}
