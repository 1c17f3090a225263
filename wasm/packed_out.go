package wasm

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"langmodel/session"
)

// packHistory answers a history query the face marks packed (js/pack.js unpackHistory),
// the reverse of unpackText: one line of JSON, the reply
//
//	{"type":"reply","id":0,"ok":true,"value":{"count":N,"json":[…]}}
//
// then a newline and the N messages packed in order. A text message (one text part:
// system, user, assistant or an assistant's prefix) is packed as unpackText reads it: its
// role letter (s, u, a, p), its text's length in UTF-16 code units in decimal, a colon
// and the text as it is. Any other message is the letter j alone, and its JSON
// (session.MarshalMessages' form) is the next of the array json, which the page parses
// in one JSON.parse with the reply. Compact JSON holds no newline, so the first one ends
// the reply.
//
// A long history is mostly text: the texts are copied, not escaped byte by byte, and the
// page cuts them out of one string instead of parsing them (RATIONALE.md "How does
// create() read a long history?"). A text that is not valid UTF-8 (a backend's bytes)
// goes as JSON, which writes U+FFFD for what cannot be read, as the JSON form does.
func packHistory(id int64, msgs []session.Message) []byte {
	units := make([]int32, len(msgs)) // each text's length in UTF-16 code units; -1: JSON
	size, jsonSize := 96, 0
	for k := range msgs {
		m := &msgs[k]
		units[k] = -1
		if letter := textLetter(m); letter != 0 {
			if n, ok := utf16Len(m.Parts[0].Text); ok {
				units[k] = int32(n)
				size += len(m.Parts[0].Text) + 12
				continue
			}
		}
		jsonSize += 160
		for _, p := range m.Parts {
			jsonSize += len(p.Text) + len(p.Media)
		}
	}
	var b bytes.Buffer
	b.Grow(size + jsonSize)
	b.WriteString(`{"type":"reply","id":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), id, 10))
	b.WriteString(`,"ok":true,"value":{"count":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(len(msgs)), 10))
	b.WriteString(`,"json":[`)
	first := true
	for k := range msgs {
		if units[k] < 0 {
			if !first {
				b.WriteByte(',')
			}
			first = false
			session.WriteMessage(&b, msgs[k])
		}
	}
	b.WriteString("]}}\n")
	for k := range msgs {
		if units[k] < 0 {
			b.WriteByte('j')
			continue
		}
		b.WriteByte(textLetter(&msgs[k]))
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(units[k]), 10))
		b.WriteByte(':')
		b.WriteString(msgs[k].Parts[0].Text)
	}
	return b.Bytes()
}

// textLetter returns the letter a text message is packed under, or 0 if m is not one.
func textLetter(m *session.Message) byte {
	if len(m.Parts) != 1 || m.Parts[0].Type != session.PartText {
		return 0
	}
	switch {
	case m.Prefix && m.Role == session.RoleAssistant:
		return 'p'
	case m.Prefix:
		return 0
	case m.Role == session.RoleAssistant:
		return 'a'
	case m.Role == session.RoleUser:
		return 'u'
	case m.Role == session.RoleSystem:
		return 's'
	}
	return 0
}

// utf16Len returns s's length in JavaScript's UTF-16 code units, and false if s is not
// valid UTF-8. ASCII, the usual text, is a byte a unit and needs no rune walk.
func utf16Len(s string) (int, bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	n := i
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return 0, false
		}
		n, i = n+1, i+size
		if r > 0xFFFF {
			n++
		}
	}
	return n, true
}
