package textproto

// The call syntaxes of model families whose calls are not a JSON call object: each
// reader turns a block's body into calls, their arguments JSON. The Parser finds the
// blocks (parser.go); these read what is inside them, whole (readBody) or as far as it
// has come (FormingCall).
//
//	Qwen3-Coder  <function=NAME><parameter=KEY>value</parameter>…</function>
//	DeepSeek     <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>
//	             (R1), or <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜> (V3.1)
//	LFM2         [name(key="value", n=1), other()]: Python's call syntax and literals
//	Gemma 4      call:NAME{key:<|"|>value<|"|>,n:1}: bare keys, strings between <|"|>
//	Mistral      NAME[ARGS]{…} (after [TOOL_CALLS]; the older form is a JSON array)

import (
	"strings"
	"unicode/utf8"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// DeepSeek's delimiters: fullwidth vertical bars (U+FF5C) and lower one-eighth blocks
// (U+2581) stand where other families write '|' and '_'.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
	gemmaQuote   = `<|"|>`
	xmlParam     = "<parameter="
	xmlParamEnd  = "</parameter>"
	mistralArgs  = "[ARGS]"
)

// param is one <parameter=KEY> of a Qwen3-Coder call, its value as written: JSON when it
// reads as what the tool's schema wants there, else a string (attempt.fit).
type param struct {
	key, text string
	str       bool // the schema wants a string here
}

// readXML reads Qwen3-Coder's calls: <function=NAME> elements, each holding parameters.
// name is the function a <function=NAME> opener gave (the block's own), or "" when the
// body holds the <function=…> elements.
func readXML(name, body string) ([]Call, error) {
	if name != "" {
		body = funcOpen + name + ">" + body + funcClose
	}
	var calls []Call
	for s := strings.TrimSpace(body); s != ""; s = strings.TrimSpace(s) {
		if !strings.HasPrefix(s, funcOpen) {
			return nil, ErrNotCall
		}
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			return nil, ErrNotCall
		}
		c := Call{Name: s[len(funcOpen):gt]}
		s = s[gt+1:]
		end := strings.Index(s, funcClose)
		if end < 0 {
			end = len(s)
		}
		params, _, ok := xmlParams(s[:end])
		if !ok || c.Name == "" {
			return nil, ErrNotCall
		}
		c.params = params
		c.Arguments = paramsJSON(params, true)
		calls = append(calls, c)
		s = strings.TrimPrefix(s[end:], funcClose)
	}
	if len(calls) == 0 {
		return nil, ErrEmptyBlock
	}
	return calls, nil
}

// xmlParams reads the parameters of a function's body, as far as they are whole; ok is
// false when something else than a parameter stands there.
func xmlParams(s string) (params []param, whole, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return params, true, true
		}
		if !strings.HasPrefix(s, xmlParam) {
			return params, false, strings.HasPrefix(xmlParam, s)
		}
		gt := strings.IndexByte(s, '>')
		end := strings.Index(s, xmlParamEnd)
		if gt < 0 || end < gt {
			return params, false, true // still being written
		}
		v := strings.TrimPrefix(s[gt+1:end], "\n")
		params = append(params, param{key: s[len(xmlParam):gt], text: strings.TrimSuffix(v, "\n")})
		s = s[end+len(xmlParamEnd):]
	}
}

// paramsJSON is the arguments object of parameters: each value JSON when it is valid
// JSON, else a string. closed ends the object; without it the text is the arguments so
// far, as a call forming shows them.
func paramsJSON(params []param, closed bool) []byte {
	b := []byte{'{'}
	for i, p := range params {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonv.AppendString(b, p.key), ':')
		if t := strings.TrimSpace(p.text); !p.str && t != "" && jsonv.Valid([]byte(t)) {
			a, _ := compact([]byte(t))
			b = append(b, a...)
		} else {
			b = jsonv.AppendString(b, p.text)
		}
	}
	if closed {
		b = append(b, '}')
	}
	return b
}

// readDeepSeek reads the calls between DeepSeek's <｜tool▁calls▁begin｜> and its end.
func readDeepSeek(body string) ([]Call, error) {
	var calls []Call
	for _, part := range strings.Split(body, dsCallBegin)[1:] {
		name, args, ok := deepSeekCall(part)
		if !ok || name == "" {
			return nil, ErrNotCall
		}
		a, err := compact([]byte(args))
		if err != nil {
			return nil, err
		}
		calls = append(calls, Call{Name: name, Arguments: a})
	}
	if len(calls) == 0 {
		return nil, ErrEmptyBlock
	}
	return calls, nil
}

