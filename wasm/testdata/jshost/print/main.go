//go:build js && wasm

// print: globalThis.printIt(s) prints s with fmt.Println (stdout) and
// fmt.Fprintln(os.Stderr) inside a js.FuncOf callback, which deadlocks unless
// fs.write completes synchronously; globalThis.argsEnv() returns os.Args and
// the value of $GREETING.
package main

import (
	"fmt"
	"os"
	"syscall/js"
)

func main() {
	fmt.Println("main started")
	js.Global().Set("printIt", js.FuncOf(func(_ js.Value, args []js.Value) any {
		fmt.Println("stdout:", args[0].String())
		fmt.Fprintln(os.Stderr, "stderr:", args[0].String())
		return "printed"
	}))
	js.Global().Set("argsEnv", js.FuncOf(func(js.Value, []js.Value) any {
		var list []any
		for _, a := range os.Args {
			list = append(list, a)
		}
		return map[string]any{"args": list, "greeting": os.Getenv("GREETING")}
	}))
	select {}
}
