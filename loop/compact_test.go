package loop_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// summarizing answers the loop's summary request with summary, and plays script
// otherwise: a model whose summaries come whenever the loop asks for them.
type summarizing struct {
	*scripted.Script
	summary string
	asked   int
	fail    error // the summary step's error
	hang    bool  // the summary step waits until it is aborted
}

func (m *summarizing) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Text() == loop.SummaryPrompt {
		m.asked++
		if len(req.Tools) > 0 || req.ToolChoice.Mode != "none" {
			return session.Errorf(session.KindOperation, session.ErrModel, "the summary step was offered tools")
		}
		if m.hang {
			<-ctx.Done()
			return ctx.Err()
		}
		if m.fail != nil {
			return m.fail
		}
		return emit(loop.Delta{Text: m.summary})
	}
	return m.Script.Step(ctx, req, emit)
}

// compactFixture is a closed session on the weather tool, on a model that summarizes
// when asked, with a history of two prompts: the first made two calls, the second one.
func compactFixture(t *testing.T, window int, extra ...scripted.Turn) (*loop.Session, *summarizing, []session.Tool) {
	turns := []scripted.Turn{
		{Text: "Looking.", Calls: []scripted.Call{call("weather", `{"city":"Paris"}`)}},
		{Calls: []scripted.Call{call("weather", `{"city":"Oslo"}`)}},
		{Text: "Paris and Oslo are fine."},
		{Calls: []scripted.Call{call("weather", `{"city":"Rome"}`)}},
		{Text: "Rome is fine."},
	}
	tools, err := session.ParseTools([]any{decl("weather", true, weatherSchema)}, false)
	require.NoError(t, err)
	m := &summarizing{Script: scripted.New(append(turns, extra...)...), summary: "Paris and Oslo were fine."}
	p := &page{funcs: map[string]toolFunc{"weather": longWeather}}
	s, err := loop.New(loop.Options{Model: m, Runner: p, Tools: tools, OnEvent: p.onEvent, ContextWindow: window,
		InitialPrompts: js(t, `[{"role":"system","content":"be brief"},{"role":"user","content":"hello"},{"role":"assistant","content":"hi"}]`)})
	require.NoError(t, err)
	t.Cleanup(s.Destroy)
	_, err = s.Prompt(context.Background(), "Paris and Oslo?", loop.PromptOptions{})
	require.NoError(t, err)
	_, err = s.Prompt(context.Background(), "Rome?", loop.PromptOptions{})
	require.NoError(t, err)
	return s, m, tools
}

// longWeather returns a result of some 200 bytes: dropping it saves room.
func longWeather(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
	return "the weather in " + args["city"].(string) + " is fine; " + strings.Repeat("details ", 24), nil
}

