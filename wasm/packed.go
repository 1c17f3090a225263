package wasm

import (
	"errors"
	"unicode/utf8"
	"unsafe"

	"langmodel/session"
)

// unpackText reads a create request's initial prompts as the face packs a history
// (js/pack.js packText): for each message a letter (s system, u user, a assistant, p an
// assistant's prefix, j a message as JSON), the length of what follows in UTF-16 code
// units in decimal, a colon and the message's text, or for j its JSON, all in UTF-8.
// count is how many messages, units the whole packed text's length in UTF-16 code units.
//
// A history passed back is made of such messages, often thousands. As JSON it costs the
// page a JSON.stringify and the engine a scan of every string; packed, the page joins
// the texts and the engine cuts them out, as substrings of one copy of b (RATIONALE.md
// "How does create() read a long history?"). When b has as many bytes as units,
// it is ASCII and the lengths are byte counts as they stand; otherwise each text is
// walked rune by rune, counting code units.
//
// The face packs as text only messages that keep the rules a text history can break (a
// system message only first, a prefix only on the last message); a packed history that
// breaks them, or is cut short, is an error, as a malformed message is. Every other
// message (tool calls and results, other parts, a rule broken) crosses as JSON, which
// the session reads in its place with its own options and errors (packedHistory). The
// result is the messages when there is no JSON, else a *packedHistory.
func unpackText(b []byte, count, units int) (any, error) {
	if count <= 0 || count > len(b)/3 { // each message takes three bytes at least ("u0:")
		return nil, errors.New("textPrompts does not match what was packed")
	}
	s := string(b)
	ascii := len(s) == units
	// Room for a sixteenth more, as session.NormalizeJSON leaves: the history takes the
	// slice as it is, and the conversation that follows grows into it.
	msgs := make([]session.Message, count, count+count/16+4)
	parts := make([]session.Part, count)
	var segs []jsonSegment
	i := 0
	for k := range msgs {
		if i >= len(s) {
			return nil, errors.New("the packed history is cut short")
		}
		m := &msgs[k]
		letter := s[i]
		switch letter {
		case 's':
			if k > 0 {
				return nil, errors.New("a packed system message is not the first")
			}
			m.Role = session.RoleSystem
		case 'u':
			m.Role = session.RoleUser
		case 'a':
			m.Role = session.RoleAssistant
		case 'p':
			if k < count-1 {
				return nil, errors.New("a packed prefix is not the last message")
			}
			m.Role, m.Prefix = session.RoleAssistant, true
		case 'j':
		default:
			return nil, errors.New("a packed message has no role")
		}
		n, j := 0, i+1
		for ; j < len(s) && j-i <= 10 && '0' <= s[j] && s[j] <= '9'; j++ {
			n = n*10 + int(s[j]-'0')
		}
		if j == i+1 || j >= len(s) || s[j] != ':' {
			return nil, errors.New("a packed message has no length")
		}
		i = j + 1
		end := i + n
		if !ascii {
			end = unitsEnd(s, i, n)
		}
		if end < i || end > len(s) {
			return nil, errors.New("the packed history is cut short")
		}
		if letter == 'j' {
			segs = append(segs, jsonSegment{k, i, end})
		} else {
			parts[k] = session.Part{Type: session.PartText, Text: s[i:end]}
			m.Parts = parts[k : k+1 : k+1]
		}
		i = end
	}
	if i != len(s) {
		return nil, errors.New("the packed history holds more than textPrompts says")
	}
	if segs == nil {
		return msgs, nil
	}
	return &packedHistory{s: s, msgs: msgs, segs: segs}, nil
}

// packedHistory is a packed history with messages as JSON among its texts: the session
// reads it (session.Reader) with its options, each JSON message by
// session.NormalizeMessageJSON at its index, so that what it gives and the errors it
// names are those of the same history sent as one JSON array.
type packedHistory struct {
	s    string            // the packed text: the messages' texts and JSON are substrings of it
	msgs []session.Message // the packed messages in order, a zero message where JSON is
	segs []jsonSegment
}

// jsonSegment is message k of a packed history, as JSON: s[from:to].
type jsonSegment struct{ k, from, to int }

// NormalizePrompt reads the JSON messages into the history's places. A JSON message
// that reads as several (an assistant's text and calls, in Chrome's form) makes the
// history a new slice from there on; otherwise the messages take the packed slice as it
// is. A packed history is only ever initial prompts: o.HasPrior is false.
func (p *packedHistory) NormalizePrompt(o session.NormalizeOptions) ([]session.Message, error) {
	msgs, last := p.msgs, len(p.msgs)-1
	var out []session.Message // nil while every JSON message read is one, in its place
	at := 0
	for _, g := range p.segs {
		seg := p.s[g.from:g.to]
		// The JSON reader only reads the bytes; seg is immutable, as they stay.
		got, err := session.NormalizeMessageJSON(unsafe.Slice(unsafe.StringData(seg), len(seg)), seg, g.k, g.k == last, &o)
		if err != nil {
			return nil, err
		}
		if out == nil && len(got) == 1 {
			msgs[g.k] = got[0]
			continue
		}
		if out == nil {
			out = make([]session.Message, 0, len(msgs)+len(msgs)/16+len(got)+4)
		}
		out = append(append(out, msgs[at:g.k]...), got...)
		at = g.k + 1
	}
	if out == nil {
		return msgs, nil
	}
	return append(out, msgs[at:]...), nil
}

// unitsEnd returns the offset in s just past the n UTF-16 code units that start at i, or
// -1 if s ends first or the last of them is half a pair. A rune beyond the Basic
// Multilingual Plane is two code units in JavaScript; a lone surrogate, which the
// page's encoder wrote as U+FFFD, is one.
func unitsEnd(s string, i, n int) int {
	for n > 0 {
		if i >= len(s) {
			return -1
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if r > 0xFFFF {
			n -= 2
		} else {
			n--
		}
	}
	if n < 0 {
		return -1
	}
	return i
}
