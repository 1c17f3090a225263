package session_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

func text(role session.Role, s string) session.Message { return session.TextMessage(role, s) }
func callMsg(id string) session.Message {
	return session.CallMessage(session.ToolCall{CallID: id, Name: "t", Arguments: []byte(`{}`)})
}
func resultMsg(id, out string) session.Message {
	return session.ResultMessage(session.ToolResult{CallID: id, Name: "t", Parts: []session.ResultPart{{Type: "text", Text: out}}})
}

func unpairedMsg(id, out string) session.Message {
	return session.UnpairedMessage(*resultMsg(id, out).Result())
}

func roles(h *session.History) []string {
	var out []string
	for _, m := range h.Messages() {
		s := string(m.Role)
		switch {
		case m.Call() != nil:
			s += " " + m.Call().CallID
		case m.Result() != nil:
			s += " " + m.Result().CallID
		default:
			s += " " + m.Text()
		}
		out = append(out, s)
	}
	return out
}

func TestHistory_Fit(t *testing.T) {
	long := strings.Repeat("x", 40) // 10 units + 4 per message = 14
	tests := []struct {
		name    string
		window  int
		msgs    []session.Message
		protect int // index from which messages are the current operation's
		want    []string
		evicted int
		quota   bool
	}{
		{
			name:    "fits: nothing evicted",
			window:  1000,
			msgs:    []session.Message{text(session.RoleUser, long), text(session.RoleAssistant, long)},
			protect: 1,
			want:    []string{"user " + long, "assistant " + long},
		},
		{
			name:    "oldest non-initial messages go first",
			window:  14*3 + 1,
			msgs:    []session.Message{text(session.RoleUser, "1"+long), text(session.RoleAssistant, "2"+long), text(session.RoleUser, "3"+long), text(session.RoleAssistant, "4"+long)},
			protect: 3,
			want:    []string{"user 3" + long, "assistant 4" + long},
			evicted: 2,
		},
		{
			name:   "a tool call leaves together with its result",
			window: 20,
			msgs: []session.Message{callMsg("a"), callMsg("b"), resultMsg("a", long), resultMsg("b", "short"),
				text(session.RoleUser, long)},
			protect: 4,
			want:    []string{"user " + long},
			evicted: 4,
		},
		{
			name:    "a call whose result belongs to the current input stays, and stops eviction",
			window:  20,
			msgs:    []session.Message{callMsg("a"), text(session.RoleAssistant, long), resultMsg("a", long)},
			protect: 2,
			quota:   true,
		},
		{
			name:    "an unpaired result leaves on its own, and does not stop eviction",
			window:  15,
			msgs:    []session.Message{unpairedMsg("z", long), text(session.RoleAssistant, long), text(session.RoleUser, "q")},
			protect: 2,
			want:    []string{"user q"},
			evicted: 2,
		},
		{
			name:    "nothing evictable: QuotaExceeded and nothing removed",
			window:  10,
			msgs:    []session.Message{text(session.RoleUser, long)},
			protect: 0,
			quota:   true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := session.NewHistory(tc.window, 0)
			for _, m := range tc.msgs {
				require.NoError(t, h.Append(m))
			}
			before := roles(h)
			usage := h.Usage()
			n, err := h.Fit(tc.protect)
			if tc.quota {
				require.Equal(t, session.KindQuotaExceeded, session.KindOf(err))
				var e *session.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, tc.window, e.Quota)
				require.Greater(t, e.Requested, e.Quota)
				require.Equal(t, before, roles(h))
				require.Equal(t, usage, h.Usage())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.evicted, n)
			require.Equal(t, tc.want, roles(h))
			require.LessOrEqual(t, h.Usage(), tc.window)
			require.Equal(t, session.CostOf(h.Messages()), h.Usage())
		})
	}
}

func TestHistory_InitialPromptsAreNeverEvicted(t *testing.T) {
	h := session.NewHistory(30, 0)
	long := strings.Repeat("y", 80)
	require.NoError(t, h.AppendInitial([]session.Message{text(session.RoleSystem, "rules"), text(session.RoleUser, "example")}))
	require.NoError(t, h.Append(text(session.RoleUser, long)))
	require.NoError(t, h.Append(text(session.RoleUser, "now")))
	_, err := h.Fit(3)
	require.NoError(t, err)
	require.Equal(t, []string{"system rules", "user example", "user now"}, roles(h))

	big := session.NewHistory(10, 0)
	err = big.AppendInitial([]session.Message{text(session.RoleSystem, long)})
	require.Equal(t, session.KindQuotaExceeded, session.KindOf(err))
	require.Zero(t, big.Len())
}

func TestHistory_MarkAndReset(t *testing.T) {
	h := session.NewHistory(1000, 7)
	require.NoError(t, h.Append(text(session.RoleUser, "q")))
	require.NoError(t, h.Append(callMsg("a")))
	mark := h.Mark()
	before, usage, pending := roles(h), h.Usage(), h.Pending()

	require.NoError(t, h.Append(resultMsg("a", "r")))
	require.NoError(t, h.Append(text(session.RoleAssistant, "done")))
	require.Equal(t, []session.Message{resultMsg("a", "r"), text(session.RoleAssistant, "done")}, h.Since(mark))
	h.Reset(mark)
	require.Equal(t, before, roles(h))
	require.Equal(t, usage, h.Usage())
	require.Equal(t, pending, h.Pending())

	// After a reset, appends must not write over what views taken before the reset hold.
	view := h.Messages()
	require.NoError(t, h.Append(text(session.RoleUser, "other")))
	require.Equal(t, "q", view[0].Text())
}

