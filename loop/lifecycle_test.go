package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

func TestParallelCalls_RunConcurrentlyAndResultsKeepCallOrder(t *testing.T) {
	started := make(chan struct{}, 3)
	release := make(chan struct{})
	var order []string
	var mu sync.Mutex
	finished := map[float64]chan struct{}{1: make(chan struct{}), 2: make(chan struct{}), 3: make(chan struct{}), 4: make(chan struct{})}
	close(finished[4])
	slowFirst := func(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
		started <- struct{}{}
		<-release // all three must be running at once for this to return
		n := args["n"].(float64)
		<-finished[n+1] // call n ends after call n+1: the first call finishes last
		defer close(finished[n])
		mu.Lock()
		order = append(order, fmt.Sprint(n))
		mu.Unlock()
		return fmt.Sprint(n), nil
	}
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("t", `{"n":1}`), call("t", `{"n":2}`), call("t", `{"n":3}`)}}, {Text: "ok"}},
		tools: []any{decl("t", true, "")},
		funcs: map[string]toolFunc{"t": slowFirst},
	})
	go func() {
		for i := 0; i < 3; i++ {
			<-started
		}
		close(release)
	}()
	_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"3", "2", "1"}, order, "finish order")
	require.Equal(t, []string{
		"user: go", `call call_1 t{"n":1}`, `call call_2 t{"n":2}`, `call call_3 t{"n":3}`,
		`result call_1 t [{"type":"text","value":"1"}]`, `result call_2 t [{"type":"text","value":"2"}]`, `result call_3 t [{"type":"text","value":"3"}]`,
		"assistant: ok",
	}, history(f.s))
}

func TestSequentialCalls_NeverOverlap(t *testing.T) {
	var running, most atomic.Int32
	tool := func(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
		n := running.Add(1)
		if n > most.Load() {
			most.Store(n)
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		return "ok", nil
	}
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("t", `{}`), call("t", `{}`), call("t", `{}`)}}, {Text: "done"}},
		tools: []any{decl("t", true, "")},
		funcs: map[string]toolFunc{"t": tool},
		use:   loop.ToolUse{Sequential: true},
	})
	_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(1), most.Load())
	require.Len(t, f.page.Ran(), 3)
}

func TestAbort(t *testing.T) {
	t.Run("a tool that never returns until aborted", func(t *testing.T) {
		toolCtxDone := make(chan struct{})
		hang := func(ctx loop.Context, _ map[string]any, _ func(jsonv.RawMessage)) (any, error) {
			<-ctx.Done()
			close(toolCtxDone)
			return nil, ctx.Err()
		}
		f := newFixture(t, setup{
			turns: []scripted.Turn{{Calls: []scripted.Call{call("hang", `{}`)}}},
			tools: []any{decl("hang", true, "")},
			funcs: map[string]toolFunc{"hang": hang},
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for len(f.page.Ran()) == 0 {
				time.Sleep(100 * time.Microsecond)
			}
			cancel()
		}()
		_, err := f.s.Prompt(ctx, "go", loop.PromptOptions{})
		require.Equal(t, session.KindAbort, kindOf(err))
		require.Empty(t, history(f.s), "an aborted prompt leaves the history as it was")
		require.Equal(t, []string{"user: go", "call call_1 hang{}"}, transcript(err))
		<-toolCtxDone
	})
	t.Run("a model step that hangs", func(t *testing.T) {
		f := newFixture(t, setup{turns: []scripted.Turn{{Chunks: []string{"Once ", "upon"}, Hang: true}}})
		ctx, cancel := context.WithCancel(context.Background())
		var chunks []string
		_, err := f.s.Prompt(ctx, "story", loop.PromptOptions{OnChunk: func(c loop.Chunk) {
			chunks = append(chunks, c.Text)
			if len(chunks) == 2 {
				cancel()
			}
		}})
		require.Equal(t, session.KindAbort, kindOf(err))
		require.Equal(t, []string{"Once ", "upon"}, chunks)
		require.Empty(t, history(f.s))
	})
	t.Run("a prompt aborted while queued is removed and the rest keep order", func(t *testing.T) {
		gate := make(chan struct{})
		f := newFixture(t, setup{
			turns: []scripted.Turn{{Calls: []scripted.Call{call("wait", `{}`)}}, {Text: "first"}, {Text: "third"}},
			tools: []any{decl("wait", true, "")},
			funcs: map[string]toolFunc{"wait": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { <-gate; return "ok", nil }},
		})
		type out struct {
			r   loop.Result
			err error
		}
		results := make([]chan out, 3)
		ctx2, cancel2 := context.WithCancel(context.Background())
		for i, ctx := range []loop.Context{context.Background(), ctx2, context.Background()} {
			results[i] = make(chan out, 1)
			ch := results[i]
			f.s.PromptAsync(ctx, fmt.Sprint("p", i), loop.PromptOptions{}, func(r loop.Result, err error) { ch <- out{r, err} })
		}
		cancel2()
		second := <-results[1]
		require.Equal(t, session.KindAbort, kindOf(second.err), "rejected at once, while queued")
		close(gate)
		first, third := <-results[0], <-results[2]
		require.NoError(t, first.err)
		require.NoError(t, third.err)
		require.Equal(t, "first", first.r.Text)
		require.Equal(t, "third", third.r.Text)
		require.Equal(t, []string{"user: p0", "call call_1 wait{}", `result call_1 wait [{"type":"text","value":"ok"}]`, "assistant: first", "user: p2", "assistant: third"}, history(f.s))
	})
}

func TestConcurrentPrompts_QueueInCallOrder(t *testing.T) {
	const n = 30
	turns := make([]scripted.Turn, n)
	for i := range turns {
		turns[i] = scripted.Turn{Text: fmt.Sprint("r", i)}
	}
	f := newFixture(t, setup{turns: turns})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		if i%3 == 2 {
			f.s.AppendAsync(context.Background(), fmt.Sprint("a", i), func(err error) { require.NoError(t, err); wg.Done() })
			continue
		}
		f.s.PromptAsync(context.Background(), fmt.Sprint("p", i), loop.PromptOptions{}, func(r loop.Result, err error) { require.NoError(t, err); wg.Done() })
	}
	wg.Wait()
	var want []string
	r := 0
	for i := 0; i < n; i++ {
		if i%3 == 2 {
			want = append(want, fmt.Sprint("user: a", i))
			continue
		}
		want = append(want, fmt.Sprint("user: p", i), fmt.Sprint("assistant: r", r))
		r++
	}
	require.Equal(t, want, history(f.s))
}

