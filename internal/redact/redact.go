// Package redact is the one redactor of the secrets a session holds (the openai backend's
// apiKey, the values of credential headers, the user-info and query values of a
// configured URL): it replaces every form of them a server can echo with "[redacted]" in
// the text that leaves the engine (DESIGN.md §3 "Secrets stay at the edge",
// docs/design.md "Secrets").
//
// Decode, then match: the matcher reads what it is given through up to Depth layers of
// escapes, each layer JSON string escapes of every kind (\/, \u0073 for every byte, a
// JSON text in a string in a string) or percent-encoding (upper- or lower-case hex, every
// byte or some; a '+' reads as a space), mixed as they come; a JSON message's own string
// escapes are one layer more. Base64 is a re-encoding, not an escape: its forms (the
// standard and URL alphabets, padded or not, and inside a longer base64 text at each of
// the three alignments) are matched through the same layers, white space and line breaks
// between their characters read past (MIME's CRLF every 76 columns). A header value adds
// its credential after an auth scheme (Bearer, Basic, Token, any, in any case), a Basic
// credential's decoded user:pass and its password, and a Cookie's values, quoted or not.
//
// What it cannot promise: a server that disguises its own credential on purpose
// (encrypted, reversed, split over fields, deeper than Depth) can always carry it out.
//
// Values shorter than MinLen bytes are not matched: replacing every "true" or "en-US" in
// the engine's output would corrupt tool results and say nothing about a secret. The
// methods that add report them, and the binding warns in the console.
//
// A zero Redactor redacts nothing, at the cost of one pointer load per call. It is safe
// for concurrent use: secrets are added copy-on-write.
//
// It imports only strings, sync, unicode/utf8, unsafe and internal/jsonv: no fmt, no
// reflection, no encoding/base64 (its own few lines encode the forms, and
// jsonv.DecodeBase64 decodes a Basic credential).
package redact

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MinLen is the shortest value redacted; a shorter one is reported by the Add methods and
// left alone (package comment).
const MinLen = 8

// Replacement is what a secret becomes.
const Replacement = "[redacted]"

// Redactor holds secrets and replaces them. Its zero value holds none.
type Redactor struct {
	p  atomic.Pointer[set]
	mu sync.Mutex // serialises writers
}

// Empty reports whether r holds no secret.
func (r *Redactor) Empty() bool { return r == nil || r.p.Load() == nil }

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	st := r.p.Load()
	if st == nil {
		return s
	}
	out, _ := st.replace(s, false)
	return out
}

// JSON returns the JSON text b with every secret inside its strings replaced, reading
// their escapes; a match never crosses a string's end, so the text stays valid JSON. b
// itself is returned when nothing matched.
func (r *Redactor) JSON(b []byte) []byte {
	if r == nil {
		return b
	}
	st := r.p.Load()
	if st == nil || len(b) == 0 {
		return b
	}
	out, changed := st.replace(unsafe.String(unsafe.SliceData(b), len(b)), true)
	if !changed {
		return b
	}
	return []byte(out)
}

// Parts redacts texts that follow each other (the text parts of one message) as one
// text, so that a secret split across two of them is caught: each keeps its own bytes
// outside the matches, and a match is replaced in the part where it starts. parts itself
// is returned when nothing matched.
func (r *Redactor) Parts(parts []string) []string {
	if r.Empty() || len(parts) == 0 {
		return parts
	}
	st := r.p.Load()
	if len(parts) == 1 {
		if out, changed := st.replace(parts[0], false); changed {
			return []string{out}
		}
		return parts
	}
	whole := strings.Join(parts, "")
	var spans [][2]int
	for i := 0; i < len(whole); {
		start, end, keep := st.next(whole, i, false)
		if start < 0 {
			break
		}
		spans = append(spans, [2]int{start + keep, end})
		i = end
	}
	if spans == nil {
		return parts
	}
	out := make([]string, len(parts))
	off := 0
	for k, p := range parts {
		lo, hi := off, off+len(p)
		var b strings.Builder
		pos := lo
		for _, sp := range spans {
			if sp[1] <= lo || sp[0] >= hi {
				continue
			}
			if sp[0] >= lo {
				b.WriteString(whole[pos:sp[0]])
				b.WriteString(Replacement)
			}
			pos = min(sp[1], hi)
		}
		b.WriteString(whole[pos:hi])
		out[k] = b.String()
		off = hi
	}
	return out
}