// deepSeekCall splits one call (what follows <｜tool▁call▁begin｜>) into its name and its
// argument text, as far as it is written: R1 puts the type before the separator and the
// name after it, the arguments in a json fence; V3.1 the name before it, the arguments
// bare after. ok is false until the separator.
func deepSeekCall(part string) (name, args string, ok bool) {
	part, _, _ = strings.Cut(part, dsCallEnd)
	before, after, ok := strings.Cut(part, dsSep)
	if !ok {
		return "", "", false
	}
	after = strings.TrimLeft(after, " \t\r\n")
	if strings.HasPrefix(after, "{") || strings.HasPrefix(after, "```") {
		name = strings.TrimSpace(before)
	} else {
		n := strings.IndexAny(after, "\n`{ ")
		if n < 0 {
			return "", "", true // the name is still being written
		}
		name, after = after[:n], after[n:]
	}
	after = strings.TrimSpace(after)
	if strings.HasPrefix(after, "```") {
		nl := strings.IndexByte(after, '\n')
		if nl < 0 {
			return name, "", true
		}
		after = strings.TrimSuffix(strings.TrimSpace(after[nl+1:]), "```")
	}
	return name, strings.TrimSpace(after), true
}

// lit reads the literal notations LFM2 (Python's) and Gemma 4 write arguments in, as
// JSON: strings, numbers, true/false/null (True/False/None), lists and dicts (objects).
type lit struct {
	s     string
	i     int
	gemma bool // keys bare, strings between <|"|>
}

var errLiteral = sfmt.Errorf("%w: a value is not a literal", ErrBadJSON)

func (l *lit) space() {
	for l.i < len(l.s) && jsonv.IsSpace(l.s[l.i]) {
		l.i++
	}
}

// word reads a name: letters, digits, '_', '-' and '.' (a key of Gemma's, a function of
// Python's, a tool's name).
func (l *lit) word() string {
	j := l.i
	for l.i < len(l.s) && (isIdent(l.s[l.i]) || l.s[l.i] == '.') {
		l.i++
	}
	return l.s[j:l.i]
}

// value appends the value at l.i as JSON.
func (l *lit) value(b []byte) ([]byte, error) {
	l.space()
	if l.i >= len(l.s) {
		return b, errLiteral
	}
	rest := l.s[l.i:]
	switch c := rest[0]; {
	case l.gemma && strings.HasPrefix(rest, gemmaQuote):
		end := strings.Index(rest[len(gemmaQuote):], gemmaQuote)
		if end < 0 {
			return b, errLiteral
		}
		l.i += 2*len(gemmaQuote) + end
		return jsonv.AppendString(b, rest[len(gemmaQuote):len(gemmaQuote)+end]), nil
	case c == '"' || c == '\'':
		return l.str(b, c)
	case c == '{':
		l.i++
		return l.seq(b, '}', ':')
	case c == '[':
		l.i++
		return l.seq(b, ']', 0)
	case c == '(':
		l.i++
		return l.seq(b, ')', 0)
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		j := l.i
		for l.i < len(l.s) && strings.IndexByte("+-.eE0123456789", l.s[l.i]) >= 0 {
			l.i++
		}
		n := strings.TrimPrefix(l.s[j:l.i], "+")
		if !jsonv.Valid([]byte(n)) {
			return b, errLiteral
		}
		return append(b, n...), nil
	}
	switch l.word() {
	case "true", "True":
		return append(b, "true"...), nil
	case "false", "False":
		return append(b, "false"...), nil
	case "null", "None", "none":
		return append(b, "null"...), nil
	}
	return b, errLiteral
}

