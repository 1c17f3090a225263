package session

import (
	"bytes"
	"unicode/utf8"

	"langmodel/internal/jsonv"
)

// toolMessageFast reads, straight from its JSON text, a message of one tool call or one
// tool result in the shapes session.history and snapshots write, which a long history
// passed back holds by the thousand: {role, content: [{type, value}]} with the role and
// the part's type "tool-call" (or an assistant's call, Chrome's form), or "tool-result"
// or "tool-response" (or a user's response), and a value of callID, callId, name and
// arguments, or result (a string, or text and object parts) or errorMessage, and
// untrusted. raw is the message's text, in the same text as a string (strings that need
// no unescaping are substrings of it). ok is false for anything else, and for what the
// generic path refuses or treats otherwise (an undeclared call or response, a key twice,
// arguments or an object value not written as the generic path would write them back:
// compact, keys sorted, no escapes): NormalizeMessageJSON then reads it through
// DecodeJSON and normalizeMessage, which name any error (FuzzNormalizeJSON holds the two
// to the same messages).
func toolMessageFast(raw []byte, in string, o *NormalizeOptions) (m Message, ok bool) {
	sc := scanner{raw: raw, in: in, i: jsonv.SkipSpace(raw, 0)}
	var role, typ string
	var v toolValue
	var parts int
	var seenRole, seenContent bool
	ok = sc.object(func(key string) bool {
		switch {
		case key == "role" && !seenRole:
			seenRole = true
			role, ok = sc.string()
			return ok
		case key == "content" && !seenContent:
			seenContent = true
			return sc.array(func() bool {
				parts++
				var seenType, seenValue bool
				return parts == 1 && sc.object(func(key string) bool {
					switch {
					case key == "type" && !seenType:
						seenType = true
						typ, ok = sc.string()
						return ok
					case key == "value" && !seenValue:
						seenValue = true
						return v.read(&sc)
					}
					return false
				})
			})
		}
		return false // prefix, or a key the generic path ignores, or a key twice
	})
	if !ok || parts != 1 || jsonv.SkipSpace(raw, sc.i) != len(raw) {
		return Message{}, false
	}
	id := v.callID
	if id == "" {
		id = v.callId
	}
	if id == "" || v.name == "" {
		return Message{}, false
	}
	switch PartType(typ) {
	case PartToolCall:
		if (role != string(RoleToolCall) && role != string(RoleAssistant)) || !o.Expected.ToolCall || v.result || v.errorSet || v.untrusted != 0 {
			return Message{}, false
		}
		args := v.arguments
		if args == nil {
			args = []byte("{}")
		}
		return CallMessage(ToolCall{CallID: id, Name: v.name, Arguments: args}), true
	case PartToolResult, "tool-response":
		if (role != string(RoleToolResult) && role != "tool-response" && role != string(RoleUser)) || !o.Expected.ToolResponse || v.result == v.errorSet || v.argumentsSet {
			return Message{}, false
		}
		r := ToolResult{CallID: id, Name: v.name, Untrusted: v.untrusted == 1, Parts: v.parts}
		if v.errorSet {
			r.Failed, r.Error = true, v.errorMessage
		}
		return ResultMessage(r), true
	}
	return Message{}, false
}

// toolValue is what toolMessageFast reads of a part's value.
type toolValue struct {
	callID, callId, name, errorMessage string
	arguments                          []byte // nil: none, or null
	parts                              []ResultPart
	argumentsSet, result, errorSet     bool
	untrusted                          int // 0 absent, 1 true, 2 false
}

// read reads the value object at sc.i; false for anything toolMessageFast leaves to the
// generic path.
func (v *toolValue) read(sc *scanner) bool {
	var seen [7]bool
	return sc.object(func(key string) bool {
		k := -1
		switch key {
		case "callID":
			k = 0
		case "callId":
			k = 1
		case "name":
			k = 2
		case "arguments":
			k = 3
		case "result":
			k = 4
		case "errorMessage":
			k = 5
		case "untrusted":
			k = 6
		}
		if k < 0 || seen[k] {
			return false
		}
		seen[k] = true
		var ok bool
		switch k {
		case 0:
			v.callID, ok = sc.string()
		case 1:
			v.callId, ok = sc.string()
		case 2:
			v.name, ok = sc.string()
		case 3:
			v.argumentsSet = true
			switch {
			case sc.literal("null"):
				return true
			case sc.at('{'):
				v.arguments, ok = sc.canonical()
			}
		case 4:
			v.result = true
			if sc.at('"') {
				var s string
				s, ok = sc.string()
				v.parts = []ResultPart{{Type: "text", Text: s}}
				return ok
			}
			v.parts = []ResultPart{}
			return sc.array(func() bool {
				var p ResultPart
				var seenType, seenValue bool
				var value []byte
				var text string
				var isText bool
				ok := sc.object(func(key string) bool {
					var ok bool
					switch {
					case key == "type" && !seenType:
						seenType = true
						p.Type, ok = sc.string()
					case key == "value" && !seenValue:
						seenValue = true
						if isText = sc.at('"'); isText {
							text, ok = sc.string()
						} else {
							value, ok = sc.canonical()
						}
					}
					return ok
				})
				switch {
				case !ok || !seenValue:
					return false
				case p.Type == "text" && isText:
					p.Text = text
				case p.Type == "object" && !isText && !bytes.Contains(value, []byte(`"type":"bytes"`)):
					p.Value = value // binary data ({type: "bytes", …}) the generic path refuses
				default:
					return false // image, audio and what the generic path refuses
				}
				v.parts = append(v.parts, p)
				return true
			})
		case 5:
			v.errorSet = true
			v.errorMessage, ok = sc.string()
		case 6:
			switch {
			case sc.literal("true"):
				v.untrusted = 1
				return true
			case sc.literal("false"):
				v.untrusted = 2
				return true
			}
		}
		return ok
	})
}

