package scripted_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

func fromJSON(t *testing.T, doc string) (loop.Model, error) {
	t.Helper()
	v, err := session.DecodeJSON([]byte(doc))
	require.NoError(t, err)
	return scripted.FromJSON(v.(map[string]any))
}

func TestFromJSONBuildsTheScriptAPageDescribes(t *testing.T) {
	m, err := fromJSON(t, `{"kind":"scripted","window":50,"turns":[
		{"chunks":["Hel","lo"]},
		{"calls":[{"callID":"c1","name":"get_weather","arguments":{"unit":"c","city":"Paris"}}]},
		{"error":{"name":"QuotaExceededError","message":"too long"}}]}`)
	require.NoError(t, err)
	s, ok := m.(*scripted.Script)
	require.True(t, ok, "turns make a Script")
	require.Equal(t, 50, s.ContextWindow())

	out, err := collect(t, s, &loop.Request{})
	require.NoError(t, err)
	require.Equal(t, []string{"Hel", "lo"}, out)
	out, err = collect(t, s, &loop.Request{})
	require.NoError(t, err)
	require.Equal(t, []string{`call get_weather {"city":"Paris","unit":"c"}`}, out, "arguments re-encoded with sorted keys")
	_, err = collect(t, s, &loop.Request{})
	require.ErrorContains(t, err, "too long")
	require.Equal(t, session.KindQuotaExceeded, session.KindOf(err))
}

func TestFromJSONChoosesRules(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"no turns", `{"kind":"scripted"}`},
		{"null turns", `{"turns":null}`},
		{"rules win over turns", `{"turns":[{"text":"x"}],"rules":[{"match":"weather","tool":"get_weather","arguments":{"city":"{{text}}"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := fromJSON(t, tc.doc)
			require.NoError(t, err)
			require.IsType(t, &scripted.Rules{}, m)
		})
	}
}

func TestFromJSONRejectsWrongTypes(t *testing.T) {
	for _, tc := range []struct{ name, doc, msg string }{
		{"turns not an array", `{"turns":5}`, "scripted backend: turns must be an array"},
		{"a turn not an object", `{"turns":["hi"]}`, "scripted backend: turns[0] must be an object"},
		{"text not a string", `{"turns":[{"text":1}]}`, "scripted backend: text must be a string"},
		{"hang not a boolean", `{"turns":[{"hang":"yes"}]}`, "scripted backend: hang must be true or false"},
		{"window not an integer", `{"turns":[],"window":1.5}`, "scripted backend: window must be an integer"},
		{"a rule not an object", `{"rules":[[]]}`, "scripted backend: rules[0] must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fromJSON(t, tc.doc)
			require.EqualError(t, err, tc.msg)
		})
	}
}
