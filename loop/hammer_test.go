package loop_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// TestSession_hammer runs prompts, appends, clones, aborts, reads and a destroy against one
// session from many goroutines. Run with -race. Every operation must end (no deadlock),
// every error must be classified, and the history must stay well formed: every result
// answers an earlier open call.
func TestSession_hammer(t *testing.T) {
	model := &scripted.Rules{Rules: []scripted.Rule{{Match: "tool", Tool: "t", Arguments: jsonv.RawMessage(`{}`)}}}
	tools, err := session.ParseTools([]any{decl("t", true, "")}, false)
	require.NoError(t, err)
	runner := loop.RunnerFunc(func(ctx loop.Context, c session.ToolCall, progress func(jsonv.RawMessage)) ([]session.ResultPart, error) {
		progress(jsonv.RawMessage(`1`))
		return []session.ResultPart{{Type: "text", Text: "ok"}}, nil
	})
	s, err := loop.New(loop.Options{Model: model, Runner: runner, Tools: tools, ContextWindow: 400, OnEvent: func(loop.Event) {}})
	require.NoError(t, err)

	const workers, ops = 8, 40
	var wg sync.WaitGroup
	var clones sync.Map
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < ops; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				if rng.Intn(5) == 0 {
					cancel()
				}
				var err error
				switch rng.Intn(6) {
				case 0, 1:
					_, err = s.Prompt(ctx, fmt.Sprint("use the tool ", w, i), loop.PromptOptions{})
				case 2:
					_, err = s.Prompt(ctx, fmt.Sprint("chat ", w, i), loop.PromptOptions{OnChunk: func(loop.Chunk) {}})
				case 3:
					err = s.Append(ctx, fmt.Sprint("note ", w, i))
				case 4:
					var c *loop.Session
					if c, err = s.Clone(ctx); err == nil {
						clones.Store(c, true)
						_, _ = c.Prompt(context.Background(), "clone", loop.PromptOptions{})
					}
				case 5:
					_ = s.History()
					_ = s.ContextUsage()
					_, err = s.MeasureContextUsage("x")
				}
				cancel()
				if err != nil {
					require.Contains(t, []session.Kind{session.KindAbort, session.KindInvalidState, session.KindQuotaExceeded}, session.KindOf(err), "%v", err)
				}
				if w == 0 && i == ops/2 {
					s.Destroy()
				}
			}
		}(w)
	}
	wg.Wait()
	var all []*loop.Session
	clones.Range(func(k, _ any) bool { all = append(all, k.(*loop.Session)); return true })
	for _, x := range append(all, s) {
		open := map[string]bool{}
		for _, m := range x.Messages() {
			if c := m.Call(); c != nil {
				open[c.CallID] = true
			}
			if r := m.Result(); r != nil {
				require.True(t, open[r.CallID])
				delete(open, r.CallID)
			}
		}
		x.Destroy()
	}
}
