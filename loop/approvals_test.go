package loop_test

import (
	"context"
	"langmodel/internal/jsonv"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// wipeTool is server a's destructive wipe, as the engine holds it; change alters a copy.
func wipeTool(t *testing.T, change func(*session.Tool)) *session.Tool {
	t.Helper()
	tools, err := session.ParseTools([]any{map[string]any{"name": "wipe", "description": "Wipes the disk.", "hasExecute": true,
		"inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"destructiveHint": true}}}, true)
	require.NoError(t, err)
	w := &tools[0]
	w.MCPResult = true
	w.Source = session.Source{Kind: session.SourceMCP, Server: "a", Origin: "https://a.test", Fn: 0, Ref: "wipe"}
	if change != nil {
		change(w)
	}
	return w
}

// TestApprovals_Remembered: a decision remembered (approve answered {allow: "always"};
// loop/approvals.go) answers a call without asking only when the tool that will run
// declares exactly what was allowed; anything else asks again.
func TestApprovals_Remembered(t *testing.T) {
	other := false
	rows := []struct {
		name       string
		remembered func(*session.Tool) // the declaration allowed, from the live one's
		live       func(*session.Tool) // the tool the model calls
		revoke     bool                // the page revokes every decision before the call
		asked      bool
	}{
		{name: "the declaration allowed runs unasked"},
		{name: "the same declaration on another route (a reload's stash id, the server's index) runs unasked",
			live: func(w *session.Tool) { w.Source.Fn = 7 }},
		{name: "a changed annotation asks again", live: func(w *session.Tool) { w.Annotations.ReadOnlyHint = &other }, asked: true},
		{name: "an annotation turned off asks again", live: func(w *session.Tool) { w.Annotations.DestructiveHint = &other }, asked: true},
		{name: "a changed schema asks again", live: func(w *session.Tool) { w.InputSchema = jsonv.RawMessage(`{"properties":{},"type":"object"}`) }, asked: true},
		{name: "a changed description asks again", live: func(w *session.Tool) { w.Description = "Wipes the backups too." }, asked: true},
		{name: "the tool moved to another MCP server asks again", live: func(w *session.Tool) { w.Source.Server, w.Source.Origin = "b", "https://b.test" }, asked: true},
		{name: "another origin under the same server name asks again", live: func(w *session.Tool) { w.Source.Origin = "https://evil.test" }, asked: true},
		{name: "a WebMCP tool of the same declaration asks again", live: func(w *session.Tool) { w.Source = session.Source{Kind: session.SourceWebMCP} }, asked: true},
		{name: "the tool renamed (a server's a__wipe) asks again", live: func(w *session.Tool) { w.Name = "a__wipe" }, asked: true},
		{name: "a revoked decision asks again", revoke: true, asked: true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			live := wipeTool(t, row.live)
			var shown []session.Source // approve runs on the loop's goroutine: no require there
			approve := func(_ loop.Context, _ session.ToolCall, tool *session.Tool) (bool, string, error) {
				shown = append(shown, tool.Source)
				return true, "", nil
			}
			p := &page{funcs: map[string]toolFunc{live.Name: returns("wiped")}}
			model := scripted.New(scripted.Turn{Calls: []scripted.Call{call(live.Name, `{}`)}}, scripted.Turn{Text: "Done."})
			s, err := loop.New(loop.Options{Model: model, Runner: p, Tools: []session.Tool{*live}, ToolUse: loop.ToolUse{Approve: approve}})
			require.NoError(t, err)
			t.Cleanup(s.Destroy)
			s.SetApproved([]session.Tool{*wipeTool(t, row.remembered)})
			if row.revoke {
				s.SetApproved(nil)
			}
			_, err = s.Prompt(context.Background(), "Wipe it", loop.PromptOptions{})
			require.NoError(t, err)
			if row.asked {
				require.Equal(t, []session.Source{live.Source}, shown, "asked once, about the tool that runs")
			} else {
				require.Empty(t, shown, "not asked")
			}
			require.Equal(t, []string{live.Name + "{}"}, p.Ran())
		})
	}
}
