package loop_test

import (
	"context"
	"fmt"
	"testing"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// stepper is a benchmark model: it asks for one no-op tool call per step until it has
// made calls calls in the current prompt, then answers "done". It reads only the last
// message, so what the benchmarks measure is the engine.
type stepper struct {
	calls int
	made  int
	args  jsonv.RawMessage
}

func (m *stepper) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == session.RoleUser {
		m.made = 0
	}
	if m.made < m.calls {
		m.made++
		return emit(loop.Delta{Call: &session.ToolCall{Name: "noop", Arguments: m.args}})
	}
	return emit(loop.Delta{Text: "done"})
}

var noop = loop.RunnerFunc(func(loop.Context, session.ToolCall, func(jsonv.RawMessage)) ([]session.ResultPart, error) {
	return nil, nil
})

func benchSession(b *testing.B, m loop.Model, initial any) *loop.Session {
	return benchSessionWith(b, m, initial, loop.ToolUse{MaxToolCalls: 1 << 30, MaxRepeatedCalls: -1}, nil)
}

// benchSessionWith is benchSession with its own toolUseConfig and event hook. The
// stepper makes the same call at every step, so the benchmarks turn maxRepeatedCalls
// off, or set it past b.N to measure the check itself.
func benchSessionWith(b *testing.B, m loop.Model, initial any, use loop.ToolUse, onEvent func(loop.Event)) *loop.Session {
	b.Helper()
	tools, err := session.ParseTools([]any{map[string]any{
		"name": "noop", "description": "does nothing", "hasExecute": true,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
	}}, false)
	if err != nil {
		b.Fatal(err)
	}
	s, err := loop.New(loop.Options{Model: m, Runner: noop, Tools: tools, InitialPrompts: initial,
		ToolUse: use, ContextWindow: 1 << 40, OnEvent: onEvent})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Destroy)
	return s
}

// BenchmarkClosedLoopStep measures one closed-loop step: the model's call comes in, is
// validated and run (a no-op tool), its result goes into the history, and the next model
// request goes out. One prompt runs b.N steps, so ns/op is the cost of one step.
// Budget (DESIGN.md §5): 50 µs.
func BenchmarkClosedLoopStep(b *testing.B) {
	s := benchSession(b, &stepper{calls: b.N, args: jsonv.RawMessage(`{"n":1}`)}, nil)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := s.Prompt(context.Background(), "go", loop.PromptOptions{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkClosedLoopStep_Stops is BenchmarkClosedLoopStep with the stops of
// toolUseConfig on, as a page gets them by default and more: maxRepeatedCalls counting
// every call (set past b.N, since the stepper repeats one call) and a token budget
// checked at every step. What the stops and the token budget (docs/design.md,
// maxTokens) cost a step.
func BenchmarkClosedLoopStep_Stops(b *testing.B) {
	s := benchSessionWith(b, &stepper{calls: b.N, args: jsonv.RawMessage(`{"n":1}`)}, nil,
		loop.ToolUse{MaxToolCalls: 1 << 30, MaxRepeatedCalls: 1 << 30, MaxTokens: 1 << 62}, nil)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := s.Prompt(context.Background(), "go", loop.PromptOptions{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkClosedLoopStep_StepUsage is BenchmarkClosedLoopStep with a stepusage
// listener: what a page that listens pays per step (the event built and timed, the
// totals published for its handler). Without a listener a step pays a few additions.
func BenchmarkClosedLoopStep_StepUsage(b *testing.B) {
	steps := 0
	s := benchSessionWith(b, &stepper{calls: b.N, args: jsonv.RawMessage(`{"n":1}`)}, nil,
		loop.ToolUse{MaxToolCalls: 1 << 30, MaxRepeatedCalls: -1},
		func(e loop.Event) {
			if e.Type == loop.EventStepUsage {
				steps++
			}
		})
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := s.Prompt(context.Background(), "go", loop.PromptOptions{}); err != nil {
		b.Fatal(err)
	}
	if steps != b.N+1 {
		b.Fatalf("%d stepusage events for %d steps", steps, b.N+1)
	}
}

// BenchmarkPrompt_10kHistory measures a prompt with a text answer on a session whose
// history holds 10,000 messages. Budget (DESIGN.md §5): 2 ms.
func BenchmarkPrompt_10kHistory(b *testing.B) {
	initial := make([]any, 0, 10000)
	for i := 0; i < 5000; i++ {
		initial = append(initial,
			map[string]any{"role": "user", "content": fmt.Sprint("question ", i)},
			map[string]any{"role": "assistant", "content": fmt.Sprint("answer ", i)})
	}
	s := benchSession(b, &stepper{}, initial)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Prompt(context.Background(), "hi", loop.PromptOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoopLength runs prompts of 10, 100 and 1,000 closed-loop steps and reports
// the cost per step: it must stay flat (linear total cost), never grow with the loop.
func BenchmarkLoopLength(b *testing.B) {
	for _, steps := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(steps, "steps"), func(b *testing.B) {
			m := &stepper{calls: steps, args: jsonv.RawMessage(`{"n":1}`)}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := benchSession(b, m, nil)
				b.StartTimer()
				if _, err := s.Prompt(context.Background(), "go", loop.PromptOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
		})
	}
}
