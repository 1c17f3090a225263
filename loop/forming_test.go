package loop_test

import (
	"context"
	"langmodel/internal/jsonv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/session"
)

// formingModel plays one step of deltas, then answers "done"; it records whether each
// request asked for calls as they form.
type formingModel struct {
	deltas []loop.Delta
	asked  []bool
}

func (m *formingModel) Step(_ loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	m.asked = append(m.asked, req.Forming)
	if len(m.asked) > 1 {
		return emit(loop.Delta{Text: "done"})
	}
	for _, d := range m.deltas {
		if d.Forming != nil && !req.Forming {
			continue // a model sends them only when asked
		}
		if err := emit(d); err != nil {
			return err
		}
	}
	return nil
}

func forming(at int, id, name, args string) loop.Delta {
	return loop.Delta{Forming: &loop.Forming{Index: at, CallID: id, Name: name, Arguments: args}}
}

func dropped(at int) loop.Delta { return loop.Delta{Forming: &loop.Forming{Index: at, Dropped: true}} }

func finished(id, name, args string) loop.Delta {
	return loop.Delta{Call: &session.ToolCall{CallID: id, Name: name, Arguments: jsonv.RawMessage(args)}}
}

// formingSession runs one prompt over m, with a closed loop over a tool "t" (and "u")
// that answers "ok", and returns the events seen: "toolcalldelta id name args" (or
// "dropped id name"), "toolcall id name".
func formingSession(t *testing.T, m *formingModel, listens func(loop.EventType) bool) []string {
	t.Helper()
	tools, err := session.ParseTools([]any{decl("t", true, ""), decl("u", true, "")}, false)
	require.NoError(t, err)
	var seen []string
	s, err := loop.New(loop.Options{Model: m, Tools: tools, Listens: listens,
		Runner: loop.RunnerFunc(func(loop.Context, session.ToolCall, func(jsonv.RawMessage)) ([]session.ResultPart, error) {
			return []session.ResultPart{{Type: "text", Text: "ok"}}, nil
		}),
		OnEvent: func(e loop.Event) {
			switch e.Type {
			case loop.EventToolCallDelta:
				f := e.Forming
				if f.Dropped {
					seen = append(seen, "dropped "+f.CallID+" "+f.Name)
				} else {
					seen = append(seen, "toolcalldelta "+f.CallID+" "+f.Name+" "+f.Arguments)
				}
			case loop.EventToolCall:
				seen = append(seen, "toolcall "+e.Call.CallID+" "+e.Call.Name)
			}
		}})
	require.NoError(t, err)
	t.Cleanup(s.Destroy)
	_, err = s.Prompt(context.Background(), "go", loop.PromptOptions{})
	require.NoError(t, err)
	return seen
}

func TestForming(t *testing.T) {
	all := func(loop.EventType) bool { return true }
	for _, tc := range []struct {
		name   string
		deltas []loop.Delta
		want   []string
	}{
		{
			name:   "the model's id is the call's, from its first delta to the finished call",
			deltas: []loop.Delta{forming(0, "call_abc", "t", ""), forming(0, "call_abc", "t", `{"a":`), forming(0, "call_abc", "t", `{"a":1}`), finished("call_abc", "t", `{"a":1}`)},
			want:   []string{"toolcalldelta call_abc t ", `toolcalldelta call_abc t {"a":`, `toolcalldelta call_abc t {"a":1}`, "toolcall call_abc t"},
		},
		{
			name:   "a call without an id gets the session's next, and keeps it when finished",
			deltas: []loop.Delta{forming(0, "", "t", `{`), finished("", "t", `{}`)},
			want:   []string{"toolcalldelta call_1 t {", "toolcall call_1 t"},
		},
		{
			name:   "an id another call of the step has is not given again",
			deltas: []loop.Delta{forming(0, "x", "t", `{}`), forming(1, "x", "u", `{}`), finished("x", "t", `{}`), finished("x", "u", `{}`)},
			want:   []string{"toolcalldelta x t {}", "toolcalldelta call_1 u {}", "toolcall x t", "toolcall call_1 u"},
		},
		{
			name:   "two calls forming at once keep their places",
			deltas: []loop.Delta{forming(0, "", "t", `{`), forming(1, "", "u", `{`), forming(0, "", "t", `{}`), finished("", "t", `{}`), finished("", "u", `{}`)},
			want:   []string{"toolcalldelta call_1 t {", "toolcalldelta call_2 u {", "toolcalldelta call_1 t {}", "toolcall call_1 t", "toolcall call_2 u"},
		},
		{
			name:   "a dropped call is taken back under its id, and the next at its place gets a new one",
			deltas: []loop.Delta{forming(0, "", "t", `{`), dropped(0), forming(0, "", "u", `{`), finished("", "u", `{}`)},
			want:   []string{"toolcalldelta call_1 t {", "dropped call_1 t", "toolcalldelta call_2 u {", "toolcall call_2 u"},
		},
		{
			name:   "a finished call naming another tool than the one that formed does not take its id",
			deltas: []loop.Delta{forming(0, "x", "t", `{`), finished("", "u", `{}`)},
			want:   []string{"toolcalldelta x t {", "toolcall call_1 u"},
		},
		{
			name:   "a drop at a place where nothing formed is no event",
			deltas: []loop.Delta{dropped(0), finished("", "t", `{}`)},
			want:   []string{"toolcall call_1 t"},
		},
		{
			name:   "a place out of bounds is ignored",
			deltas: []loop.Delta{forming(-1, "", "t", `{`), forming(1<<20, "", "t", `{`), finished("", "t", `{}`)},
			want:   []string{"toolcall call_1 t"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &formingModel{deltas: tc.deltas}
			require.Equal(t, tc.want, formingSession(t, m, all))
			require.Equal(t, []bool{true, true}, m.asked, "steps with tools ask for calls as they form")
		})
	}
}

func TestForming_NotAskedWithoutListener(t *testing.T) {
	m := &formingModel{deltas: []loop.Delta{forming(0, "", "t", `{`), finished("", "t", `{}`)}}
	seen := formingSession(t, m, func(e loop.EventType) bool { return e != loop.EventToolCallDelta })
	require.Equal(t, []string{"toolcall call_1 t"}, seen)
	require.Equal(t, []bool{false, false}, m.asked)
}

func TestForming_UnaskedDeltasAreIgnored(t *testing.T) {
	// A model that sends them anyway: no event, and they do not count towards the reply.
	tools, err := session.ParseTools([]any{decl("t", true, "")}, false)
	require.NoError(t, err)
	n := 0
	s, err := loop.New(loop.Options{Tools: tools, ContextWindow: 100, Runner: noop,
		Model: modelFunc(func(_ loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
			if n++; n > 1 {
				return emit(loop.Delta{Text: "done"})
			}
			require.NoError(t, emit(forming(0, "", "t", strings.Repeat("x", 10000))))
			return emit(finished("", "t", `{}`))
		}),
		Listens: func(e loop.EventType) bool { return e != loop.EventToolCallDelta },
		OnEvent: func(e loop.Event) { require.NotEqual(t, loop.EventToolCallDelta, e.Type) },
	})
	require.NoError(t, err)
	defer s.Destroy()
	r, err := s.Prompt(context.Background(), "go", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "done", r.Text)
}