// str appends the string quoted by q at l.i as JSON: Python's escapes are JSON's, but
// for \' (a quote) and the quote of the other kind, which JSON writes bare or escaped.
func (l *lit) str(b []byte, q byte) ([]byte, error) {
	at := len(b)
	b = append(b, '"')
	for l.i++; l.i < len(l.s); l.i++ {
		switch c := l.s[l.i]; {
		case c == q:
			l.i++
			b = append(b, '"')
			if !jsonv.Valid(b[at:]) {
				return b[:at], errLiteral
			}
			return b, nil
		case c == '\\' && l.i+1 < len(l.s) && l.s[l.i+1] == '\'':
			l.i++
			b = append(b, '\'')
		case c == '\\' && l.i+1 < len(l.s):
			l.i++
			b = append(b, c, l.s[l.i])
		case c == '"':
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b[:at], errLiteral
}

// seq appends what stands up to close: with sep, the members of an object (keys quoted
// or bare words, then sep: ':' in a dict, '=' in Python's keyword arguments), as a JSON
// object; without, the elements of a list. A trailing comma is allowed. When the text
// ends first, b holds the members that were whole, unclosed, and the error is
// errLiteral: the arguments so far of a call forming.
func (l *lit) seq(b []byte, close, sep byte) ([]byte, error) {
	if sep != 0 {
		b = append(b, '{')
	} else {
		b = append(b, '[')
	}
	for n := 0; ; n++ {
		l.space()
		if l.i < len(l.s) && l.s[l.i] == close {
			l.i++
			if sep != 0 {
				return append(b, '}'), nil
			}
			return append(b, ']'), nil
		}
		if n > 0 {
			if l.i >= len(l.s) || l.s[l.i] != ',' {
				return b, errLiteral
			}
			l.i++
			if l.space(); l.i < len(l.s) && l.s[l.i] == close {
				continue
			}
		}
		at := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		var err error
		if sep != 0 {
			if l.space(); l.i < len(l.s) && (l.s[l.i] == '"' || l.s[l.i] == '\'') {
				b, err = l.str(b, l.s[l.i])
			} else if w := l.word(); w != "" {
				b = jsonv.AppendString(b, w)
			} else {
				err = errLiteral
			}
			if l.space(); err == nil && (l.i >= len(l.s) || l.s[l.i] != sep) {
				err = errLiteral
			}
			l.i++
			b = append(b, ':')
		}
		if err == nil {
			b, err = l.value(b)
		}
		if err != nil {
			return b[:at], err
		}
	}
}

// call reads one call at l.i: Python's name(key=value, …), or Gemma's
// call:name{key:value, …}. name is "" when none is there; args is what of the
// arguments is whole when err is not nil.
func (l *lit) call() (name string, args []byte, err error) {
	open, close, sep := byte('('), byte(')'), byte('=')
	l.space()
	if l.gemma {
		if !strings.HasPrefix(l.s[l.i:], "call:") {
			return "", nil, ErrNotCall
		}
		l.i += len("call:")
		open, close, sep = '{', '}', ':'
	}
	if name = l.word(); name == "" {
		return "", nil, ErrNotCall
	}
	if l.space(); l.i >= len(l.s) || l.s[l.i] != open {
		return name, nil, ErrNotCall
	}
	l.i++
	args, err = l.seq(nil, close, sep)
	return name, args, err
}

// readLit reads LFM2's list of Python calls, [f(a=1), g()], or Gemma 4's calls,
// call:f{…} one after another.
func readLit(s string, gemma bool) ([]Call, error) {
	l := lit{s: strings.TrimSpace(s), gemma: gemma}
	if !gemma {
		if !strings.HasPrefix(l.s, "[") {
			return nil, ErrNotCall
		}
		l.i = 1
	}
	var calls []Call
	for {
		name, args, err := l.call()
		if err != nil {
			return nil, err
		}
		calls = append(calls, Call{Name: name, Arguments: args})
		l.space()
		switch {
		case gemma && l.i == len(l.s):
			return calls, nil
		case gemma:
		case l.i < len(l.s) && l.s[l.i] == ',':
			l.i++
		case l.i < len(l.s) && l.s[l.i] == ']':
			l.i++
			if l.space(); l.i == len(l.s) {
				return calls, nil
			}
			return nil, ErrNotCall
		default:
			return nil, ErrNotCall
		}
	}
}

// formingLit is FormingCall for the literal syntaxes: the name once written, and the
// members whole so far.
func formingLit(f Format, body []byte) (name string, args []byte) {
	l := lit{s: string(body), gemma: f == FormatGemma}
	if l.space(); !l.gemma && l.i < len(l.s) && l.s[l.i] == '[' {
		l.i++
	}
	name, args, _ = l.call()
	if l.i >= len(l.s) && args == nil {
		return "", nil // the name may still grow
	}
	return name, args
}

// formingXML is FormingCall for Qwen3-Coder's syntax.
func formingXML(tagName string, body []byte) (name string, args []byte) {
	s := strings.TrimSpace(string(body))
	if tagName == "" {
		rest, ok := strings.CutPrefix(s, funcOpen)
		gt := strings.IndexByte(rest, '>')
		if !ok || gt < 0 {
			return "", nil
		}
		tagName, s = rest[:gt], rest[gt+1:]
	}
	s, _, closed := strings.Cut(s, funcClose)
	params, whole, _ := xmlParams(s)
	return tagName, paramsJSON(params, closed && whole)
}

// formingDeepSeek is FormingCall for DeepSeek's syntax: its first call.
func formingDeepSeek(body []byte) (name string, args []byte) {
	_, part, ok := strings.Cut(string(body), dsCallBegin)
	if !ok {
		return "", nil
	}
	name, a, _ := deepSeekCall(part)
	if name == "" {
		return "", nil
	}
	return name, valueSoFar([]byte(a), 0)
}

// pyListStart reports whether s, after a '[', begins a Python call (a letter or '_'),
// and whether that is known yet.
func pyListStart(s []byte) (yes, known bool) {
	i := jsonv.SkipSpace(s, 0)
	if i == len(s) {
		return false, false
	}
	r, _ := utf8.DecodeRune(s[i:])
	return r == '_' || r < utf8.RuneSelf && (r|0x20 >= 'a' && r|0x20 <= 'z'), true
}
