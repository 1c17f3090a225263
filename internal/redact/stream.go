package redact

import "strings"

// A text that arrives in pieces: Stream holds back only a tail that could begin a form.

// Stream redacts a text that arrives in pieces (a prompt's streamed chunks): a secret
// split across pieces is caught. It holds back only a tail that could begin a secret's
// form; Flush returns it at the end.
type Stream struct {
	r    *Redactor
	held string
}

// Stream returns a Stream over r's secrets.
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Push takes the next piece and returns what may go out now.
func (s *Stream) Push(piece string) string {
	if s.r.Empty() {
		return piece
	}
	text := s.held + piece
	cut := s.r.Release(text)
	s.held = text[cut:]
	return s.r.String(text[:cut])
}

// Release is how many of the leading bytes of text, a text still being written (a
// stream's, or the reasoning and forming calls the events show), may go out now: all
// but a tail that could begin a form not complete yet (a shorter form complete there may
// be the start of a longer one), and the start of a match that crosses it. What goes out
// is still to be redacted; the rest waits for more text or for the text's end.
func (r *Redactor) Release(text string) int {
	if r.Empty() {
		return len(text)
	}
	st := r.p.Load()
	cut := len(text) - st.hold(text)
	for pos := 0; pos < cut; {
		start, end, _ := st.next(text, pos, false)
		if start < 0 || start >= cut {
			break
		}
		if end > cut {
			return start
		}
		pos = end
	}
	return cut
}

// Flush returns what is held back, redacted.
func (s *Stream) Flush() string {
	h := s.held
	s.held = ""
	if h == "" {
		return ""
	}
	return s.r.String(h)
}

// hold is the length of the longest suffix of s that a match could begin but the text's
// end cuts short: a form's proper prefix, read through escapes, or an escape cut short.
func (st *set) hold(s string) int {
	// A match cut short reads every byte from its start to the text's end: a form's
	// bytes, and between a base64 form's characters at most maxSpaces of white space. A
	// tail with no escape in it is read byte by byte; an escape makes a byte of a form as
	// much as six units of the depth above (\u0041), at each depth.
	window := st.maxLen*(1+maxSpaces) + 16
	if strings.ContainsAny(s[max(0, len(s)-window):], `\%`) {
		for d := 0; d < Depth; d++ {
			window *= 6
		}
	}
	for i := max(0, len(s)-window); i < len(s); i++ {
		if !st.hot[s[i]] {
			continue
		}
		if _, _, cut := st.at(s, i, false, true); cut {
			return len(s) - i
		}
	}
	return 0
}
