package wasm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkHandler_ClosedLoopStep: one closed-loop step through the binding natively
// (model reply in → tool-execute out → tool-return in → next model request), with the
// page's no-op tool answered from Go. The engine's own budget is 50 µs (DESIGN.md §5).
func BenchmarkHandler_ClosedLoopStep(b *testing.B) { handlerLoop(b, false) }

// BenchmarkHandler_ClosedLoopStepSecrets is BenchmarkHandler_ClosedLoopStep with the
// handler holding secrets (an apiKey and two credential headers, as an openai backend
// and an MCP server give): every message is searched for them at the edge (Handler.red).
// Without secrets that search is one pointer load a message.
func BenchmarkHandler_ClosedLoopStepSecrets(b *testing.B) { handlerLoop(b, true) }

// benchSecrets gives h what an openai backend and an MCP server with credentials give.
func benchSecrets(h *Handler) {
	h.red.AddCredentials("sk-proj-0123456789abcdefXYZ", map[string]string{"x-api-key": "x-api-key-1a2b3c4d5e"}, nil, "https://api.example/v1")
	h.red.AddCredentials("", map[string]string{"authorization": "Bearer mcp-token-9f8e7d6c5b"}, nil, "https://mcp.example/mcp?api_key=q-0123456789")
}

func handlerLoop(b *testing.B, secrets bool) {
	t := &testing.T{}
	p := &fakePage{t: t, out: make(chan []byte, 1<<16), tools: map[int64]toolFunc{}, replies: map[int64]msg{}}
	p.h = NewHandler(func(m []byte) { p.out <- m })
	defer p.h.Close()
	if secrets {
		benchSecrets(p.h)
	}
	p.tools[7] = func(*fakePage, msg) (any, string) { return "", "" }
	n := b.N
	turns := strings.Repeat(`{"calls":[{"name":"noop","arguments":{}}]},`, n) + `{"text":"done"}`
	tool := `{"name":"noop","description":"does nothing","inputSchema":{"type":"object"},"hasExecute":true,"execute":7}`
	p.ok("create", fmt.Sprintf(`"session":1,"options":{"tools":[%s],"toolUseConfig":{"maxToolCalls":%d,"maxRepeatedCalls":0},"backend":{"kind":"scripted","window":100000000,"turns":[%s]}}`, tool, n, turns))
	p.log = nil
	b.ResetTimer()
	id := p.request("prompt", `"session":1,"input":"go"`)
	if r := p.wait(id); r["error"] != nil {
		b.Fatal(r["error"])
	}
}

// BenchmarkPort_ClosedLoopStep is BenchmarkHandler_ClosedLoopStep through the Port, as
// the module runs it in a page: each message from the page is one Send, and everything
// the engine writes until it waits again is one Take; the page's side does only what
// js/port.js and pagecalls.js must (find the calls, answer each). No session events: the
// page does not listen. Profile it with -cpuprofile: it is the engine's share of a step
// in the page. /1 is one prompt of b.N steps; /prompts is b.N prompts of one step each
// (a call, then the answer), where each prompt's own cost counts.
func BenchmarkPort_ClosedLoopStep(b *testing.B) {
	b.Run("1", func(b *testing.B) { portLoop(b, 1, b.N, false) })
	b.Run("prompts", func(b *testing.B) { portLoop(b, b.N, 1, false) })
	b.Run("1/secrets", func(b *testing.B) { portLoop(b, 1, b.N, true) })
}

// answerTools sends request through the port, answers every tool-execute the engine
// writes with an empty result, as the page's no-op tool does, and returns the batch
// that holds the reply.
func answerTools(p *Port, request string) string {
	send := func(m string) { copy(p.Inbox(len(m)), m); p.Send(len(m), 0) }
	send(request)
	const call = `{"type":"tool-execute","id":`
	for {
		batch := p.Take()
		if batch == nil {
			runtime.Gosched() // natively the engine's goroutines run beside this one
			continue
		}
		s := string(batch)
		for i := strings.Index(s, call); i >= 0; i = strings.Index(s, call) {
			s = s[i+len(call):]
			send(`{"type":"tool-return","id":` + s[:strings.IndexAny(s, ",}")] + `,"value":""}`)
		}
		if strings.Contains(string(batch), `"type":"reply"`) {
			return string(batch)
		}
	}
}

