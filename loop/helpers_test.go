package loop_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// toolFunc is a test tool's execute.
type toolFunc func(ctx loop.Context, args map[string]any, progress func(jsonv.RawMessage)) (any, error)

// page is a fake page: its tools, and a record of what happened.
type page struct {
	mu     sync.Mutex
	funcs  map[string]toolFunc
	ran    []string // "name(args)" in start order
	events []loop.Event
	steps  []loop.StepUsage // the stepusage events, kept apart from the others
}

func (p *page) Run(ctx loop.Context, c session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	p.mu.Lock()
	p.ran = append(p.ran, c.Name+string(c.Arguments))
	f := p.funcs[c.Name]
	p.mu.Unlock()
	var args map[string]any
	if err := json.Unmarshal(c.Arguments, &args); err != nil {
		return nil, err
	}
	v, err := f(ctx, args, progress)
	if err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return []session.ResultPart{{Type: "text", Text: s}}, nil
	}
	b, _ := json.Marshal(v)
	return []session.ResultPart{{Type: "object", Value: b}}, nil
}

func (p *page) onEvent(e loop.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Type == loop.EventStepUsage {
		p.steps = append(p.steps, *e.Step)
		return
	}
	p.events = append(p.events, e)
}

func (p *page) Ran() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.ran...)
}

// eventTypes lists the events seen, as "type:name".
func (p *page) eventTypes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, e := range p.events {
		s := string(e.Type)
		if e.Call != nil {
			s += ":" + e.Call.Name
		}
		out = append(out, s)
	}
	return out
}

// decl is a tool declaration as the page gives it, as decoded JSON.
func decl(name string, execute bool, schema string) any {
	var s any
	if schema == "" {
		schema = `{"type":"object"}`
	}
	must(json.Unmarshal([]byte(schema), &s))
	return map[string]any{"name": name, "description": "the " + name + " tool", "inputSchema": s, "hasExecute": execute}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// js decodes JSON the way the binding does.
func js(t testing.TB, s string) any {
	t.Helper()
	v, err := session.DecodeJSON([]byte(s))
	require.NoError(t, err)
	return v
}

type setup struct {
	turns   []scripted.Turn
	tools   []any
	funcs   map[string]toolFunc
	use     loop.ToolUse
	initial string // JSON
	window  int
	expects bool // expectedOutputs includes tool-call
	inputs  session.Expected
}

type fixture struct {
	s      *loop.Session
	model  *scripted.Script
	page   *page
	tools  []session.Tool
	create error
}

func newFixture(t testing.TB, su setup) *fixture {
	t.Helper()
	p := &page{funcs: su.funcs}
	expects := su.expects
	for _, d := range su.tools {
		if !d.(map[string]any)["hasExecute"].(bool) {
			expects = true
		}
	}
	tools, err := session.ParseTools(toAny(su.tools), expects)
	require.NoError(t, err)
	model := scripted.New(su.turns...)
	opts := loop.Options{Model: model, Runner: p, Tools: tools, ToolUse: su.use, OnEvent: p.onEvent, ContextWindow: su.window, Expected: su.inputs}
	if su.initial != "" {
		opts.InitialPrompts = js(t, su.initial)
	}
	s, err := loop.New(opts)
	f := &fixture{s: s, model: model, page: p, tools: tools, create: err}
	if err == nil {
		t.Cleanup(s.Destroy)
	}
	return f
}

func toAny(tools []any) any {
	if tools == nil {
		return nil
	}
	return tools
}

// history returns the session's transcript as compact lines "role: content".
func history(s *loop.Session) []string {
	var out []string
	for _, m := range s.Messages() {
		out = append(out, line(m))
	}
	return out
}

func line(m session.Message) string {
	switch {
	case m.Call() != nil:
		c := m.Call()
		return "call " + c.CallID + " " + c.Name + string(c.Arguments)
	case m.Result() != nil:
		r := m.Result()
		if r.Unpaired {
			return "unpaired " + line(session.ResultMessage(session.ToolResult{CallID: r.CallID, Name: r.Name, Parts: r.Parts, Failed: r.Failed, Error: r.Error}))
		}
		if r.Failed {
			return "error " + r.CallID + " " + r.Name + ": " + r.Error
		}
		b, _ := json.Marshal(r)
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		res, _ := json.Marshal(v["result"])
		return "result " + r.CallID + " " + r.Name + " " + string(res)
	default:
		return string(m.Role) + ": " + m.Text()
	}
}

func kindOf(err error) session.Kind { return session.KindOf(err) }

func transcript(err error) []string {
	var fp *loop.FailedPrompt
	if !errors.As(err, &fp) {
		return nil
	}
	var out []string
	for _, m := range fp.Transcript {
		out = append(out, line(m))
	}
	return out
}

func call(name, args string) scripted.Call {
	return scripted.Call{Name: name, Arguments: jsonv.RawMessage(args)}
}

func echo(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
	return args, nil
}
