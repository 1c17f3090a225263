//go:build js && wasm

// Command langmodel is the WebAssembly module a page loads (GOOS=js GOARCH=wasm). It is
// the only package with syscall/js: it moves bytes between the page and wasm.Port, and
// lends the engine the page's timers (timers.go), and does nothing else. The page reaches it through these exports (js/port.js), called only while
// the module waits (never from inside one of its calls to JS):
//
//	lm_inbox(n) → ptr      a buffer of n bytes for the page's next message
//	lm_send(n, tail)       the first n bytes of it are a message for the engine, the last
//	                       tail of them its attachment (a packed history); the page
//	                       then runs the module (wasm_exec.js's resume) until it waits
//	lm_take() → ptr        what the module wrote since the last take, one JSON array
//	lm_query(n) → ptr      the answer to a synchronous history/usage query in the inbox
//	lm_mirror() → ptr      what changed in the histories since the last call (wasm.Mirror)
//	lm_length() → n        the length of what the last take, query or mirror returned
//	lm_connect() → 0|1     start waking globalThis.__langmodel_wake() when output waits
//	                       that no send will take; 1 if some waits already
//
// A pointer of 0 means nothing. On start it calls globalThis.__langmodel_ready() if the
// page has set it. Only worker mode (js/worker.js) calls lm_mirror; until it does, no
// Mirror exists. See RATIONALE.md "Why does the page read the module's memory?".
package main

import (
	"syscall/js"
	"unsafe"

	"langmodel/wasm"
)

var (
	port   *wasm.Port
	mirror *wasm.Mirror
	length int32  // of the buffer the last take, query or mirror returned
	last   []byte // that buffer, kept alive until the page has read it
)

func main() {
	installTimers()
	port = wasm.NewPort()
	if ready := js.Global().Get("__langmodel_ready"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the exports live as long as the page
}

// The exports never panic through to the page: a panic inside one kills the module.

//go:wasmexport lm_inbox
func lmInbox(n int32) unsafe.Pointer {
	defer recoverQuietly()
	b := port.Inbox(int(n))
	if cap(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

//go:wasmexport lm_send
func lmSend(n, tail int32) {
	defer recoverQuietly()
	port.Send(int(n), int(tail))
}

//go:wasmexport lm_take
func lmTake() unsafe.Pointer {
	defer recoverQuietly()
	return result(port.Take())
}

//go:wasmexport lm_query
func lmQuery(n int32) unsafe.Pointer {
	defer recoverQuietly()
	return result(port.Query(int(n)))
}

//go:wasmexport lm_mirror
func lmMirror() unsafe.Pointer {
	defer recoverQuietly()
	if mirror == nil {
		mirror = wasm.NewMirror(port.Handler())
	}
	return result(mirror.Changes())
}

//go:wasmexport lm_length
func lmLength() int32 { return length }

//go:wasmexport lm_connect
func lmConnect() int32 {
	defer recoverQuietly()
	wake := js.Global().Get("__langmodel_wake")
	if wake.Type() != js.TypeFunction {
		return 0
	}
	if port.Connect(func() { wake.Invoke() }) {
		return 1
	}
	return 0
}

// result returns b's address for the page and records its length; b stays referenced
// until the next result.
func result(b []byte) unsafe.Pointer {
	length, last = int32(len(b)), b
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

func recoverQuietly() { _ = recover() }
