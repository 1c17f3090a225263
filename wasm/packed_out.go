package wasm

import (
	"bytes"
	"strconv"
	"unicode/utf8"
	"unsafe"

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
// The package is built without inlining (Makefile NOINLINE): the loops append to the
// slice themselves rather than call a writer's methods for every message.
func packHistory(id int64, msgs []session.Message) []byte {
	letters := make([]byte, len(msgs)) // each message's letter; 0: JSON
	units := make([]int32, len(msgs))  // each text's length in UTF-16 code units
	size, jsonSize := 96, 0
	for k := range msgs {
		m := &msgs[k]
		if letter := textLetter(m); letter != 0 {
			text := m.Parts[0].Text
			n := asciiPrefix(text)
			if n < len(text) {
				n = utf16Len(text, n)
			}
			if n >= 0 {
				letters[k], units[k] = letter, int32(n)
				size += len(text) + 12
				continue
			}
		}
		jsonSize += 160
		for _, p := range m.Parts {
			jsonSize += len(p.Text) + len(p.Media)
		}
	}
	out := make([]byte, 0, size+jsonSize)
	out = append(out, `{"type":"reply","id":`...)
	out = strconv.AppendInt(out, id, 10)
	out = append(out, `,"ok":true,"value":{"count":`...)
	out = strconv.AppendInt(out, int64(len(msgs)), 10)
	out = append(out, `,"json":[`...)
	if jsonSize > 0 {
		b := bytes.NewBuffer(out) // writes after what out holds, into its room
		first := true
		for k := range msgs {
			if letters[k] == 0 {
				if !first {
					b.WriteByte(',')
				}
				first = false
				session.WriteMessage(b, msgs[k])
			}
		}
		out = b.Bytes()
	}
	out = append(out, "]}}\n"...)
	for k := range msgs {
		letter := letters[k]
		if letter == 0 {
			out = append(out, 'j')
			continue
		}
		// Most texts are shorter than a thousand units: their digits are written here,
		// without a call.
		switch n := units[k]; {
		case n < 10:
			out = append(out, letter, byte('0'+n), ':')
		case n < 100:
			out = append(out, letter, byte('0'+n/10), byte('0'+n%10), ':')
		case n < 1000:
			out = append(out, letter, byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10), ':')
		default:
			out = strconv.AppendInt(append(out, letter), int64(n), 10)
			out = append(out, ':')
		}
		out = append(out, msgs[k].Parts[0].Text...)
	}
	return out
}

// textLetter returns the letter a text message is packed under, or 0 if m is not one.
// Roles are the session's constants, told apart by their first byte (tool-call and
// tool-result are never text messages).
func textLetter(m *session.Message) byte {
	if len(m.Parts) != 1 || m.Parts[0].Type != session.PartText || m.Role == "" {
		return 0
	}
	switch m.Role[0] {
	case 'a':
		if m.Prefix {
			return 'p'
		}
		return 'a'
	case 'u', 's':
		if !m.Prefix {
			return m.Role[0]
		}
	}
	return 0
}

// asciiPrefix returns how many bytes s starts with below 0x80, checking eight at a time.
func asciiPrefix(s string) int {
	i := 0
	if len(s) >= 8 {
		p := unsafe.Pointer(unsafe.StringData(s))
		for ; i+8 <= len(s); i += 8 {
			if *(*uint64)(unsafe.Add(p, i))&0x8080808080808080 != 0 {
				break
			}
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// utf16Len returns s's length in JavaScript's UTF-16 code units, or -1 if s is not valid
// UTF-8, given that its first i bytes are ASCII (a unit each).
func utf16Len(s string, i int) int {
	n := i
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return -1
		}
		n, i = n+1, i+size
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
