package jshost

import (
	"errors"
	"fmt"
	"strings"
)

// ErrClosed is returned by calls on a Host after Close.
var ErrClosed = errors.New("jshost: host is closed")

// ErrStalled is wrapped by the error Eval returns when the event loop went idle
// (no task, no timer, no Hold outstanding) while the script's promise was still
// pending. Before reporting it the Host tells the Go program, as Node does, so the
// error usually also carries Go's "all goroutines are asleep - deadlock!".
var ErrStalled = errors.New("jshost: event loop idle with the script's promise unsettled")

// JSError is a JavaScript exception (or promise rejection) that reached Go.
type JSError struct {
	Name    string // the error's name ("TypeError", "AbortError"), empty for a non-Error value
	Message string // its message, or String(value) for a non-Error value
	Stack   string // its stack, as goja prints it; may be empty
	Value   any    // the thrown value, exported to Go
}

func (e *JSError) Error() string {
	var b strings.Builder
	b.WriteString("jshost: ")
	if e.Name != "" {
		b.WriteString(e.Name)
		b.WriteString(": ")
	} else {
		b.WriteString("uncaught ")
	}
	b.WriteString(e.Message)
	// goja's stack starts with "Name: message"; keep only the frames.
	if i := strings.Index(e.Stack, "\n"); i >= 0 {
		b.WriteString(e.Stack[i:])
	}
	return b.String()
}

// ExitError reports that the Go program exited (or crashed) while a call was
// waiting for it. Output holds what it wrote to stderr meanwhile (a panic's
// message and trace, Go's deadlock report), cut to the first few KiB.
type ExitError struct {
	Code   int
	Output string
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("jshost: Go program exited with code %d", e.Code)
	if out := strings.TrimSpace(e.Output); out != "" {
		msg += ":\n" + out
	}
	return msg
}