func TestHistory_ToolPairing(t *testing.T) {
	h := session.NewHistory(1000, 0)
	require.NoError(t, h.Append(callMsg("a")))
	require.Equal(t, session.KindSyntax, session.KindOf(h.Append(callMsg("a"))), "an id in use")
	require.Equal(t, session.KindSyntax, session.KindOf(h.Append(resultMsg("z", ""))), "no such call")
	require.NoError(t, h.Append(unpairedMsg("a", "")), "an unpaired result pairs with nothing")
	require.True(t, h.IsPending("a"))
	require.NoError(t, h.Append(callMsg("b")))
	require.Equal(t, 2, h.AnswerPending(session.Repaired))
	require.Empty(t, h.Pending())
	require.Equal(t, []string{"tool-call a", "tool-result a", "tool-call b", "tool-result a", "tool-result b"}, roles(h))
}

// TestHistory_CallIDsTaken: every id a call of the history has had stays taken, whatever
// became of the call, so that a new call is never given it; a clone's new ids are its own.
func TestHistory_CallIDsTaken(t *testing.T) {
	h := session.NewHistory(30, 0)
	require.NoError(t, h.AppendInitial([]session.Message{text(session.RoleUser, "q"), callMsg("imported"), resultMsg("imported", "r")}))
	mark := h.Mark()
	require.NoError(t, h.Append(callMsg("rolled-back")))
	h.Reset(mark)
	require.NoError(t, h.Append(callMsg("evicted")))
	require.NoError(t, h.Append(resultMsg("evicted", strings.Repeat("x", 40))))
	require.NoError(t, h.Append(text(session.RoleUser, "next")))
	n, err := h.Fit(h.Len() - 1)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	c := h.Clone()
	require.NoError(t, c.Append(callMsg("clone's")))
	for _, tc := range []struct {
		id           string
		inH, inClone bool
	}{
		{"imported", true, true},
		{"rolled-back", true, true},
		{"evicted", true, true},
		{"clone's", false, true},
		{"never", false, false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			require.Equal(t, tc.inH, h.HasCallID(tc.id))
			require.Equal(t, tc.inClone, c.HasCallID(tc.id))
		})
	}
}

// AppendInitial on an empty history takes the messages as they are, in one pass: the
// history, its pending calls, usage and taken ids are those appending them one by one
// gives (a result answering no call kept unpaired), and an error is the same, with the
// history left empty.
func TestHistory_AppendInitialAsAppend(t *testing.T) {
	for _, tc := range []struct {
		name   string
		msgs   []session.Message
		window int
	}{
		{"text only", []session.Message{text(session.RoleSystem, "s"), text(session.RoleUser, "u")}, 1000},
		{"calls and results", []session.Message{text(session.RoleUser, "u"), callMsg("a"), callMsg("b"), resultMsg("b", "rb"), resultMsg("a", "ra"), text(session.RoleAssistant, "x")}, 1000},
		{"a call left unanswered", []session.Message{callMsg("a"), resultMsg("a", "r"), callMsg("b")}, 1000},
		{"an id used again once answered", []session.Message{callMsg("a"), resultMsg("a", "r"), callMsg("a"), resultMsg("a", "r2")}, 1000},
		{"a result answering no call", []session.Message{text(session.RoleUser, "u"), resultMsg("zz", "x"), callMsg("zz")}, 1000},
		{"a result answering a call twice", []session.Message{callMsg("a"), resultMsg("a", "r"), resultMsg("a", "again")}, 1000},
		{"an id used twice while pending", []session.Message{callMsg("a"), text(session.RoleUser, "u"), callMsg("a")}, 1000},
		{"more than the window", []session.Message{callMsg("a"), resultMsg("a", strings.Repeat("x", 100))}, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := session.NewHistory(tc.window, 2)
			var wantErr error
			for _, m := range tc.msgs {
				if r := m.Result(); r != nil && !one.IsPending(r.CallID) {
					m = session.UnpairedMessage(*r)
				}
				if wantErr = one.Append(m); wantErr != nil {
					break
				}
			}
			if wantErr == nil && one.Usage() > tc.window {
				wantErr = &session.Error{Kind: session.KindQuotaExceeded}
			}
			h := session.NewHistory(tc.window, 2)
			err := h.AppendInitial(slices.Clone(tc.msgs))
			if wantErr != nil {
				require.Error(t, err)
				require.Equal(t, session.KindOf(wantErr), session.KindOf(err))
				if session.KindOf(err) != session.KindQuotaExceeded {
					require.EqualError(t, err, wantErr.Error())
				}
				require.Zero(t, h.Len())
				require.Empty(t, h.Pending())
				require.Equal(t, 2, h.Usage())
				return
			}
			require.NoError(t, err)
			require.Equal(t, one.Messages(), h.Messages())
			require.Equal(t, one.Pending(), h.Pending())
			require.Equal(t, one.Usage(), h.Usage())
			require.Equal(t, h.Len(), h.InitialCount())
			for _, m := range tc.msgs {
				if c := m.Call(); c != nil {
					require.True(t, h.HasCallID(c.CallID))
					require.False(t, h.MadeByModel(c.CallID))
				}
			}
		})
	}
}
