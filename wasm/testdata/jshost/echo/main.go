//go:build js && wasm

// echo: globalThis.echo(x) returns a Promise that a goroutine resolves after
// time.Sleep(24 * time.Hour) with {value: x, slept: seconds Go measured};
// globalThis.add(a, b) returns a + b at once (the benchmark's round trip).
package main

import (
	"syscall/js"
	"time"
)

func main() {
	js.Global().Set("echo", js.FuncOf(func(_ js.Value, args []js.Value) any {
		x := args[0]
		return newPromise(func(resolve js.Value) {
			start := time.Now()
			time.Sleep(24 * time.Hour) // only a virtual clock gets through this in a test
			resolve.Invoke(map[string]any{"value": x, "slept": time.Since(start).Seconds()})
		})
	}))
	js.Global().Set("add", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return args[0].Float() + args[1].Float()
	}))
	select {}
}

// newPromise returns a Promise that work resolves from a new goroutine.
func newPromise(work func(resolve js.Value)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		executor.Release()
		go work(args[0])
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}
