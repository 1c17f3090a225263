// The bare GOOS=js GOARCH=wasm program: syscall/js and nothing else. BuildBare
// builds it; tests load it to prove the stack works, and benchmarks use it as the
// baseline that a real module's startup is compared with.
package main

import "syscall/js"

func main() {
	println("hello from Go")
	// The global name is browsertest.BareReadyGlobal.
	js.Global().Call("browsertestReady", "ready")
}
