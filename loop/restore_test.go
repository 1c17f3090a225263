package loop_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// savedHistory is a transcript saved mid-loop: the model called weather (c1) and
// lookup (c2), and neither was answered.
const savedHistory = `[{"role":"system","content":"Be brief."},
{"role":"user","content":"Weather in Paris?"},
{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"weather","arguments":{"city":"Paris"}}}]},
{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c2","name":"lookup","arguments":{}}}]}]`

// TestRestore_PendingCalls restores a transcript saved with two calls unanswered and
// checks what becomes of each, by mode and by whether its execute was running, then
// what the next prompt does.
func TestRestore_PendingCalls(t *testing.T) {
	tests := []struct {
		name      string
		execute   [2]bool // weather, lookup have execute
		running   []string
		restored  []string // the transcript's tail after restore
		resuming  []string
		prompt    bool     // prompt "go" next
		after     []string // the transcript's tail after that prompt
		approvals int
	}{
		{
			name:      "closed: a running call is answered as interrupted, one not started runs at the next prompt",
			execute:   [2]bool{true, true},
			running:   []string{"c1"},
			restored:  []string{`call c1 weather{"city":"Paris"}`, `call c2 lookup{}`, "error c1 weather: " + session.Interrupted},
			resuming:  []string{"c2"},
			prompt:    true,
			after:     []string{"error c1 weather: " + session.Interrupted, `result c2 lookup [{"type":"object","value":{}}]`, "user: go", "assistant: Done."},
			approvals: 1,
		},
		{
			name:      "closed: calls whose approval was pending are asked again",
			execute:   [2]bool{true, true},
			restored:  []string{`call c1 weather{"city":"Paris"}`, `call c2 lookup{}`},
			resuming:  []string{"c1", "c2"},
			prompt:    true,
			after:     []string{`result c1 weather [{"type":"object","value":{"city":"Paris"}}]`, `result c2 lookup [{"type":"object","value":{}}]`, "user: go", "assistant: Done."},
			approvals: 2,
		},
		{
			name:     "open: unanswered calls stay the page's",
			running:  []string{"c1"},
			restored: []string{`call c1 weather{"city":"Paris"}`, `call c2 lookup{}`},
		},
		{
			name:     "hybrid: a running call is handed back to the page, a page call stays the page's",
			execute:  [2]bool{true, false},
			running:  []string{"c1"},
			restored: []string{`call c1 weather{"city":"Paris"}`, `call c2 lookup{}`},
		},
		{
			name:      "hybrid: a call not started runs at the next prompt, the page's call is repaired",
			execute:   [2]bool{true, false},
			restored:  []string{`call c1 weather{"city":"Paris"}`, `call c2 lookup{}`},
			resuming:  []string{"c1"},
			prompt:    true,
			after:     []string{`result c1 weather [{"type":"object","value":{"city":"Paris"}}]`, "error c2 lookup: " + session.Repaired, "user: go", "assistant: Done."},
			approvals: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &page{funcs: map[string]toolFunc{"weather": echo, "lookup": echo}}
			tools, err := session.ParseTools(js(t, `[`+mustJSON(decl("weather", tt.execute[0], weatherSchema))+`,`+mustJSON(decl("lookup", tt.execute[1], ""))+`]`), true)
			require.NoError(t, err)
			var approvals atomic.Int32 // a batch's calls are approved concurrently
			use := loop.ToolUse{Approve: func(loop.Context, session.ToolCall, *session.Tool) (bool, string, error) {
				approvals.Add(1)
				return true, "", nil
			}}
			s, err := loop.Restore(loop.Options{Model: scripted.New(scripted.Turn{Text: "Done."}), Runner: p, Tools: tools, ToolUse: use},
				loop.Saved{Messages: jsonv.RawMessage(savedHistory), Initial: 1, Running: tt.running})
			require.NoError(t, err)
			t.Cleanup(s.Destroy)
			h := history(s)
			require.Equal(t, []string{"system: Be brief.", "user: Weather in Paris?"}, h[:2])
			require.Equal(t, tt.restored, h[2:])
			require.Equal(t, tt.resuming, s.Resuming())
			if !tt.prompt {
				return
			}
			_, err = s.Prompt(context.Background(), "go", loop.PromptOptions{})
			require.NoError(t, err)
			h = history(s)
			require.Equal(t, tt.after, h[len(h)-len(tt.after):])
			require.Equal(t, tt.approvals, int(approvals.Load()))
		})
	}
}