// TestCompact: session.compact() by its rules, one behaviour per row: the new session's
// history; the original's never changes.
func TestCompact(t *testing.T) {
	stub := func(id, city string) []string {
		return []string{"call " + id + ` weather{"city":"` + city + `"}`, "result " + id + ` weather [{"type":"text","value":"` + session.Dropped + `"}]`}
	}
	initial := []string{"system: be brief", "user: hello", "assistant: hi"}
	rome := []string{"user: Rome?", `call call_3 weather{"city":"Rome"}`, "result call_3 weather", "assistant: Rome is fine."}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name string
		c    loop.Compaction
		want []string // "result <id> <name>" alone stands for the tool's own, long result
		asks int      // summary steps
	}{
		{
			name: "results older than the kept turns become stubs, their calls stay",
			c:    loop.Compaction{KeepTurns: 3, DropResults: true},
			want: cat(initial, []string{"user: Paris and Oslo?", "assistant: Looking."}, stub("call_1", "Paris"), stub("call_2", "Oslo"),
				[]string{"assistant: Paris and Oslo are fine."}, rome),
		},
		{
			name: "a turn is one model step: keepTurns 1 leaves Rome's call out of the kept turns",
			c:    loop.Compaction{KeepTurns: 1, DropResults: true},
			want: cat(initial, []string{"user: Paris and Oslo?", "assistant: Looking."}, stub("call_1", "Paris"), stub("call_2", "Oslo"),
				[]string{"assistant: Paris and Oslo are fine.", "user: Rome?"}, stub("call_3", "Rome"), []string{"assistant: Rome is fine."}),
		},
		{
			name: "a summary replaces the older turns; the system prompt and initial prompts stay",
			c:    loop.Compaction{KeepTurns: 3, Summarize: true},
			want: cat(initial, []string{"assistant: " + loop.SummaryLead + "Paris and Oslo were fine."}, rome),
			asks: 1,
		},
		{
			name: "the latest request stays in its words when the summary covers it",
			c:    loop.Compaction{KeepTurns: 1, Summarize: true, DropResults: true},
			want: cat(initial, []string{"assistant: " + loop.SummaryLead + "Paris and Oslo were fine.", "user: Rome?", "assistant: Rome is fine."}),
			asks: 1,
		},
		{
			name: "more kept turns than there are: the history as it was",
			c:    loop.Compaction{KeepTurns: 99, DropResults: true, Summarize: true},
			want: cat(initial, []string{"user: Paris and Oslo?", "assistant: Looking.", `call call_1 weather{"city":"Paris"}`, "result call_1 weather",
				`call call_2 weather{"city":"Oslo"}`, "result call_2 weather", "assistant: Paris and Oslo are fine."}, rome),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, m, tools := compactFixture(t, 0)
			before, usage := history(s), s.ContextUsage()
			steps := s.Usage().Steps
			s2, err := s.Compact(context.Background(), tc.c)
			require.NoError(t, err)
			t.Cleanup(s2.Destroy)
			require.Equal(t, tc.want, shortResults(history(s2)))
			require.Equal(t, before, history(s), "the original is unchanged")
			require.Equal(t, usage, s.ContextUsage())
			require.Equal(t, tc.asks, m.asked)
			require.Equal(t, steps+tc.asks, s2.Usage().Steps, "the summary step is counted")
			require.Equal(t, session.CostOf(s2.Messages())+session.ToolsCost(tools), s2.ContextUsage())
			if tc.c.KeepTurns < 99 {
				require.Less(t, s2.ContextUsage(), usage)
			}
		})
	}
}

// shortResults shortens the tool's own long results to "result <id> <name>".
func shortResults(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, "result ") && strings.Contains(l, "details") {
			f := strings.Fields(l)
			l = strings.Join(f[:3], " ")
		}
		out[i] = l
	}
	return out
}

// TestCompact_Fails: a summary that fails leaves the original as it was and makes no new
// session; the error is the step's.
func TestCompact_Fails(t *testing.T) {
	tests := []struct {
		name, kind, msg string
		setup           func(m *summarizing, cancel func())
	}{
		{"the model's error", "OperationError", "the model failed: out of memory", func(m *summarizing, _ func()) {
			m.fail = session.Errorf(session.KindOperation, session.ErrModel, "out of memory")
		}},
		{"an abort during the summary", "AbortError", "aborted: context canceled", func(m *summarizing, cancel func()) {
			m.hang = true
			go cancel()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, m, _ := compactFixture(t, 0)
			before, usage := history(s), s.ContextUsage()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tc.setup(m, cancel)
			s2, err := s.Compact(ctx, loop.Compaction{KeepTurns: 1, Summarize: true})
			require.Nil(t, s2)
			require.Equal(t, tc.kind, string(session.KindOf(err)))
			require.Equal(t, tc.msg, err.Error())
			require.Equal(t, before, history(s))
			require.Equal(t, usage, s.ContextUsage())
			_, err = s.Prompt(context.Background(), "still there?", loop.PromptOptions{})
			require.ErrorIs(t, err, scripted.ErrExhausted, "the session goes on")
		})
	}
}

