package jsonv

// Base64 as encoding/json reads a []byte from a JSON string: encoding/base64's
// StdEncoding. By hand, once for the module: package base64's encodings and decoder cost
// it 8 KB of code (2.3 KB brotli), and the base64 the engine reads (a Basic credential's
// user:pass, the first bytes of an image or a sound) needs only these lines.

// DecodeBase64 appends to dst the bytes of s, base64 in the standard alphabet (RFC 4648),
// as base64.StdEncoding.Decode decodes it: line breaks (\r, \n) skipped, padding ending
// the text. ok is false where s is not that (a character outside the alphabet, padding
// out of place, a last group cut short); the bytes appended are then those Decode counts,
// the whole groups before the fault.
func DecodeBase64(dst []byte, s string) (out []byte, ok bool) {
	var acc uint32 // the group's 6-bit values so far
	n := 0         // how many
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c == '\r' || c == '\n':
			continue
		case 'A' <= c && c <= 'Z':
			v = c - 'A'
		case 'a' <= c && c <= 'z':
			v = c - 'a' + 26
		case '0' <= c && c <= '9':
			v = c - '0' + 52
		case c == '+':
			v = 62
		case c == '/':
			v = 63
		case c == '=' && n >= 2:
			if n == 2 { // one byte, if a second = follows
				if i = skipLineBreaks(s, i+1); i == len(s) || s[i] != '=' {
					return dst, false
				}
				dst = append(dst, byte(acc>>4))
			} else {
				dst = append(dst, byte(acc>>10), byte(acc>>2))
			}
			return dst, skipLineBreaks(s, i+1) == len(s)
		default:
			return dst, false
		}
		acc = acc<<6 | uint32(v)
		if n++; n == 4 {
			dst = append(dst, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	return dst, n == 0
}

// skipLineBreaks returns the offset of the first byte at or after s[i] that is not \r or \n.
func skipLineBreaks(s string, i int) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}