// TestRestore_KeepsWhatWasSaved checks that a restored session has the saved usage and
// initial prompts, and takes tool calls and responses in its own transcript without
// their declaration in expectedInputs (create() would refuse them as initialPrompts).
func TestRestore_KeepsWhatWasSaved(t *testing.T) {
	h := `[{"role":"user","content":"Hi"},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"weather","arguments":{"city":"Oslo"}}}]},
{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"weather","result":[{"type":"text","value":"Rain"}]}}]},{"role":"assistant","content":"Rain."}]`
	tools, err := session.ParseTools(js(t, `[`+mustJSON(decl("weather", true, weatherSchema))+`]`), false)
	require.NoError(t, err)
	opts := loop.Options{Model: scripted.New(), Runner: &page{}, Tools: tools}
	_, err = loop.New(loop.Options{Model: opts.Model, Runner: opts.Runner, Tools: tools, InitialPrompts: jsonv.RawMessage(h)})
	require.Equal(t, session.KindNotSupported, session.KindOf(err), "create() needs the declaration")

	s, err := loop.Restore(opts, loop.Saved{Messages: jsonv.RawMessage(h), Initial: 1, Usage: 4321})
	require.NoError(t, err)
	t.Cleanup(s.Destroy)
	require.Equal(t, 4321, s.ContextUsage())
	require.Len(t, s.Messages(), 4)
	require.Empty(t, s.Resuming())
}

// TestRestore_BadSnapshot checks that a transcript that cannot be restored is refused
// with the right error.
func TestRestore_BadSnapshot(t *testing.T) {
	tests := []struct {
		name    string
		history string
		initial int
		want    session.Kind
	}{
		{"more initial prompts than messages", `[{"role":"user","content":"Hi"}]`, 2, session.KindData},
		{"a negative initial count", `[{"role":"user","content":"Hi"}]`, -1, session.KindData},
		{"a result that answers an earlier answered call", `[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"t","arguments":{}}}]},{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"t","arguments":{}}}]}]`, 0, session.KindSyntax},
		{"an unknown role", `[{"role":"robot","content":"Hi"}]`, 0, session.KindType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loop.Restore(loop.Options{Model: scripted.New()}, loop.Saved{Messages: jsonv.RawMessage(tt.history), Initial: tt.initial})
			require.Equal(t, tt.want, session.KindOf(err), "%v", err)
		})
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	must(err)
	return string(b)
}

// TestRestore_EmptyHistory: a session saved before anything was said restores empty (an
// empty sequence as a prompt is one empty user message; as a saved history, nothing).
func TestRestore_EmptyHistory(t *testing.T) {
	for _, h := range []any{jsonv.RawMessage(`[]`), []any{}, nil} {
		s, err := loop.Restore(loop.Options{Model: scripted.New()}, loop.Saved{Messages: h})
		require.NoError(t, err)
		require.Empty(t, s.Messages())
		s.Destroy()
	}
}

// TestRestore_PendingCallAsksApproval: a snapshot's pending call to a tool that needs
// approval is never run at the next prompt without approve saying yes (docs/snapshots.md,
// "What was running when the page died"): refused without approve, asked with it.
func TestRestore_PendingCallAsksApproval(t *testing.T) {
	for _, tt := range []struct {
		name  string
		use   func(asked *atomic.Int32) loop.ToolUse
		ran   int
		asked int32
	}{
		{name: "without approve it is refused", use: func(*atomic.Int32) loop.ToolUse { return loop.ToolUse{} }},
		// The two calls are asked about concurrently (parallel tools): the count is atomic.
		{name: "approve is asked (about both pending calls), and its no holds", asked: 2, use: func(asked *atomic.Int32) loop.ToolUse {
			return loop.ToolUse{Approve: func(loop.Context, session.ToolCall, *session.Tool) (bool, string, error) {
				asked.Add(1)
				return false, "", nil
			}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &page{funcs: map[string]toolFunc{"weather": echo, "lookup": echo}}
			w := decl("weather", true, weatherSchema).(map[string]any)
			w["annotations"] = map[string]any{"destructiveHint": true}
			tools, err := session.ParseTools(js(t, `[`+mustJSON(w)+`,`+mustJSON(decl("lookup", true, ""))+`]`), true)
			require.NoError(t, err)
			var asked atomic.Int32
			s, err := loop.Restore(loop.Options{Model: scripted.New(scripted.Turn{Text: "Done."}), Runner: p, Tools: tools, ToolUse: tt.use(&asked)},
				loop.Saved{Messages: jsonv.RawMessage(savedHistory), Initial: 1})
			require.NoError(t, err)
			t.Cleanup(s.Destroy)
			_, err = s.Prompt(context.Background(), "go", loop.PromptOptions{})
			require.NoError(t, err)
			require.NotContains(t, p.Ran(), `weather{"city":"Paris"}`)
			require.Equal(t, tt.asked, asked.Load())
		})
	}
}
