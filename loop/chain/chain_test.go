package chain_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/chain"
	"langmodel/session"
)

// member is a fake backend: it records the requests it got, gives its deltas, then
// returns err (cancelling first, when cancel is set: an abort during its step).
type member struct {
	deltas []loop.Delta
	err    error
	cancel loop.CancelFunc
	window int
	got    []*loop.Request
}

func (m *member) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	m.got = append(m.got, req)
	for _, d := range m.deltas {
		if err := emit(d); err != nil {
			return err
		}
	}
	if m.cancel != nil {
		m.cancel()
		return ctx.Err()
	}
	return m.err
}

func (m *member) ContextWindow() int { return m.window }

func text(s string) []loop.Delta { return []loop.Delta{{Text: s}} }

func TestChain_Step(t *testing.T) {
	down := session.Errorf(session.KindNetwork, session.ErrModel, "could not reach the server")
	busy := session.Errorf(session.KindOperation, session.ErrModel, "HTTP 503: overloaded")
	tests := []struct {
		name    string
		members func(cancel loop.CancelFunc) []*member
		gap     bool   // a member left out (nil) before the others
		want    string // the text the step gave
		backend int    // Request.Backend: the member that answered, or was running when the step ended
		err     string
		kind    session.Kind
		called  []int // how many steps each member ran
	}{
		{
			name:    "the first member answers: the others are not asked",
			members: func(loop.CancelFunc) []*member { return []*member{{deltas: text("one")}, {deltas: text("two")}} },
			want:    "one", backend: 1, called: []int{1, 0},
		},
		{
			name:    "a failure before the first delta goes to the next member",
			members: func(loop.CancelFunc) []*member { return []*member{{err: busy}, {deltas: text("two")}} },
			want:    "two", backend: 2, called: []int{1, 1},
		},
		{
			name:    "the member's index is the page's: members left out keep theirs",
			members: func(loop.CancelFunc) []*member { return []*member{{err: down}, {deltas: text("three")}} },
			gap:     true,
			want:    "three", backend: 3, called: []int{1, 1},
		},
		{
			name: "a failure after the first delta is the step's: never two answers spliced",
			members: func(loop.CancelFunc) []*member {
				return []*member{{deltas: text("half"), err: busy}, {deltas: text("two")}}
			},
			want: "half", backend: 1, err: "the model failed: HTTP 503: overloaded", kind: session.KindOperation, called: []int{1, 0},
		},
		{
			name:    "every member failing is the last one's kind, naming each failure",
			members: func(loop.CancelFunc) []*member { return []*member{{err: busy}, {err: down}} },
			err:     "the model failed: every backend of the chain failed; backends[0]: HTTP 503: overloaded; backends[1]: could not reach the server",
			kind:    session.KindNetwork, called: []int{1, 1},
		},
		{
			name: "an abort stops the chain",
			members: func(cancel loop.CancelFunc) []*member {
				return []*member{{cancel: cancel}, {deltas: text("two")}}
			},
			backend: 1, err: "context canceled", kind: session.KindAbort, called: []int{1, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := loop.WithCancel(loop.Background())
			defer cancel()
			members := tt.members(cancel)
			m := &chain.Model{}
			if tt.gap {
				m.Members = append(m.Members, nil)
			}
			for _, mb := range members {
				m.Members = append(m.Members, mb)
			}
			req := &loop.Request{Messages: []session.Message{{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartText, Text: "hi"}}}}}
			var got string
			err := m.Step(ctx, req, func(d loop.Delta) error {
				got += d.Text
				return nil
			})
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				require.Equal(t, tt.kind, session.KindOf(err))
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.backend, req.Backend)
			for i, mb := range members {
				require.Len(t, mb.got, tt.called[i], "member %d", i)
				for _, r := range mb.got {
					require.Same(t, req, r, "the same history and tools")
				}
			}
		})
	}
}

func TestChain_EmitErrorStopsTheChain(t *testing.T) {
	stop := errors.New("the loop wants no more")
	second := &member{deltas: text("two")}
	m := &chain.Model{Members: []loop.Model{&member{deltas: text("one")}, second}}
	err := m.Step(loop.Background(), &loop.Request{}, func(loop.Delta) error { return stop })
	require.ErrorIs(t, err, stop)
	require.Empty(t, second.got)
}

func TestChain_ContextWindow(t *testing.T) {
	tests := []struct {
		name    string
		windows []int
		want    int
	}{
		{"the smallest member's", []int{8192, 4096}, 4096},
		{"a member that does not say counts as the default", []int{0, 65536}, loop.DefaultContextWindow},
		{"none says: the default", []int{0, 0}, loop.DefaultContextWindow},
		{"all larger than the default: the smallest of theirs", []int{131072, 65536}, 65536},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &chain.Model{}
			for _, w := range tt.windows {
				m.Members = append(m.Members, &member{window: w})
			}
			require.Equal(t, tt.want, m.ContextWindow())
		})
	}
}
