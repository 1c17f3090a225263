package session

import (
	"encoding/json"
	"slices"

	"langmodel/internal/jsonv"
)

// NormalizeJSON is Normalize for a prompt given as JSON text, which is how the binding
// receives it. The shapes pages send most, and in bulk (a history of thousands of
// messages passed back as initialPrompts), are read straight into messages: a string, or
// an array of messages {role, content, prefix?} whose content is a string. Their texts
// are substrings of one copy of raw, and their parts share one allocation: no decoded
// value is built. Any other shape (content parts, keys beyond those three, a key twice,
// a rule broken, malformed JSON) goes through DecodeJSON and Normalize, which give the
// same messages and every error (FuzzNormalizeJSON holds the two paths to that).
func NormalizeJSON(raw []byte, o NormalizeOptions) ([]Message, error) {
	if msgs, ok := normalizeFast(raw, o); ok {
		return msgs, nil
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return Normalize(v, o)
}

// IsEmptyArray reports whether raw is the JSON text of an empty array ("[]", spaces
// allowed): an append of nothing (DESIGN.md §3).
func IsEmptyArray(raw json.RawMessage) bool {
	i := jsonv.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = jsonv.SkipSpace(raw, i+1)
	return i < len(raw) && raw[i] == ']' && jsonv.SkipSpace(raw, i+1) == len(raw)
}

// normalizeFast reads the shapes NormalizeJSON reads itself; ok is false for anything
// else, which the slow path then reads (or refuses, with the error it names).
func normalizeFast(raw []byte, o NormalizeOptions) (msgs []Message, ok bool) {
	i := jsonv.SkipSpace(raw, 0)
	if i >= len(raw) {
		return nil, false
	}
	in := string(raw)
	switch raw[i] {
	case '"':
		s, end, ok := jsonv.String(raw, in, i)
		if !ok || jsonv.SkipSpace(raw, end) != len(raw) {
			return nil, false
		}
		return []Message{TextMessage(RoleUser, s)}, true
	case '[':
	default:
		return nil, false
	}
	// Room for 16 messages, then, from their average length, for all of them (counting
	// braces first would cost a pass over the text, slow where there is no memchr: in
	// the module). Parts come in slabs, one allocation for many messages.
	msgs = make([]Message, 0, 16)
	var slab []Part
	from := i
	i = jsonv.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		if jsonv.SkipSpace(raw, i+1) != len(raw) {
			return nil, false
		}
		return []Message{TextMessage(RoleUser, "")}, true
	}
	for n := 0; ; n++ {
		if i >= len(raw) || raw[i] != '{' {
			return nil, false
		}
		var m Message
		var text, roleName string
		var seen [3]bool // role, content, prefix
		i = jsonv.SkipSpace(raw, i+1)
		for {
			if i >= len(raw) || raw[i] != '"' { // {} too: it has no role
				return nil, false
			}
			key, end, ok := jsonv.String(raw, in, i)
			if !ok {
				return nil, false
			}
			i = jsonv.SkipSpace(raw, end)
			if i >= len(raw) || raw[i] != ':' {
				return nil, false
			}
			i = jsonv.SkipSpace(raw, i+1)
			if i >= len(raw) {
				return nil, false
			}
			k := -1
			switch key {
			case "role":
				k = 0
			case "content":
				k = 1
			case "prefix":
				k = 2
			}
			if k < 0 || seen[k] {
				return nil, false // a key the fast path does not read, or a key twice
			}
			seen[k] = true
			switch {
			case k < 2:
				if raw[i] != '"' {
					return nil, false
				}
				s, end, ok := jsonv.String(raw, in, i)
				if !ok {
					return nil, false
				}
				if k == 0 {
					roleName = s
				} else {
					text = s
				}
				i = end
			case hasLiteral(raw, i, "true"):
				m.Prefix, i = true, i+4
			case hasLiteral(raw, i, "false"):
				i += 5
			case hasLiteral(raw, i, "null"):
				i += 4
			default:
				return nil, false
			}
			i = jsonv.SkipSpace(raw, i)
			if i < len(raw) && raw[i] == ',' {
				i = jsonv.SkipSpace(raw, i+1)
				continue
			}
			if i < len(raw) && raw[i] == '}' {
				break
			}
			return nil, false
		}
		if !seen[0] || !seen[1] {
			return nil, false
		}
		switch Role(roleName) {
		case RoleSystem:
			if o.HasPrior || n > 0 {
				return nil, false
			}
			m.Role = RoleSystem
		case RoleUser, RoleAssistant:
			m.Role = Role(roleName)
		default:
			return nil, false // tool roles take parts, not a string; unknown roles fail
		}
		if m.Prefix && m.Role != RoleAssistant {
			return nil, false
		}
		if len(msgs) == 16 {
			msgs = slices.Grow(msgs, (len(raw)-from)*17/(i+1-from)) // the rest, and a sixteenth more
		}
		if len(slab) == cap(slab) {
			slab = make([]Part, 0, min(512, cap(msgs)-len(msgs)+1))
		}
		slab = append(slab, Part{Type: PartText, Text: text})
		m.Parts = slab[len(slab)-1 : len(slab) : len(slab)]
		msgs = append(msgs, m)
		i = jsonv.SkipSpace(raw, i+1)
		if i < len(raw) && raw[i] == ',' {
			i = jsonv.SkipSpace(raw, i+1)
			continue
		}
		if i >= len(raw) || raw[i] != ']' || jsonv.SkipSpace(raw, i+1) != len(raw) {
			return nil, false
		}
		break
	}
	for _, m := range msgs[:len(msgs)-1] {
		if m.Prefix {
			return nil, false // a prefix must be the last message
		}
	}
	if len(msgs) < cap(msgs)*3/4 {
		return slices.Clone(msgs), true // the estimate was well off: keep no room for more
	}
	return msgs, true // with the estimate's room: a history that takes them grows into it
}

func hasLiteral(raw []byte, i int, lit string) bool {
	return len(raw)-i >= len(lit) && string(raw[i:i+len(lit)]) == lit
}
