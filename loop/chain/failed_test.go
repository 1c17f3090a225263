package chain_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/chain"
	"langmodel/session"
)

// flaky answers its first n steps, then fails before its first delta.
type flaky struct {
	n     int
	calls int
}

func (f *flaky) Step(_ loop.Context, _ *loop.Request, emit func(loop.Delta) error) error {
	if f.calls++; f.calls > f.n {
		return session.Errorf(session.KindOperation, session.ErrModel, "HTTP 503: overloaded")
	}
	return emit(loop.Delta{Text: "flaky"})
}

// A member that failed is skipped for the rest of the prompt's steps (Request.Failed, kept
// by the loop for one prompt), and the next prompt starts again from the first member.
func TestChain_SkipsWhatFailedThisPrompt(t *testing.T) {
	down := session.Errorf(session.KindNetwork, session.ErrModel, "could not reach the server")
	tests := []struct {
		name    string
		prompts []int // steps per prompt
		memory  bool  // the loop keeps Request.Failed (a prompt's steps); false: nil (a summary step)
		second  loop.Model
		called  int      // steps the failing first member ran
		texts   []string // each step's text, or its error
	}{
		{"a member that failed is skipped at the prompt's later steps", []int{3}, true, &member{deltas: text("two")},
			1, []string{"two", "two", "two"}},
		{"the next prompt starts again from the first member", []int{2, 2}, true, &member{deltas: text("two")},
			2, []string{"two", "two", "two", "two"}},
		{"without the prompt's memory, every step starts from the first member", []int{3}, false, &member{deltas: text("two")},
			3, []string{"two", "two", "two"}},
		{"when the members left fail too, the error names the one skipped", []int{2}, true, &flaky{n: 1},
			1, []string{"flaky", "the model failed: every backend of the chain failed; backends[0]: failed earlier in this prompt; backends[1]: HTTP 503: overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := &member{err: down}
			m := &chain.Model{Members: []loop.Model{first, tt.second}}
			var texts []string
			for _, steps := range tt.prompts {
				var failed uint64 // the loop's, one per prompt
				for range steps {
					req := &loop.Request{}
					if tt.memory {
						req.Failed = &failed
					}
					var got string
					err := m.Step(loop.Background(), req, func(d loop.Delta) error {
						got += d.Text
						return nil
					})
					if err != nil {
						got = err.Error()
					}
					texts = append(texts, got)
				}
			}
			require.Equal(t, tt.texts, texts)
			require.Len(t, first.got, tt.called)
		})
	}
}
