package wasm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandler_hammer runs many sessions at once: closed loops with parallel tool calls
// answered in random order, clones mid-prompt, destroys mid-loop and aborts. Every
// request must get exactly one reply, and nothing may race (go test -race).
func TestHandler_hammer(t *testing.T) {
	p := newPage(t)
	p.tools[7] = func(p *fakePage, m msg) (any, string) {
		p.send(fmt.Sprintf(`{"type":"tool-progress","id":%d,"value":1}`, num(m["id"])))
		return "ok", ""
	}
	calls := `{"calls":[{"name":"weather","arguments":{"city":"A"}},{"name":"weather","arguments":{"city":"B"}},{"name":"weather","arguments":{"city":"C"}}]}`
	var turns []string
	for i := 0; i < 40; i++ {
		turns = append(turns, calls, `{"text":"done"}`)
	}
	const sessions = 12
	var ids []int64
	for k := int64(1); k <= sessions; k++ {
		p.ok("create", fmt.Sprintf(`"session":%d,"options":{"tools":[%s],%s}`, k, weatherTool, script(turns...)))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	next := int64(100)
	for i := 0; i < 200; i++ {
		k := 1 + rng.Int64N(sessions)
		switch r := rng.IntN(10); {
		case r < 6:
			ids = append(ids, p.request("prompt", fmt.Sprintf(`"session":%d,"input":"go %d"`, k, i)))
		case r < 7:
			ids = append(ids, p.request("append", fmt.Sprintf(`"session":%d,"input":"note"`, k)))
		case r < 8:
			next++
			ids = append(ids, p.request("clone", fmt.Sprintf(`"session":%d,"clone":%d`, k, next)))
		case r < 9:
			id := p.request("prompt", fmt.Sprintf(`"session":%d,"input":"abort me"`, k))
			ids = append(ids, id)
			p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
		default:
			if i > 150 {
				ids = append(ids, p.request("destroy", fmt.Sprintf(`"session":%d`, k)))
			}
		}
	}
	for _, id := range ids {
		r := p.wait(id)
		if e, ok := r["error"].(map[string]any); ok {
			require.Contains(t, []any{"AbortError", "InvalidStateError", "OperationError"}, e["name"], "%v", e)
		}
	}
	p.ok("hello", helloVersion)
}

// TestHandler_PanicIsAnError: a panic while handling a message (here a session whose
// engine is missing, which only a bug can cause) becomes an error reply, and the handler
// goes on.
func TestHandler_PanicIsAnError(t *testing.T) {
	p := newPage(t)
	planted := make(chan struct{})
	p.h.post(inItem{fn: func() { p.h.register(&entry{key: 9}); close(planted) }})
	<-planted
	e := p.fails("prompt", `"session":9,"input":"x"`, "OperationError")
	require.Contains(t, e["message"], "langmodel: internal error: runtime error: invalid memory address or nil pointer dereference")
	p.ok("hello", helloVersion)
}
