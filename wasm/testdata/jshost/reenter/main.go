//go:build js && wasm

// reenter: globalThis.goDepth(n) calls the JS function globalThis.jsDepth(n-1),
// which the test defines to call goDepth again: wasm is re-entered n times. Each
// level also grows the goroutine stack, so Go's stack pointer moves while JS
// holds it (getsp must be right at every depth).
package main

import (
	"strconv"
	"syscall/js"
)

func main() {
	js.Global().Set("goDepth", js.FuncOf(func(_ js.Value, args []js.Value) any {
		n := args[0].Int()
		if n == 0 {
			return "go0"
		}
		inner := deep(64, func() string { return js.Global().Call("jsDepth", n-1).String() })
		return "go" + strconv.Itoa(n) + "(" + inner + ")"
	}))
	select {}
}

// deep recurses with 1 KiB frames before calling f, forcing the goroutine
// stack to grow (and move) under the call, then checks its frames survived.
func deep(n int, f func() string) string {
	var pad [1024]byte
	if n == 0 {
		return f()
	}
	pad[n] = byte(n)
	s := deep(n-1, f)
	if pad[n] != byte(n) {
		panic("stack corrupted")
	}
	return s
}