// longSession is a closed loop of n steps, each one call whose result is some 300 bytes,
// then an answer, on a window of window units.
func longSession(t *testing.T, n, window int, c *loop.Compaction, summary string) (*loop.Session, *page, *summarizing) {
	turns := make([]scripted.Turn, 0, n+1)
	for i := range n {
		turns = append(turns, scripted.Turn{Calls: []scripted.Call{call("weather", `{"city":"city `+strconv.Itoa(i)+`"}`)}})
	}
	turns = append(turns, scripted.Turn{Text: "All fine."})
	tools, err := session.ParseTools([]any{decl("weather", true, weatherSchema)}, false)
	require.NoError(t, err)
	m := &summarizing{Script: scripted.New(turns...), summary: summary}
	p := &page{funcs: map[string]toolFunc{"weather": func(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
		return "the weather in " + args["city"].(string) + ": " + strings.Repeat("fine ", 60), nil
	}}}
	s, err := loop.New(loop.Options{Model: m, Runner: p, Tools: tools, OnEvent: p.onEvent, ContextWindow: window,
		ToolUse: loop.ToolUse{MaxToolCalls: n + 1}, CompactOnOverflow: c,
		InitialPrompts: js(t, `[{"role":"system","content":"You check the weather of many cities."}]`)})
	require.NoError(t, err)
	t.Cleanup(s.Destroy)
	return s, p, m
}

// TestCompactOnOverflow: a 50-step tool session on a 4,096-unit window runs to its end
// with compactOnOverflow, each compaction one contextoverflow event with the usage before
// and after it; without it the prompt fails as the history cannot fit.
func TestCompactOnOverflow(t *testing.T) {
	tests := []struct {
		name      string
		c         *loop.Compaction
		summary   string
		wantErr   string
		asks      int
		compacted int
		evicted   int // operations that evicted (one contextoverflow each)
	}{
		{name: "without compaction the loop cannot fit", wantErr: "QuotaExceededError"},
		{name: "dropping old results", c: &loop.Compaction{KeepTurns: 2, DropResults: true}, compacted: 1},
		{name: "summarizing old turns", c: &loop.Compaction{KeepTurns: 2, Summarize: true}, summary: "Cities 0 to 30 are fine.", asks: 1, compacted: 1},
		{name: "a summary that does not make the history fit: compacted once, then evicted as without compaction", c: &loop.Compaction{KeepTurns: 2, Summarize: true},
			summary: strings.Repeat("Every city is fine. ", 760), asks: 1, compacted: 1, evicted: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, p, m := longSession(t, 50, 4096, tc.c, tc.summary)
			r, err := s.Prompt(context.Background(), "How is the weather in the 50 cities?", loop.PromptOptions{})
			if tc.wantErr != "" {
				require.Equal(t, tc.wantErr, string(session.KindOf(err)))
				require.Equal(t, []string{"system: You check the weather of many cities."}, history(s))
				return
			}
			require.NoError(t, err)
			require.Equal(t, "All fine.", r.Text)
			require.Len(t, p.Ran(), 50)
			require.Equal(t, tc.asks, m.asked)
			var compactions []string
			evictions := 0
			for _, e := range p.events {
				if e.Type == loop.EventContextOverflow && !e.Compacted {
					evictions++
				} else if e.Type == loop.EventContextOverflow {
					require.Greater(t, e.Before, 4096)
					require.Less(t, e.After, e.Before)
					compactions = append(compactions, strconv.Itoa(e.Before)+" -> "+strconv.Itoa(e.After))
				}
			}
			t.Logf("contextUsage before -> after each compaction: %v; at the end %d", compactions, s.ContextUsage())
			require.Len(t, compactions, tc.compacted)
			require.Equal(t, tc.evicted, evictions, "contextoverflow events of an eviction")
			require.LessOrEqual(t, s.ContextUsage(), 4096)
			msgs := s.Messages()
			require.Equal(t, "system: You check the weather of many cities.", line(msgs[0]), "the system prompt stays")
			require.Equal(t, "user: How is the weather in the 50 cities?", line(msgs[lastUserIndex(msgs)]), "the request stays")
			requirePaired(t, msgs)
		})
	}
}

func lastUserIndex(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			return i
		}
	}
	return -1
}

// requirePaired holds every call in msgs to be answered by one result after it, and every
// result to answer a call before it.
func requirePaired(t *testing.T, msgs []session.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		if c := m.Call(); c != nil {
			open[c.CallID] = true
		} else if r := m.Result(); r != nil {
			require.True(t, open[r.CallID], "result %s answers no call before it", r.CallID)
			delete(open, r.CallID)
		}
	}
	require.Empty(t, open, "calls without a result")
}
