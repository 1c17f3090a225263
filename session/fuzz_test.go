package session_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// FuzzNormalize: any JSON either fails with a classified error or normalises to messages
// whose export normalises back to the same messages.
func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		`"hi"`, `[]`, `[{"role":"user","content":[]}]`,
		`[{"role":"system","content":"s"},{"role":"assistant","content":"a:","prefix":true}]`,
		`[{"role":"assistant","content":[{"type":"text","value":"x"},{"type":"tool-call","value":{"callId":"c","name":"n","arguments":{"a":[1,2.5e3]}}}]}]`,
		`[{"role":"user","content":[{"type":"tool-response","value":{"callID":"c","name":"n","result":[{"type":"object","value":null}]}}]}]`,
		`[{"role":"tool-result","content":[{"type":"tool-result","value":{"callId":"c","name":"n","errorMessage":"e"}}]}]`,
		`[{"role":"user","content":[{"type":"image","value":{"mime":"image/png"}}]}]`,
	} {
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, prior bool) {
		v, err := session.DecodeJSON(data)
		if err != nil {
			return
		}
		opts := session.NormalizeOptions{HasPrior: prior, Expected: session.AllInputs}
		msgs, err := session.Normalize(v, opts)
		if err != nil {
			require.NotEqual(t, session.KindOperation, session.KindOf(err), "every input error is classified: %v", err)
			return
		}
		require.NotEmpty(t, msgs)
		again, err := session.DecodeJSON(session.MarshalMessages(msgs))
		require.NoError(t, err)
		back, err := session.Normalize(again, session.NormalizeOptions{HasPrior: prior, Expected: opts.Expected})
		require.NoError(t, err)
		require.Equal(t, session.MarshalMessages(msgs), session.MarshalMessages(back))
	})
}

// FuzzHistory drives a history with a byte-coded sequence of operations and checks its
// invariants after each: usage is the sum of costs; every result but an unpaired one
// answers an earlier, unanswered call; Pending lists exactly the unanswered calls; Reset restores a mark
// exactly; Fit never leaves a result without its call.
func FuzzHistory(f *testing.F) {
	f.Add(byte(80), []byte{0, 1, 'a', 1, 'b', 2, 'a', 3, 0, 5, 4, 6, 2, 'b'})
	f.Add(byte(20), []byte{1, 'a', 2, 'a', 0, 0, 0, 5, 1, 'c', 6, 5})
	f.Fuzz(func(t *testing.T, window byte, ops []byte) {
		h := session.NewHistory(int(window)+10, 3)
		var marks []session.Mark
		var marked [][]byte
		for i := 0; i < len(ops); i++ {
			arg := byte('x')
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			switch ops[i] % 8 {
			case 0:
				_ = h.Append(session.TextMessage(session.RoleUser, fmt.Sprint("text ", i)))
			case 1:
				_ = h.Append(callMsg(string(arg)))
				i++
			case 2:
				_ = h.Append(resultMsg(string(arg), "out"))
				i++
			case 3:
				marks = append(marks, h.Mark())
				marked = append(marked, h.Export())
			case 4:
				if n := len(marks); n > 0 {
					h.Reset(marks[n-1])
					require.Equal(t, string(marked[n-1]), string(h.Export()), "reset restores the mark")
					marks, marked = marks[:n-1], marked[:n-1]
				}
			case 5:
				_, _ = h.Fit(h.Len())
				marks, marked = nil, nil // marks do not survive eviction in the loop either
			case 6:
				h.AnswerPending(session.Repaired)
			case 7:
				// a response the page supplies for a call never made here
				r := resultMsg(string(arg), "orphan").Result()
				require.NoError(t, h.Append(session.UnpairedMessage(*r)))
				i++
			}
			checkInvariants(t, h)
		}
	})
}

func checkInvariants(t *testing.T, h *session.History) {
	t.Helper()
	require.Equal(t, 3+session.CostOf(h.Messages()), h.Usage())
	var pending []string // open calls, in call order
	for _, m := range h.Messages() {
		if c := m.Call(); c != nil {
			require.NotContains(t, pending, c.CallID, "duplicate open call")
			pending = append(pending, c.CallID)
		}
		if r := m.Result(); r != nil && !r.Unpaired {
			i := slices.Index(pending, r.CallID)
			require.GreaterOrEqual(t, i, 0, "result %q answers no open call", r.CallID)
			pending = slices.Delete(pending, i, i+1)
		}
	}
	var got []string
	for _, c := range h.Pending() {
		got = append(got, c.CallID)
	}
	require.Equal(t, len(pending), len(got))
	for i := range got {
		require.Equal(t, pending[i], got[i])
	}
}
