package redact

import (
	"strings"
	"testing"
)

// The redactor's cost on what leaves the engine: a message with nothing to find, plain
// and full of escapes (a tool's JSON result inside an event), with no secret and with one.
func BenchmarkRedactor_Outputs(b *testing.B) {
	plain := []byte(`{"type":"event","session":1,"detail":{"type":"toolresult","value":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40) + `"}}`)
	escaped := []byte(`{"type":"event","session":1,"detail":{"type":"toolresult","value":"` + strings.Repeat(`{\"id\":12,\"path\":\"a\/b%20c\",\"n\":\"\u00e9t\u00e9\"}\n`, 24) + `"}}`)
	text := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 40)
	for _, bc := range []struct {
		name string
		r    *Redactor
	}{{"none", &Redactor{}}, {"one key", keyed()}} {
		b.Run(bc.name+"/JSON plain", func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			for b.Loop() {
				bc.r.JSON(plain)
			}
		})
		b.Run(bc.name+"/JSON escaped", func(b *testing.B) {
			b.SetBytes(int64(len(escaped)))
			for b.Loop() {
				bc.r.JSON(escaped)
			}
		})
		b.Run(bc.name+"/String", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				bc.r.String(text)
			}
		})
		b.Run(bc.name+"/Release", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				bc.r.Release(text)
			}
		})
	}
}