// scanner reads JSON text at i; raw and in are the same text.
type scanner struct {
	raw []byte
	in  string
	i   int
}

func (sc *scanner) at(c byte) bool { return sc.i < len(sc.raw) && sc.raw[sc.i] == c }

func (sc *scanner) literal(word string) bool {
	if hasLiteral(sc.raw, sc.i, word) {
		sc.i += len(word)
		return true
	}
	return false
}

// string reads a string.
func (sc *scanner) string() (string, bool) {
	if !sc.at('"') {
		return "", false
	}
	s, end, ok := jsonv.String(sc.raw, sc.in, sc.i)
	sc.i = end
	return s, ok
}

// object reads an object, calling field for each key with sc.i at its value; field
// reads the value, or returns false to give up.
func (sc *scanner) object(field func(key string) bool) bool {
	if !sc.at('{') {
		return false
	}
	sc.i = jsonv.SkipSpace(sc.raw, sc.i+1)
	if sc.at('}') {
		sc.i++
		return true
	}
	for {
		key, ok := sc.string()
		if !ok {
			return false
		}
		sc.i = jsonv.SkipSpace(sc.raw, sc.i)
		if !sc.at(':') {
			return false
		}
		sc.i = jsonv.SkipSpace(sc.raw, sc.i+1)
		if !field(key) {
			return false
		}
		sc.i = jsonv.SkipSpace(sc.raw, sc.i)
		switch {
		case sc.at(','):
			sc.i = jsonv.SkipSpace(sc.raw, sc.i+1)
		case sc.at('}'):
			sc.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem with sc.i at each element.
func (sc *scanner) array(elem func() bool) bool {
	if !sc.at('[') {
		return false
	}
	sc.i = jsonv.SkipSpace(sc.raw, sc.i+1)
	if sc.at(']') {
		sc.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		sc.i = jsonv.SkipSpace(sc.raw, sc.i)
		switch {
		case sc.at(','):
			sc.i = jsonv.SkipSpace(sc.raw, sc.i+1)
		case sc.at(']'):
			sc.i++
			return true
		default:
			return false
		}
	}
}

// canonical reads a value written as mustJSON writes the value it decodes to, and
// returns a copy of its text: compact, object keys in increasing order, strings without
// escapes, characters mustJSON escapes (<, >, &, U+2028, U+2029) or invalid UTF-8, no
// deeper than a limit far below the decoder's.
func (sc *scanner) canonical() ([]byte, bool) {
	from := sc.i
	if !sc.canonicalValue(0) {
		return nil, false
	}
	return []byte(sc.in[from:sc.i]), true
}

func (sc *scanner) canonicalValue(depth int) bool {
	if sc.i >= len(sc.raw) || depth > 64 {
		return false
	}
	switch c := sc.raw[sc.i]; {
	case c == '{':
		sc.i++
		if sc.at('}') {
			sc.i++
			return true
		}
		var prev []byte
		for first := true; ; first = false {
			from := sc.i
			if !sc.canonicalString() {
				return false
			}
			key := sc.raw[from+1 : sc.i-1]
			if !first && bytes.Compare(prev, key) >= 0 {
				return false
			}
			prev = key
			if !sc.at(':') {
				return false
			}
			sc.i++
			if !sc.canonicalValue(depth + 1) {
				return false
			}
			switch {
			case sc.at(','):
				sc.i++
			case sc.at('}'):
				sc.i++
				return true
			default:
				return false
			}
		}
	case c == '[':
		sc.i++
		if sc.at(']') {
			sc.i++
			return true
		}
		for {
			if !sc.canonicalValue(depth + 1) {
				return false
			}
			switch {
			case sc.at(','):
				sc.i++
			case sc.at(']'):
				sc.i++
				return true
			default:
				return false
			}
		}
	case c == '"':
		return sc.canonicalString()
	case c == '-' || c >= '0' && c <= '9':
		end, ok := jsonv.NumberEnd(sc.raw, sc.i)
		sc.i = end
		return ok
	}
	return sc.literal("true") || sc.literal("false") || sc.literal("null")
}

// canonicalString reads a string that mustJSON writes back as it stands.
func (sc *scanner) canonicalString() bool {
	if !sc.at('"') {
		return false
	}
	end, plain, ascii, ok := jsonv.StringEnd(sc.raw, sc.i)
	if !ok || !plain {
		return false
	}
	text := sc.raw[sc.i+1 : end-1]
	sc.i = end
	if bytes.ContainsAny(text, "<>&") {
		return false
	}
	return ascii || (utf8.Valid(text) && !bytes.Contains(text, []byte("\u2028")) && !bytes.Contains(text, []byte("\u2029")))
}
