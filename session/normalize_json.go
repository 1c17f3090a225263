package session

import (
	"langmodel/internal/jsonv"
)

// NormalizeJSON is Normalize for a prompt given as JSON text, which is how the binding
// receives prompt() and append() input: decoded (DecodeJSON), then read. A long history
// does not come this way: create() and restore() send it packed (wasm/packed.go), its
// text messages cut out of one string and its tool messages read by
// NormalizeMessageJSON. The reader of text arrays straight from the JSON that served
// create() before (4 KB of module) went with that (RATIONALE.md "How does create() read
// a long history?").
func NormalizeJSON(raw []byte, o NormalizeOptions) ([]Message, error) {
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return Normalize(v, o)
}

// IsEmptyArray reports whether raw is the JSON text of an empty array ("[]", spaces
// allowed): an append of nothing (DESIGN.md §3).
func IsEmptyArray(raw jsonv.RawMessage) bool {
	i := jsonv.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = jsonv.SkipSpace(raw, i+1)
	return i < len(raw) && raw[i] == ']' && jsonv.SkipSpace(raw, i+1) == len(raw)
}
