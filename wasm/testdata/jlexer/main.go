// The bare GOOS=js GOARCH=wasm program plus easyjson's jlexer decoding one small
// document: the floor of startup for any module that reads its channel with jlexer, as
// the binding does (jlexer links fmt, part of reflect and encoding/json's scanner).
// BenchmarkBrowser_Instantiate starts it beside the bare module and the real one, so the
// share of the startup budget that the JSON layer alone takes is measured in the same run.
package main

import (
	"syscall/js"

	"github.com/mailru/easyjson/jlexer"
)

func main() {
	// The document comes from the page, so the linker cannot drop the lexer.
	doc := js.Global().Get("JSON").Call("stringify", map[string]any{"a": "ready"}).String()
	in := jlexer.Lexer{Data: []byte(doc)}
	var word string
	in.Delim('{')
	for !in.IsDelim('}') {
		key := in.UnsafeFieldName(false)
		in.WantColon()
		if key == "a" {
			word = in.String()
		} else {
			in.SkipRecursive()
		}
		in.WantComma()
	}
	in.Delim('}')
	if err := in.Error(); err != nil {
		word = err.Error()
	}
	// The global name is browsertest.BareReadyGlobal, as for the bare module.
	js.Global().Call("browsertestReady", word)
}
