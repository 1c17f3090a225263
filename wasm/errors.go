package wasm

import (
	"errors"

	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
)

// wireError turns an engine error into data for the page: the exception name
// (session.KindOf), the message, and the extras js/ attaches (requested and quota for a
// QuotaExceededError, the partial transcript of a failed prompt). js/ alone builds the
// exception (STYLE.md practice 7).
func wireError(err error) *WireError {
	w := &WireError{Name: string(session.KindOf(err)), Message: err.Error()}
	var extra ErrorExtra
	if se, ok := errors.AsType[*session.Error](err); ok && se.Kind == session.KindQuotaExceeded {
		extra.Requested, extra.Quota = se.Requested, se.Quota
	}
	if fp, ok := errors.AsType[*loop.FailedPrompt](err); ok {
		extra.Transcript = session.MarshalMessages(fp.Transcript)
	}
	if extra.Requested != 0 || extra.Quota != 0 || extra.Transcript != nil {
		w.Fields = &extra
	}
	return w
}

// protocolError is a message the binding cannot act on: malformed JSON, a wrong field
// type, a missing field, an unknown type. The page sent something no caller of the
// public API can produce through js/, so the name is that of bad data. Not inlined: at
// its calls its body cost 3.2 KB of code, 1.6 KB brotli.
//
//go:noinline
func protocolError(kind session.Kind, format string, args ...any) *WireError {
	return &WireError{Name: string(kind), Message: "langmodel channel: " + sfmt.Sprintf(format, args...)}
}

// errUnknownSession answers a request for a key that is not (or no longer) a session.
func errUnknownSession(key int64) *WireError {
	return &WireError{Name: string(session.KindInvalidState),
		Message: sfmt.Sprintf("%s (session key %d)", session.ErrDestroyed, key)}
}

// internalError reports a recovered panic: a bug in the binding or the engine, which must
// cost the page one rejected call, never the module.
func internalError(r any) *WireError {
	return &WireError{Name: string(session.KindOperation), Message: sfmt.Sprintf("langmodel: internal error: %v", r)}
}

// errBadBackend is the rule a backend option breaks.
var errBadBackend = errors.New("invalid backend")
