package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

func TestParseTools_Errors(t *testing.T) {
	tests := []struct {
		name    string
		tools   string
		expects bool
		kind    session.Kind
		message string
	}{
		{"empty name", `[{"name":"","description":"d","inputSchema":{"type":"object"},"hasExecute":true}]`, false, session.KindType, "invalid tool declaration: tool 0: name must be a non-empty string"},
		{"empty description", `[{"name":"a","description":"","inputSchema":{"type":"object"},"hasExecute":true}]`, false, session.KindType, `invalid tool declaration: tool "a": description must be a non-empty string`},
		{"duplicate names", `[{"name":"a","description":"d","inputSchema":{"type":"object"},"hasExecute":true},{"name":"a","description":"d","inputSchema":{"type":"object"},"hasExecute":true}]`, false, session.KindType, `invalid tool declaration: tool 1: duplicate name "a"`},
		{"schema that is not an object", `[{"name":"a","description":"d","inputSchema":"object","hasExecute":true}]`, false, session.KindType, `invalid tool declaration: tool "a": inputSchema must be a JSON Schema object`},
		{"schema without type object", `[{"name":"a","description":"d","inputSchema":{"type":"string"},"hasExecute":true}]`, false, session.KindType, `invalid tool declaration: tool "a": inputSchema must have type: "object"`},
		{"schema with an assertion keyword the validator lacks", `[{"name":"a","description":"d","inputSchema":{"type":"object","unevaluatedProperties":false},"hasExecute":true}]`, false, session.KindNotSupported, ""},
		{"malformed schema", `[{"name":"a","description":"d","inputSchema":{"type":"object","required":"x"},"hasExecute":true}]`, false, session.KindType, ""},
		{"a tool without execute and no tool-call output", `[{"name":"a","description":"d","inputSchema":{"type":"object"}}]`, false, session.KindType, `tools without execute need {type: "tool-call"} in expectedOutputs: tool "a" has no execute`},
		{"annotations of the wrong type", `[{"name":"a","description":"d","inputSchema":{"type":"object"},"hasExecute":true,"annotations":{"destructiveHint":"yes"}}]`, false, session.KindType, `invalid tool declaration: tool "a": annotations.destructiveHint must be a boolean`},
		{"tools that are not an array", `{"name":"a"}`, false, session.KindType, "invalid tool declaration: tools must be an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := session.ParseTools(decode(t, tc.tools), tc.expects)
			require.Error(t, err)
			require.Equal(t, tc.kind, session.KindOf(err))
			if tc.message != "" {
				require.Equal(t, tc.message, err.Error())
			}
		})
	}
}

func TestParseTools_Valid(t *testing.T) {
	tools, err := session.ParseTools(decode(t, `[
		{"name":"weather","description":"Weather","inputSchema":{"type":"object","title":"W","properties":{"city":{"type":"string","description":"x","examples":["Rome"]}},"required":["city"]},"hasExecute":true,
		 "annotations":{"title":"Get weather","readOnlyHint":true,"x-vendor":1}},
		{"name":"ask","description":"Ask the user","inputSchema":{"type":"object"}}]`), true)
	require.NoError(t, err)
	require.Len(t, tools, 2)
	require.True(t, tools[0].HasExecute)
	require.False(t, tools[1].HasExecute)
	require.Equal(t, "Get weather", tools[0].Annotations.Title)
	require.True(t, *tools[0].Annotations.ReadOnlyHint)
	require.Nil(t, tools[0].Annotations.DestructiveHint)
	require.Equal(t, "", tools[0].ValidateArguments([]byte(`{"city":"Rome"}`)))
	require.Equal(t, `invalid arguments for tool weather: at /: missing required property "city"`, tools[0].ValidateArguments([]byte(`{}`)))
}