// portLoop plays prompts prompts of steps tool steps each through a Port.
func portLoop(b *testing.B, prompts, steps int, secrets bool) {
	p := NewPort()
	defer p.Handler().Close()
	if secrets {
		benchSecrets(p.Handler())
	}
	p.Connect(func() {})
	send := func(m string) { copy(p.Inbox(len(m)), m); p.Send(len(m), 0) }
	// One-step prompts use the offline model's rules ("/noop" calls the tool, its result
	// gets an answer), so that no long script is decoded before the timer starts.
	backend, input, answer := `{"kind":"scripted","window":100000000}`, "/noop", `"text":"noop: "`
	if steps > 1 || prompts == 1 {
		turns := strings.Repeat(`{"calls":[{"name":"noop","arguments":{}}]},`, steps) + `{"text":"done"}`
		backend, input, answer = `{"kind":"scripted","window":100000000,"turns":[`+turns+`]}`, "go", `"text":"done"`
	}
	tool := `{"name":"noop","description":"does nothing","inputSchema":{"type":"object"},"hasExecute":true,"execute":7}`
	send(fmt.Sprintf(`{"type":"create","id":1,"session":1,"options":{"tools":[%s],"toolUseConfig":{"maxToolCalls":%d,"maxRepeatedCalls":0},"backend":%s}}`, tool, steps, backend))
	if b := p.Take(); !strings.Contains(string(b), `"ok":true`) {
		panic(string(b))
	}
	b.ResetTimer()
	for i := range prompts {
		if reply := answerTools(p, fmt.Sprintf(`{"type":"prompt","id":%d,"session":1,"input":%q}`, i+2, input)); !strings.Contains(reply, answer) {
			b.Fatal(reply)
		}
	}
}

// BenchmarkPort_CreateHistory: create({initialPrompts}) with a 10,000-message history
// (make bench-peers' workload: a system message, then user and assistant in turn), as
// one message through the Port: /packed as the face sends a history of text messages
// (js/pack.js), /json as it sends any other.
func BenchmarkPort_CreateHistory(b *testing.B) {
	var hist strings.Builder
	msgs := []packed{{'s', "You are a benchmark."}}
	hist.WriteString(`{"role":"system","content":"You are a benchmark."}`)
	for i := 1; i < 10000; i++ {
		role := "user"
		if i%2 == 0 {
			role = "assistant"
		}
		fmt.Fprintf(&hist, `,{"role":%q,"content":"message %d of the history"}`, role, i)
		msgs = append(msgs, packed{role[0], fmt.Sprintf("message %d of the history", i)})
	}
	text, units := pack(msgs...)
	const options = `"options":{"backend":{"kind":"scripted","window":1000000000,"turns":[{"text":"ok"}]}}`
	for _, tc := range []struct {
		name string
		msg  func(i int) (string, string)
	}{
		{"packed", func(i int) (string, string) {
			return fmt.Sprintf(`{"type":"create","id":%d,"session":%d,%s,"textPrompts":%d,"textUnits":%d}`, i+1, i+1, options, len(msgs), units), text
		}},
		{"json", func(i int) (string, string) {
			return fmt.Sprintf(`{"type":"create","id":%d,"session":%d,%s,"initialPrompts":[%s]}`, i+1, i+1, options, hist.String()), ""
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := NewPort()
			defer p.Handler().Close()
			p.Connect(func() {})
			for i := 0; b.Loop(); i++ {
				m, attach := tc.msg(i)
				copy(p.Inbox(len(m)+len(attach)), m+attach)
				p.Send(len(m)+len(attach), len(attach))
				if r := p.Take(); !strings.Contains(string(r), `"ok":true`) {
					b.Fatal(string(r))
				}
				d := fmt.Sprintf(`{"type":"destroy","id":0,"session":%d}`, i+1)
				copy(p.Inbox(len(d)), d)
				p.Send(len(d), 0)
				p.Take()
			}
		})
	}
}

// BenchmarkPort_SessionAtWindow: one-step prompts on one session under the default
// context window, so that after the first few hundred every step evicts: what a long
// chat pays per prompt once its context is full. Without initial prompts it does not
// grow with b.N (it did: eviction copied the whole history, and the next append copied
// it again); with a system prompt, eviction copies what the window holds (the initial
// prompts stay in front, and no slot a rollback may restore is overwritten), so it grows
// with the window, here 32,768 units of very short messages, not with the session's age.
func BenchmarkPort_SessionAtWindow(b *testing.B) {
	b.Run("alone", func(b *testing.B) { sessionAtWindow(b, "") })
	b.Run("system-prompt", func(b *testing.B) { sessionAtWindow(b, `"initialPrompts":[{"role":"system","content":"s"}],`) })
}

func sessionAtWindow(b *testing.B, initial string) {
	p := NewPort()
	defer p.Handler().Close()
	p.Connect(func() {})
	send := func(m string) { copy(p.Inbox(len(m)), m); p.Send(len(m), 0) }
	tool := `{"name":"noop","description":"does nothing","inputSchema":{"type":"object"},"hasExecute":true,"execute":7}`
	send(`{"type":"create","id":1,"session":1,` + initial + `"options":{"tools":[` + tool + `],"backend":{"kind":"scripted"}}}`)
	p.Take()
	for i := 0; b.Loop(); i++ {
		answerTools(p, fmt.Sprintf(`{"type":"prompt","id":%d,"session":1,"input":"/noop"}`, i+2))
	}
}
