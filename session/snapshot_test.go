package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// TestHistory_Restore restores saved transcripts (read as initial prompts, then
// Restored) and checks what the history holds, or the error.
func TestHistory_Restore(t *testing.T) {
	tests := []struct {
		name     string
		msgs     []session.Message
		initial  int
		usage    int
		window   int
		roles    []string
		pending  []string
		usageIs  int  // 0: the estimate
		unpaired bool // the last message is a result kept unpaired
		err      session.Kind
	}{
		{
			name:    "initial prompts, a model's call and its result, and a call still pending",
			msgs:    []session.Message{text(session.RoleSystem, "s"), text(session.RoleUser, "u"), callMsg("a"), resultMsg("a", "x"), callMsg("b")},
			initial: 1,
			roles:   []string{"system s", "user u", "tool-call a", "tool-result a", "tool-call b"},
			pending: []string{"b"},
		},
		{
			name:    "the saved usage replaces the estimate",
			msgs:    []session.Message{text(session.RoleUser, "u")},
			usage:   777,
			roles:   []string{"user u"},
			usageIs: 777,
		},
		{
			name:     "a result for no pending call is kept unpaired",
			msgs:     []session.Message{text(session.RoleUser, "u"), resultMsg("zz", "x")},
			roles:    []string{"user u", "tool-result zz"},
			unpaired: true,
		},
		{
			name:    "more initial prompts than messages",
			msgs:    []session.Message{text(session.RoleUser, "u")},
			initial: 2,
			err:     session.KindData,
		},
		{
			name: "a call id used twice while pending",
			msgs: []session.Message{callMsg("a"), callMsg("a")},
			err:  session.KindSyntax,
		},
		{
			name:   "a transcript larger than the window",
			msgs:   []session.Message{text(session.RoleUser, "a long message that cannot fit")},
			window: 3,
			err:    session.KindQuotaExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			window := tt.window
			if window == 0 {
				window = 1000
			}
			h := session.NewHistory(window, 0)
			err := h.AppendInitial(tt.msgs)
			if err == nil {
				err = h.Restored(tt.initial, tt.usage)
			}
			if tt.err != "" {
				require.Equal(t, tt.err, session.KindOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.roles, roles(h))
			require.Equal(t, tt.initial, h.InitialCount())
			var pending []string
			for _, c := range h.Pending() {
				pending = append(pending, c.CallID)
				require.True(t, h.MadeByModel(c.CallID), "a restored call is the model's")
			}
			require.Equal(t, tt.pending, pending)
			last := h.Messages()[h.Len()-1]
			require.Equal(t, tt.unpaired, last.Result() != nil && last.Result().Unpaired)
			if tt.usageIs != 0 {
				require.Equal(t, tt.usageIs, h.Usage())
			} else {
				require.Equal(t, session.CostOf(tt.msgs), h.Usage())
			}
		})
	}
}
