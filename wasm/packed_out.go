package wasm

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"langmodel/internal/redact"
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
// with the reply, in one JSON.parse. Compact JSON holds no newline, so the first one
// ends the reply.
//
// A long history is mostly text: the texts are copied, not escaped byte by byte, and the
// page cuts them out of one string instead of parsing them (RATIONALE.md "How does
// create() read a long history?"). A text that is not valid UTF-8 (a backend's bytes)
// goes as JSON, which writes U+FFFD for what cannot be read, as the JSON form does.
//
// red, when not nil, is the sessions' secrets: the reply's line is cleaned whole (every
// field of every message in it, whatever its name), and the texts were cleaned by the
// caller (Handler.redactMessages: a text's length frames it, so it is cleaned before).
func packHistory(id int64, msgs []session.Message, red *redact.Redactor) []byte {
	// Each message's letter and its text's length in UTF-16 code units, letter|units<<8;
	// 0: JSON.
	packed := make([]uint64, len(msgs))
	size := 96
	for k := range msgs {
		p := packLetter(&msgs[k])
		packed[k] = p
		size += int(p>>8) + 12
		if p == 0 {
			size += 256 // about a call or a result; the buffer grows for more
		}
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(`{"type":"reply","id":` + strconv.FormatInt(id, 10) + `,"ok":true,"value":{"count":` + strconv.Itoa(len(msgs)) + `,"json":[`)
	sep := ""
	for k, p := range packed {
		if p == 0 {
			b.WriteString(sep)
			session.WriteMessage(&b, msgs[k])
			sep = ","
		}
	}
	b.WriteString("]}}\n")
	cleanFrom(&b, 0, red)
	writePacked(&b, msgs, packed, false, nil)
	return b.Bytes()
}

// packLetter returns m's letter and its text's length in UTF-16 code units,
// letter|units<<8, or 0 if m goes as JSON.
func packLetter(m *session.Message) uint64 {
	if letter := textLetter(m); letter != 0 {
		if n := utf16Len(m.Parts[0].Text); n >= 0 {
			return uint64(letter) | uint64(n)<<8
		}
	}
	return 0
}

// writePacked writes msgs packed (packed: their packLetter, or nil to work them out): a
// text message as its letter, its length, a colon and its text; any other message as
// the letter j alone (packHistory: its JSON is in the reply) or, inline, as j, its JSON
// and a "\n" (Mirror.Changes: compact JSON holds none; the first message after a "\n").
func writePacked(b *bytes.Buffer, msgs []session.Message, packed []uint64, inline bool, red *redact.Redactor) {
	if inline {
		// Room for the texts, grown once (packHistory grows it itself).
		size := 1
		for k := range msgs {
			size += 12
			if len(msgs[k].Parts) == 1 {
				size += len(msgs[k].Parts[0].Text)
			}
		}
		b.Grow(size)
		if b.Len() == 0 {
			b.WriteByte('\n')
		}
	}
	// The texts, appended to the buffer's slice in its room: no call for each piece (the
	// package is built without inlining).
	out := b.AvailableBuffer()
	for k := range msgs {
		var p uint64
		if packed != nil {
			p = packed[k]
		} else {
			p = packLetter(&msgs[k])
		}
		if p != 0 {
			out = strconv.AppendUint(append(out, byte(p)), p>>8, 10)
			out = append(append(out, ':'), msgs[k].Parts[0].Text...)
			continue
		}
		out = append(out, 'j')
		if inline {
			b.Write(out)
			start := b.Len()
			session.WriteMessage(b, msgs[k])
			cleanFrom(b, start, red) // the message's JSON whole, every field of it
			b.WriteByte('\n')
			out = b.AvailableBuffer()
		}
	}
	b.Write(out)
}

// textLetter returns the letter a text message is packed under, or 0 if m is not one.
// Roles are the session's constants, told apart by their first byte (tool-call and
// tool-result are never text messages).
func textLetter(m *session.Message) byte {
	if len(m.Parts) != 1 || m.Parts[0].Type != session.PartText || m.Role == "" {
		return 0
	}
	switch r := m.Role[0]; {
	case r == 'a' && m.Prefix:
		return 'p'
	case r == 'a' || (r == 'u' || r == 's') && !m.Prefix:
		return r
	}
	return 0
}

// utf16Len returns s's length in JavaScript's UTF-16 code units, or -1 if s is not valid
// UTF-8. ASCII, the usual text, is a byte a unit: it is checked eight bytes at a time,
// and only what follows the first byte beyond it is walked rune by rune.
func utf16Len(s string) int {
	i := 0
	for p := unsafe.Pointer(unsafe.StringData(s)); i+8 <= len(s) && *(*uint64)(unsafe.Add(p, i))&0x8080808080808080 == 0; {
		i += 8
	}
	n := i
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			if r, size = utf8.DecodeRuneInString(s[i:]); size == 1 {
				return -1 // RuneError of a byte that is not UTF-8
			}
		}
		n, i = n+1, i+size
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// cleanFrom redacts red's secrets from the JSON text b holds from start on, as a whole
// (Redactor.JSON): every string in it, whichever field it is. A nil red leaves b.
func cleanFrom(b *bytes.Buffer, start int, red *redact.Redactor) {
	if red.Empty() {
		return
	}
	text := b.Bytes()[start:]
	if len(text) == 0 {
		return
	}
	if clean := red.JSON(text); len(clean) != len(text) || &clean[0] != &text[0] {
		b.Truncate(start)
		b.Write(clean)
	}
}