func TestDestroy(t *testing.T) {
	toolCtxDone := make(chan struct{})
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("hang", `{}`)}}},
		tools: []any{decl("hang", true, "")},
		funcs: map[string]toolFunc{"hang": func(ctx loop.Context, _ map[string]any, _ func(jsonv.RawMessage)) (any, error) {
			<-ctx.Done()
			close(toolCtxDone)
			return nil, ctx.Err()
		}},
	})
	inFlight := make(chan error, 1)
	queued := make(chan error, 1)
	f.s.PromptAsync(context.Background(), "first", loop.PromptOptions{}, func(_ loop.Result, err error) { inFlight <- err })
	f.s.AppendAsync(context.Background(), "second", func(err error) { queued <- err })
	for len(f.page.Ran()) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	f.s.Destroy()
	for _, ch := range []chan error{inFlight, queued} {
		err := <-ch
		require.Equal(t, session.KindAbort, kindOf(err))
		require.ErrorIs(t, err, session.ErrDestroyed)
	}
	<-toolCtxDone
	_, err := f.s.Prompt(context.Background(), "later", loop.PromptOptions{})
	require.Equal(t, session.KindInvalidState, kindOf(err))
	require.Equal(t, session.KindInvalidState, kindOf(f.s.Append(context.Background(), "later")))
	_, err = f.s.Clone(context.Background())
	require.Equal(t, session.KindInvalidState, kindOf(err))
	_, err = f.s.MeasureContextUsage("later")
	require.Equal(t, session.KindInvalidState, kindOf(err))
}

func TestClone_IsIndependent(t *testing.T) {
	f := newFixture(t, setup{
		turns:   []scripted.Turn{{Text: "a1"}, {Text: "b1"}, {Text: "c1"}},
		initial: `[{"role":"system","content":"Be brief."}]`,
	})
	_, err := f.s.Prompt(context.Background(), "q1", loop.PromptOptions{})
	require.NoError(t, err)
	c, err := f.s.Clone(context.Background())
	require.NoError(t, err)
	require.Equal(t, f.s.ContextUsage(), c.ContextUsage())
	require.Equal(t, f.s.ContextWindow(), c.ContextWindow())
	_, err = c.Prompt(context.Background(), "clone asks", loop.PromptOptions{})
	require.NoError(t, err)
	_, err = f.s.Prompt(context.Background(), "original asks", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"system: Be brief.", "user: q1", "assistant: a1", "user: clone asks", "assistant: b1"}, history(c))
	require.Equal(t, []string{"system: Be brief.", "user: q1", "assistant: a1", "user: original asks", "assistant: c1"}, history(f.s))
	c.Destroy()
	_, err = f.s.MeasureContextUsage("still alive")
	require.NoError(t, err, "destroying a clone leaves the original alive")
}

