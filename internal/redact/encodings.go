package redact

import (
	"strings"

	"langmodel/internal/jsonv"
)

// The encodings a secret's forms are written in: base64 in the standard and URL alphabets,
// whose forms the set adds (addSecret), and percent-encoding, which the matcher reads as an
// escape (unit).

// The base64 alphabets, standard and URL (RFC 4648). The few lines below encode them
// (jsonv.DecodeBase64 decodes): encoding/base64's four Encodings and decoder cost the
// module 2.3 KB brotli.
const (
	stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// encode64 is src encoded in alpha, padded with = when pad.
func encode64(alpha string, src []byte, pad bool) string {
	var b []byte
	for i := 0; i < len(src); i += 3 {
		var v uint32
		n := min(3, len(src)-i)
		for k := 0; k < 3; k++ {
			v <<= 8
			if k < n {
				v |= uint32(src[i+k])
			}
		}
		for k := 0; k < 4; k++ {
			if k <= n {
				b = append(b, alpha[v>>(18-6*k)&63])
			} else if pad {
				b = append(b, '=')
			}
		}
	}
	return string(b)
}

// unbase64 decodes a Basic credential: s in the standard alphabet, padded or not, with
// no line breaks (jsonv.DecodeBase64 reads it padded).
func unbase64(s string) ([]byte, bool) {
	for len(s) > 0 && s[len(s)-1] == '=' {
		s = s[:len(s)-1]
	}
	if len(s)%4 == 1 || strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	b, ok := jsonv.DecodeBase64(nil, s+"=="[:(4-len(s)%4)%4])
	if !ok {
		return nil, false
	}
	return b, true
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// percent is v percent-encoded as a URL query value is: unreserved bytes as they are,
// the rest as %XX in hex's case, a space as + when plus.
func percent(v, hex string, plus bool) string {
	var b []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b = append(b, c)
		case c == ' ' && plus:
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// unescape undoes percent-encoding (and + for space); text that is not valid stays.
func unescape(s string) string {
	if strings.IndexAny(s, "%+") < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0:
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
