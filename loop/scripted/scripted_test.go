package scripted_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// collect runs one step and returns its deltas as "text" or "call name args" lines.
func collect(t *testing.T, m loop.Model, req *loop.Request) ([]string, error) {
	t.Helper()
	var out []string
	err := m.Step(context.Background(), req, func(d loop.Delta) error {
		if d.Call != nil {
			out = append(out, "call "+d.Call.Name+" "+string(d.Call.Arguments))
		} else {
			out = append(out, d.Text)
		}
		return nil
	})
	return out, err
}

func tools(names ...string) []session.Tool {
	var ts []session.Tool
	for _, n := range names {
		ts = append(ts, session.Tool{Name: n})
	}
	return ts
}

func TestRules(t *testing.T) {
	m := &scripted.Rules{Rules: []scripted.Rule{
		{Match: "time in", Tool: "get_time", Arguments: jsonv.RawMessage(`{"zone":"{{text}}"}`)},
		{Match: "weather", Tool: "get_weather", Arguments: jsonv.RawMessage(`{"city":"Paris"}`)},
		{Match: "Météo à", Tool: "get_forecast", Arguments: jsonv.RawMessage(`{"city":"{{text}}"}`)},
	}}
	result := session.ResultMessage(session.ToolResult{CallID: "c1", Name: "get_time", Parts: []session.ResultPart{{Type: "text", Text: "12:00"}}})
	failure := session.ResultMessage(session.ErrorResult(session.ToolCall{CallID: "c2", Name: "get_weather"}, "down"))
	tests := []struct {
		name  string
		msgs  []session.Message
		tools []session.Tool
		want  []string
	}{
		{"a keyword becomes a call with the rest of the text", []session.Message{session.TextMessage(session.RoleUser, "What is the time in Asia/Tokyo")}, tools("get_time"), []string{`call get_time {"zone":"Asia/Tokyo"}`}},
		{"the text loses its closing punctuation", []session.Message{session.TextMessage(session.RoleUser, "What is the time in Tokyo?")}, tools("get_time"), []string{`call get_time {"zone":"Tokyo"}`}},
		{"the text loses every closing mark and space", []session.Message{session.TextMessage(session.RoleUser, "time in Asia/Tokyo ?! ")}, tools("get_time"), []string{`call get_time {"zone":"Asia/Tokyo"}`}},
		{"the text loses the separator at its start", []session.Message{session.TextMessage(session.RoleUser, "time in: Oslo")}, tools("get_time"), []string{`call get_time {"zone":"Oslo"}`}},
		{"the text loses every separator and space at its start", []session.Message{session.TextMessage(session.RoleUser, "time in ,; Oslo")}, tools("get_time"), []string{`call get_time {"zone":"Oslo"}`}},
		{"punctuation inside the text stays", []session.Message{session.TextMessage(session.RoleUser, "time in St. John's, Canada.")}, tools("get_time"), []string{`call get_time {"zone":"St. John's, Canada"}`}},
		{"a keyword matches in any case", []session.Message{session.TextMessage(session.RoleUser, "WHAT IS THE TIME IN Tokyo")}, tools("get_time"), []string{`call get_time {"zone":"Tokyo"}`}},
		{"a keyword matches in any case beyond ASCII", []session.Message{session.TextMessage(session.RoleUser, "MÉTÉO À Lyon")}, tools("get_forecast"), []string{`call get_forecast {"city":"Lyon"}`}},
		{"the text is cut where the keyword ends, after letters whose lower case is longer", []session.Message{session.TextMessage(session.RoleUser, "ȺȺȺȺ time in Oslo")}, tools("get_time"), []string{`call get_time {"zone":"Oslo"}`}},
		{"a keyword at the end after such letters", []session.Message{session.TextMessage(session.RoleUser, "ȺȺȺȺ time in")}, tools("get_time"), []string{`call get_time {"zone":""}`}},
		{"several keywords become parallel calls in rule order", []session.Message{session.TextMessage(session.RoleUser, "weather and time in UTC")}, tools("get_time", "get_weather"), []string{`call get_time {"zone":"UTC"}`, `call get_weather {"city":"Paris"}`}},
		{"a rule for a tool not offered is skipped", []session.Message{session.TextMessage(session.RoleUser, "weather")}, tools("get_time"), []string{"You said: weather\n\n(This is the offline demo model: it follows fixed rules, it does not understand language.)"}},
		{"a slash command calls any offered tool", []session.Message{session.TextMessage(session.RoleUser, `/get_weather {"city":"Oslo"}`)}, tools("get_weather"), []string{`call get_weather {"city":"Oslo"}`}},
		{"tool results are summarised", []session.Message{result, failure}, tools("get_time"), []string{"get_time: 12:00\nget_weather failed: down"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(t, m, &loop.Request{Messages: tc.msgs, Tools: tc.tools})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestScript(t *testing.T) {
	m := scripted.New(
		scripted.Turn{Chunks: []string{"a", "b"}},
		scripted.Turn{Calls: []scripted.Call{{Name: "x"}}},
		scripted.Turn{Error: &scripted.StepError{Kind: session.KindNetwork, Message: "offline"}},
	)
	req := &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, "q")}}
	got, err := collect(t, m, req)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, got)
	got, err = collect(t, m, req)
	require.NoError(t, err)
	require.Equal(t, []string{"call x {}"}, got)
	_, err = collect(t, m, req)
	require.Equal(t, session.KindNetwork, session.KindOf(err))
	_, err = collect(t, m, req)
	require.ErrorIs(t, err, scripted.ErrExhausted)
	require.Len(t, m.Requests(), 4)
}
