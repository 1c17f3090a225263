//go:build js && wasm

// panic: globalThis.boom() panics inside its js.FuncOf callback, which kills
// the program (exit code 2); globalThis.ok() returns "ok".
package main

import "syscall/js"

func main() {
	js.Global().Set("boom", js.FuncOf(func(js.Value, []js.Value) any {
		panic("boom from a callback")
	}))
	js.Global().Set("ok", js.FuncOf(func(js.Value, []js.Value) any { return "ok" }))
	select {}
}