func TestOpenLoop_DanglingCalls(t *testing.T) {
	twoCalls := scripted.Turn{Calls: []scripted.Call{call("w", `{"city":"A"}`), call("w", `{"city":"B"}`)}}
	tests := []struct {
		name    string
		then    func(s *loop.Session) error
		history []string
		kind    session.Kind
	}{
		{
			name: "a new prompt answers every unanswered call first",
			then: func(s *loop.Session) error {
				_, err := s.Prompt(context.Background(), "never mind", loop.PromptOptions{})
				return err
			},
			history: []string{"user: q", `call call_1 w{"city":"A"}`, `call call_2 w{"city":"B"}`,
				"error call_1 w: " + session.Repaired, "error call_2 w: " + session.Repaired, "user: never mind", "assistant: fine"},
		},
		{
			name: "a prompt with some results answers the rest",
			then: func(s *loop.Session) error {
				_, err := s.Prompt(context.Background(), []any{map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool-response", "value": map[string]any{"callId": "call_2", "name": "w", "result": []any{map[string]any{"type": "text", "value": "rain"}}}},
				}}}, loop.PromptOptions{})
				return err
			},
			history: []string{"user: q", `call call_1 w{"city":"A"}`, `call call_2 w{"city":"B"}`,
				`result call_2 w [{"type":"text","value":"rain"}]`, "error call_1 w: " + session.Repaired, "assistant: fine"},
		},
		{
			name: "an append of results alone leaves the other calls pending",
			then: func(s *loop.Session) error {
				return s.Append(context.Background(), []any{map[string]any{"role": "tool-result", "content": []any{
					map[string]any{"type": "tool-result", "value": map[string]any{"callID": "call_1", "name": "w", "errorMessage": "no such city"}},
				}}})
			},
			history: []string{"user: q", `call call_1 w{"city":"A"}`, `call call_2 w{"city":"B"}`, "error call_1 w: no such city"},
		},
		{
			name: "a result for a call the session never made is kept, unpaired, and leaves the other call pending",
			then: func(s *loop.Session) error {
				return s.Append(context.Background(), []any{map[string]any{"role": "tool-result", "content": []any{
					map[string]any{"type": "tool-result", "value": map[string]any{"callID": "call_1", "name": "w", "errorMessage": "x"}},
					map[string]any{"type": "tool-result", "value": map[string]any{"callID": "call_9", "name": "w", "errorMessage": "x"}},
				}}})
			},
			history: []string{"user: q", `call call_1 w{"city":"A"}`, `call call_2 w{"city":"B"}`, "error call_1 w: x", "unpaired error call_9 w: x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{turns: []scripted.Turn{twoCalls, {Text: "fine"}}, tools: []any{decl("w", false, "")},
				inputs: session.Expected{ToolResponse: true}})
			r, err := f.s.Prompt(context.Background(), "q", loop.PromptOptions{})
			require.NoError(t, err)
			require.Len(t, r.Calls, 2)
			err = tc.then(f.s)
			require.Equal(t, tc.kind, kindOf(err))
			require.Equal(t, tc.history, history(f.s))
		})
	}
}

func TestStreaming_Chunks(t *testing.T) {
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Chunks: []string{"Look", "ing"}, Calls: []scripted.Call{call("run", `{}`), call("ask", `{"q":1}`)}}},
		tools: []any{decl("run", true, ""), decl("ask", false, "")},
		funcs: map[string]toolFunc{"run": echo},
	})
	var got []string
	_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{OnChunk: func(c loop.Chunk) {
		if c.Call != nil {
			got = append(got, "call "+c.Call.Name)
		} else {
			got = append(got, c.Text)
		}
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"Look", "ing", "call ask"}, got, "text as it comes, then each call handed to the page")
}

