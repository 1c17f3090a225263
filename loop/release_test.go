package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// releaseSecret is what the Release of these tests holds back a beginning of.
const releaseSecret = "SECRET-0123"

// release holds back the longest tail of text that begins releaseSecret (the redactor's
// Release, reduced to one form).
func release(text string) int {
	for i := max(0, len(text)-len(releaseSecret)+1); i < len(text); i++ {
		if strings.HasPrefix(releaseSecret, text[i:]) {
			return i
		}
	}
	return len(text)
}

// Options.Release: the reasoning and toolcalldelta events hold back what may begin a
// secret, and give it when the block ends or the call is whole, in order with the rest.
func TestRelease_HoldsATailUntilTheBlockOrCallEnds(t *testing.T) {
	reason := func(s string) loop.Delta { return loop.Delta{Reasoning: s} }
	tests := []struct {
		name   string
		deltas []loop.Delta
		want   []string
	}{
		{"a tail that may begin the secret waits for the next piece",
			[]loop.Delta{reason("key SECR"), reason("ET-0123 ok"), {Text: "Hi"}},
			[]string{"reasoning key ", "reasoning SECRET-0123 ok", "chunk Hi"}},
		{"a tail that turns out not to be the secret goes with the next piece",
			[]loop.Delta{reason("a SE"), reason("A b"), {Text: "Hi"}},
			[]string{"reasoning a ", "reasoning SEA b", "chunk Hi"}},
		{"the block's end gives the tail before the answer",
			[]loop.Delta{reason("ends SECR"), {Text: "Hi"}},
			[]string{"reasoning ends ", "reasoning SECR", "chunk Hi"}},
		{"the block's end gives the tail before a forming call",
			[]loop.Delta{reason("ends SE"), forming(0, "c1", "t", `{"a":1}`), finished("c1", "t", `{"a":1}`)},
			[]string{"reasoning ends ", "reasoning SE", `toolcalldelta c1 t {"a":1}`, "toolcall c1 t"}},
		{"the step's end gives the tail",
			[]loop.Delta{reason("only SECRET-01")},
			[]string{"reasoning only ", "reasoning SECRET-01"}},
		{"a forming call stops before the tail, and is shown whole once complete",
			[]loop.Delta{forming(0, "c1", "t", `{"k":"SECRET-0`), forming(0, "c1", "t", `{"k":"SECRET-0123"}`),
				forming(0, "c1", "t", `{"k":"SECRET-0123"}, "x": "SEC`), finished("c1", "t", `{"k":"SECRET-0123","x":"SEC"}`)},
			[]string{`toolcalldelta c1 t {"k":"`, `toolcalldelta c1 t {"k":"SECRET-0123"}`, `toolcalldelta c1 t {"k":"SECRET-0123"}, "x": "`,
				`toolcalldelta c1 t {"k":"SECRET-0123"}, "x": "SEC`, "toolcall c1 t"}},
		{"a call not held back is not shown again",
			[]loop.Delta{forming(0, "c1", "t", `{"a":1}`), finished("c1", "t", `{"a":1}`)},
			[]string{`toolcalldelta c1 t {"a":1}`, "toolcall c1 t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := session.ParseTools([]any{decl("t", true, "")}, false)
			require.NoError(t, err)
			var seen []string
			m := &formingModel{deltas: tt.deltas}
			s, err := loop.New(loop.Options{Model: m, Tools: tools, Release: release,
				Runner: loop.RunnerFunc(func(loop.Context, session.ToolCall, func(jsonv.RawMessage)) ([]session.ResultPart, error) {
					return []session.ResultPart{{Type: "text", Text: "ok"}}, nil
				}),
				OnEvent: func(e loop.Event) {
					switch e.Type {
					case loop.EventReasoning:
						seen = append(seen, "reasoning "+e.Text)
					case loop.EventToolCallDelta:
						seen = append(seen, "toolcalldelta "+e.Forming.CallID+" "+e.Forming.Name+" "+e.Forming.Arguments)
					case loop.EventToolCall:
						seen = append(seen, "toolcall "+e.Call.CallID+" "+e.Call.Name)
					}
				}})
			require.NoError(t, err)
			t.Cleanup(s.Destroy)
			_, err = s.Prompt(context.Background(), "go", loop.PromptOptions{OnChunk: func(c loop.Chunk) {
				if c.Text != "" && c.Text != "done" {
					seen = append(seen, "chunk "+c.Text)
				}
			}})
			require.NoError(t, err)
			require.Equal(t, tt.want, seen)
		})
	}
}
