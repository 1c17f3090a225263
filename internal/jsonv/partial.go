package jsonv

// Complete closes the beginning of a JSON text that is still arriving (a tool call's
// arguments as the model writes them) into one valid JSON value, appended to dst: the
// text as it stands with its open string and containers closed (`{"city": "Par` gives
// `{"city": "Par"}`), or, where that is not JSON (a key, number, literal or escape cut
// short), the text up to its last comma or opening bracket, closed (`{"a": 1, "b` gives
// `{"a": 1}`, `[tr` gives `[]`). ok is false when neither is JSON.
//
// It is for display (the toolcalldelta event's partial object), never for deciding
// anything: the call's arguments are only what the finished call says. One pass and two
// checks, kept small: the module pays for every byte of code.
func Complete(dst, data []byte) (out []byte, ok bool) {
	// open[:top] are the closers of the containers open now; what lies beyond top was
	// open before, and is still what was open at cut unless another container opened
	// at its depth since (Valid then says no).
	var open []byte
	top := 0
	cut, depth := -1, 0 // the last comma or opening bracket, and top there
	inStr, esc := false, false
	for i, c := range data {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			open = append(open[:top], c+2) // '{'+2 is '}', '['+2 is ']'
			top++
			cut, depth = i+1, top
		case c == '}' || c == ']':
			top = max(top-1, 0)
		case c == ',':
			cut, depth = i, top
		}
	}
	n := len(dst)
	dst = append(dst, data...)
	if inStr {
		if esc {
			dst = dst[:len(dst)-1]
		}
		dst = append(dst, '"')
	}
	if dst = closeAll(dst, open[:top]); Valid(dst[n:]) {
		return dst, true
	}
	if cut < 0 {
		return dst[:n], false
	}
	dst = closeAll(append(dst[:n], data[:cut]...), open[:depth])
	return dst, Valid(dst[n:])
}

// closeAll appends the closers of the open containers, innermost first.
func closeAll(dst, open []byte) []byte {
	for j := len(open) - 1; j >= 0; j-- {
		dst = append(dst, open[j])
	}
	return dst
}
