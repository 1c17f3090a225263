package wasm

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHandler_ClosedLoopStep: one closed-loop step through the binding natively
// (model reply in → tool-execute out → tool-return in → next model request), with the
// page's no-op tool answered from Go. The engine's own budget is 50 µs (DESIGN.md §5).
func BenchmarkHandler_ClosedLoopStep(b *testing.B) {
	t := &testing.T{}
	p := &fakePage{t: t, out: make(chan []byte, 1<<16), tools: map[int64]toolFunc{}, replies: map[int64]msg{}}
	p.h = NewHandler(func(m []byte) { p.out <- m })
	defer p.h.Close()
	p.tools[7] = func(*fakePage, msg) (any, string) { return "", "" }
	n := b.N
	turns := strings.Repeat(`{"calls":[{"name":"noop","arguments":{}}]},`, n) + `{"text":"done"}`
	tool := `{"name":"noop","description":"does nothing","inputSchema":{"type":"object"},"hasExecute":true,"execute":7}`
	p.ok("create", fmt.Sprintf(`"session":1,"options":{"tools":[%s],"toolUseConfig":{"maxToolCalls":%d},"backend":{"kind":"scripted","window":100000000,"turns":[%s]}}`, tool, n, turns))
	p.log = nil
	b.ResetTimer()
	id := p.request("prompt", `"session":1,"input":"go"`)
	if r := p.wait(id); r["error"] != nil {
		b.Fatal(r["error"])
	}
}