func TestEvents(t *testing.T) {
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("slow", `{}`)}}, {Text: "ok"}},
		tools: []any{decl("slow", true, "")},
		funcs: map[string]toolFunc{"slow": func(_ loop.Context, _ map[string]any, progress func(jsonv.RawMessage)) (any, error) {
			progress(jsonv.RawMessage(`0.5`))
			return "done", nil
		}},
	})
	_, err := f.s.Prompt(context.Background(), "go", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"toolcall:slow", "toolprogress:slow", "toolresult:slow"}, f.page.eventTypes())
	res := f.page.events[2].Result
	require.Equal(t, "done", res.Parts[0].Text)
	require.Equal(t, jsonv.RawMessage(`0.5`), f.page.events[1].Progress)
}

func TestHistory_ExportEditAndFeedBack(t *testing.T) {
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("cart", `{}`)}}, {Text: "Your cart has 2 items."}},
		tools: []any{decl("cart", true, "")},
		funcs: map[string]toolFunc{"cart": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) {
			return map[string]any{"items": []string{"a long description of item one", "a long description of item two"}}, nil
		}},
		initial: `[{"role":"system","content":"Shop."}]`,
	})
	_, err := f.s.Prompt(context.Background(), "What is in my cart?", loop.PromptOptions{})
	require.NoError(t, err)

	var exported []map[string]any
	require.NoError(t, json.Unmarshal(f.s.History(), &exported))
	require.Len(t, exported, 5)
	require.Equal(t, "tool-call", exported[2]["role"])
	call := exported[2]["content"].([]any)[0].(map[string]any)["value"].(map[string]any)
	require.Equal(t, call["callID"], call["callId"], "both spellings")

	// Compress: replace the tool result by a summary, then recreate from the edited history.
	result := exported[3]["content"].([]any)[0].(map[string]any)["value"].(map[string]any)
	result["result"] = []any{map[string]any{"type": "text", "value": "2 items"}}
	edited, _ := json.Marshal(exported)
	undeclared := newFixture(t, setup{initial: string(edited), tools: []any{decl("cart", true, "")}, funcs: f.page.funcs})
	require.EqualError(t, undeclared.create, `content type not declared in expectedInputs: message 2 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`,
		"the calls and results fed back are the page's input: they need their types declared")
	g := newFixture(t, setup{initial: string(edited), tools: []any{decl("cart", true, "")}, funcs: f.page.funcs,
		inputs: session.Expected{ToolCall: true, ToolResponse: true}})
	require.NoError(t, g.create)
	require.Less(t, g.s.ContextUsage(), f.s.ContextUsage())
	require.Equal(t, `result call_1 cart [{"type":"text","value":"2 items"}]`, history(g.s)[3])

	exported[0]["role"] = "wizard" // the export is a copy: editing it changed nothing
	require.Equal(t, "system: Shop.", history(f.s)[0])
}

func TestCloneAsync_TakesItsTurnAndGetsItsOwnHooks(t *testing.T) {
	gate := make(chan struct{})
	f := newFixture(t, setup{
		turns: []scripted.Turn{{Calls: []scripted.Call{call("t", `{}`)}}, {Text: "first"}, {Text: "second"}, {Calls: []scripted.Call{call("t", `{}`)}}, {Text: "clone done"}},
		tools: []any{decl("t", true, "")},
		funcs: map[string]toolFunc{"t": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { <-gate; return "ok", nil }},
	})
	first := make(chan error, 1)
	f.s.PromptAsync(context.Background(), "one", loop.PromptOptions{}, func(_ loop.Result, err error) { first <- err })
	var cloneEvents []string
	var mu sync.Mutex
	cloned := make(chan *loop.Session, 1)
	f.s.CloneAsync(context.Background(), func(o *loop.Options) {
		o.Listens = func(t loop.EventType) bool { return t != loop.EventStepUsage }
		o.OnEvent = func(e loop.Event) { mu.Lock(); cloneEvents = append(cloneEvents, string(e.Type)); mu.Unlock() }
	}, func(c *loop.Session, err error) { require.NoError(t, err); cloned <- c })
	later := make(chan string, 1)
	f.s.PromptAsync(context.Background(), "two", loop.PromptOptions{}, func(r loop.Result, err error) { require.NoError(t, err); later <- r.Text })
	close(gate)
	require.NoError(t, <-first)
	c := <-cloned
	defer c.Destroy()
	require.Equal(t, []string{"user: one", "call call_1 t{}", `result call_1 t [{"type":"text","value":"ok"}]`, "assistant: first"}, history(c), "the copy is made after the prompt before it")
	require.Equal(t, "second", <-later, "the prompt after the clone runs after the copy")
	_, err := c.Prompt(context.Background(), "in the clone", loop.PromptOptions{})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"toolcall", "toolresult"}, cloneEvents, "the clone reports to its own hook")
}
