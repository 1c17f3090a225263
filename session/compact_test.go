package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// TestHistory_Turns: where turns begin (a page's message, or one model step with its
// calls and results) and where the last keep turns begin: never between a call and its
// result, and never after a call still waiting for one.
func TestHistory_Turns(t *testing.T) {
	tests := []struct {
		name    string
		initial []session.Message
		msgs    []session.Message
		turns   []int
		keep    int
		from    int
	}{
		{"a step's text, calls and results are one turn",
			nil,
			[]session.Message{text(session.RoleUser, "q"), text(session.RoleAssistant, "looking"), callMsg("a"), callMsg("b"), resultMsg("a", "x"), resultMsg("b", "y"), text(session.RoleAssistant, "done")},
			[]int{0, 1, 6}, 2, 1},
		{"consecutive steps are turns of their own",
			nil,
			[]session.Message{text(session.RoleUser, "q"), callMsg("a"), resultMsg("a", "x"), callMsg("b"), resultMsg("b", "y")},
			[]int{0, 1, 3}, 1, 3},
		{"turns begin after the initial prompts",
			[]session.Message{text(session.RoleSystem, "s"), text(session.RoleUser, "hi")},
			[]session.Message{text(session.RoleUser, "q"), text(session.RoleAssistant, "a")},
			[]int{2, 3}, 5, 2},
		{"a call waiting for its result is kept with its turn",
			nil,
			[]session.Message{text(session.RoleUser, "q"), callMsg("a"), text(session.RoleUser, "more"), text(session.RoleAssistant, "ok")},
			[]int{0, 1}, 1, 1},
		{"keep 0 still keeps the turn of a call waiting for its result",
			nil,
			[]session.Message{text(session.RoleUser, "q"), callMsg("a")},
			[]int{0, 1}, 0, 1},
		{"keep 0: every turn is older",
			nil,
			[]session.Message{text(session.RoleUser, "q"), text(session.RoleAssistant, "a")},
			[]int{0, 1}, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := session.NewHistory(10000, 0)
			require.NoError(t, h.AppendInitial(append([]session.Message(nil), tc.initial...)))
			for _, m := range tc.msgs {
				// A call left without a result: the history appends it as the page's.
				require.NoError(t, h.Append(m))
			}
			turns := h.Turns()
			require.Equal(t, tc.turns, turns)
			require.Equal(t, tc.from, h.KeptFrom(turns, tc.keep))
		})
	}
}

// TestStubResults: a long result becomes the stub, a failed one keeps its failure, a
// result shorter than the stub stays; the calls are untouched.
func TestStubResults(t *testing.T) {
	long := resultMsg("a", string(make([]byte, 400)))
	failed := session.ResultMessage(session.ToolResult{CallID: "b", Name: "t", Failed: true, Error: string(make([]byte, 400))})
	short := resultMsg("c", "ok")
	in := []session.Message{callMsg("a"), long, callMsg("b"), failed, callMsg("c"), short}
	out := session.StubResults(in)
	require.Equal(t, []session.ResultPart{{Type: "text", Text: session.Dropped}}, out[1].Result().Parts)
	require.True(t, out[3].Result().Failed)
	require.Equal(t, session.Dropped, out[3].Result().Error)
	require.Equal(t, short, out[5])
	require.Equal(t, in[0], out[0])
	require.Equal(t, long, in[1], "the input is not changed")
}
