//go:build js && wasm

// grow: globalThis.grow(mib) allocates and keeps mib MiB, which grows the wasm
// memory; globalThis.roundTrip(s) returns s reversed, through Go strings, which
// read and write memory through mem.buffer.
package main

import "syscall/js"

var kept [][]byte

func main() {
	js.Global().Set("grow", js.FuncOf(func(_ js.Value, args []js.Value) any {
		b := make([]byte, args[0].Int()<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = byte(i >> 12)
		}
		kept = append(kept, b)
		sum := 0
		for _, k := range kept {
			sum += len(k)
		}
		return sum
	}))
	js.Global().Set("roundTrip", js.FuncOf(func(_ js.Value, args []js.Value) any {
		r := []rune(args[0].String())
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		out := js.Global().Get("Uint8Array").New(len(string(r)))
		js.CopyBytesToJS(out, []byte(string(r)))
		return js.Global().Get("TextDecoder").New().Call("decode", out)
	}))
	select {}
}
