//go:build js && wasm

// Command langmodel is the WebAssembly module a page loads (GOOS=js GOARCH=wasm). It is
// the only file with syscall/js: it moves bytes between the page and wasm.Handler and
// does nothing else. It registers
//
//	globalThis.__langmodel_channel = {
//		send(json),            // a message for the engine; never blocks
//		query(json) → json,    // synchronous history/usage (Handler.Query)
//		connect(receive),      // receive(json) gets every later message from the engine
//		mirror() → json|null,  // what changed in the histories since the last call (wasm.Mirror)
//	}
//
// then calls globalThis.__langmodel_ready() if the page has set it. Messages written
// before connect wait until the page connects. Only the worker mode (js/worker.js) calls
// mirror; until it does, no Mirror exists.
package main

import (
	"syscall/js"

	"langmodel/wasm"
)

func main() {
	// Until the page connects, messages wait here. send runs under the handler's write
	// lock, so the page cannot connect in the middle of a flush.
	var receive js.Value
	var early [][]byte
	h := wasm.NewHandler(func(msg []byte) {
		if receive.IsUndefined() {
			early = append(early, msg)
			return
		}
		receive.Invoke(string(msg))
	})

	// The callbacks never block (FIELD-NOTES.md "syscall/js behaviour") and never panic:
	// a panic inside a js.FuncOf kills the module.
	send := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 && args[0].Type() == js.TypeString {
			h.Receive([]byte(args[0].String()))
		}
		return nil
	})
	query := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return js.Undefined()
		}
		return string(h.Query([]byte(args[0].String())))
	})
	connect := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeFunction {
			return nil
		}
		// The latest receiver gets every later message: a page whose install() failed
		// after connecting connects again when it retries.
		h.Connect(func() {
			receive = args[0]
			for _, msg := range early {
				receive.Invoke(string(msg))
			}
			early = nil
		})
		return nil
	})
	var m *wasm.Mirror
	mirror := js.FuncOf(func(js.Value, []js.Value) any {
		if m == nil {
			m = wasm.NewMirror(h)
		}
		if c := m.Changes(); c != nil {
			return string(c)
		}
		return nil
	})
	channel := js.Global().Get("Object").New()
	channel.Set("send", send)
	channel.Set("query", query)
	channel.Set("connect", connect)
	channel.Set("mirror", mirror)
	js.Global().Set("__langmodel_channel", channel)
	if ready := js.Global().Get("__langmodel_ready"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the callbacks live as long as the page
}
