// Package session is what a conversation IS: messages and content parts in canonical
// form, the explainer's rules for a valid prompt (each violation a typed error carrying
// the DOMException name the page sees), tool declarations and argument validation, and
// the history with its context budget, overflow eviction and dangling-call repair.
//
// It does no I/O, reads no clock and knows no model: everything here is a pure function
// of its inputs, which is what lets the loop restore a history exactly after a failure.
// It imports only the standard library and its own schema package; never syscall/js,
// never net/http (DESIGN.md §2).
package session
