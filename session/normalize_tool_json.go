package session

import "langmodel/internal/jsonv"

// toolMessageFast reads, straight from its JSON text, a message of one tool call or one
// tool result as session.history writes them (encode.go), which a long history passed
// back holds by the thousand, keys in that order and no spaces:
//
//	{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":…,"callId":…,"name":…,"arguments":{…}}}]}
//	{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":…,"callId":…,"name":…,"result":[…]}}]}
//
// with callId optional, and for a result errorMessage instead of result, and
// "untrusted":true after them. raw is the message's text, in the same text as a string
// (strings that need no unescaping are substrings of it). Only the arguments and the
// result are decoded, and read as the generic path reads them (mustJSON,
// ParseResultParts). ok is false for anything else, and for what the generic path
// refuses (an undeclared call or response, arguments that are not an object, a result it
// cannot read): then NormalizeMessageJSON reads the message through DecodeJSON and
// normalizeMessage, which name any error. It is a template, not a parser, to stay small
// in the module (RATIONALE.md "How does create() read a long history?");
// FuzzNormalizeJSON holds it to the generic path.
func toolMessageFast(raw []byte, in string, o *NormalizeOptions) (m Message, ok bool) {
	sc := scanner{raw: raw, in: in}
	call := sc.lit(`{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":`)
	if !call && !sc.lit(`{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":`) {
		return m, false
	}
	if (call && !o.Expected.ToolCall) || (!call && !o.Expected.ToolResponse) {
		return m, false // the generic path names the type to declare
	}
	id, ok := sc.string()
	if ok && sc.lit(`,"callId":`) {
		var other string
		if other, ok = sc.string(); id == "" {
			id = other
		}
	}
	if !ok || id == "" || !sc.lit(`,"name":`) {
		return m, false
	}
	name, ok := sc.string()
	if !ok || name == "" {
		return m, false
	}
	if call {
		if !sc.lit(`,"arguments":`) {
			return m, false
		}
		args, ok := sc.value().(map[string]any)
		if !ok {
			return m, false
		}
		m = CallMessage(ToolCall{CallID: id, Name: name, Arguments: mustJSON(args)})
	} else {
		r := ToolResult{CallID: id, Name: name}
		switch {
		case sc.lit(`,"errorMessage":`):
			r.Failed = true
			r.Error, ok = sc.string()
		case sc.lit(`,"result":`):
			// Its parts as the generic path reads them: a map each, where the message
			// as a whole took eight.
			var err error
			r.Parts, err = ParseResultParts(sc.value())
			ok = err == nil
		default:
			ok = false
		}
		if !ok {
			return m, false
		}
		r.Untrusted = sc.lit(`,"untrusted":true`)
		m = ResultMessage(r)
	}
	return m, sc.lit(`}}]}`) && sc.i == len(raw)
}

// scanner reads JSON text at i; raw and in are the same text.
type scanner struct {
	raw []byte
	in  string
	i   int
}

// lit reads the text s.
func (sc *scanner) lit(s string) bool {
	if hasLiteral(sc.raw, sc.i, s) {
		sc.i += len(s)
		return true
	}
	return false
}

// hasLiteral reports whether raw holds lit at i.
func hasLiteral(raw []byte, i int, lit string) bool {
	return len(raw)-i >= len(lit) && string(raw[i:i+len(lit)]) == lit
}

// string reads a string.
func (sc *scanner) string() (string, bool) {
	if sc.i >= len(sc.raw) || sc.raw[sc.i] != '"' {
		return "", false
	}
	s, end, ok := jsonv.String(sc.raw, sc.in, sc.i)
	sc.i = end
	return s, ok
}

// value decodes the value at sc.i as DecodeJSON decodes it inside the message: nil for
// a value it cannot decode, for null, and for one long enough to nest past the
// decoder's limit once inside the message (which the generic path would refuse).
func (sc *scanner) value() any {
	v, n, err := jsonv.DecodePrefix(sc.raw[sc.i:])
	if err != nil || n > 16<<10 {
		return nil
	}
	sc.i += n
	return v
}
