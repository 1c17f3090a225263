//go:build easyjson_generate

package jsonw

import (
	"github.com/mailru/easyjson/buffer"
	"github.com/mailru/easyjson/jwriter"
)

// While go generate runs easyjson, Writer is jwriter's: easyjson's bootstrap compiles
// the binding with stub methods that take a *jwriter.Writer, and the binding's own code
// names jsonw's (see the go:generate lines in wasm/protocol.go). The module never builds
// with this tag.
type (
	Writer = jwriter.Writer
	Buffer = buffer.Buffer
)
