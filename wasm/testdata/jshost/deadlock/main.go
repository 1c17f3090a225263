//go:build js && wasm

// deadlock: globalThis.waitForever() returns a Promise that a goroutine would
// resolve after receiving from a channel nobody sends on; globalThis.
// blockInCallback() blocks inside the js.FuncOf callback itself.
package main

import "syscall/js"

func main() {
	never := make(chan struct{})
	js.Global().Set("waitForever", js.FuncOf(func(js.Value, []js.Value) any {
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
			executor.Release()
			resolve := args[0]
			go func() {
				<-never
				resolve.Invoke("unreachable")
			}()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	}))
	js.Global().Set("blockInCallback", js.FuncOf(func(js.Value, []js.Value) any {
		<-never
		return nil
	}))
	select {}
}
