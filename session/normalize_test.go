package session_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := session.DecodeJSON([]byte(s))
	require.NoError(t, err)
	return v
}

// TestNormalize_Forms checks that every accepted input form gives the same canonical
// messages, shown as the draft-PR JSON that session.history exports.
func TestNormalize_Forms(t *testing.T) {
	callJSON := `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"w","arguments":{"city":"Rome"}}}]}`
	resultJSON := `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}]}`
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"a string is one user message", `"Hi"`, `[{"role":"user","content":[{"type":"text","value":"Hi"}]}]`},
		{"an empty array is one empty user message", `[]`, `[{"role":"user","content":[{"type":"text","value":""}]}]`},
		{"empty content is one empty text part", `[{"role":"assistant","content":[]}]`, `[{"role":"assistant","content":[{"type":"text","value":""}]}]`},
		{"string content is one text part", `[{"role":"system","content":"Be brief."}]`, `[{"role":"system","content":[{"type":"text","value":"Be brief."}]}]`},
		{"contiguous text parts collapse without a separator", `[{"role":"user","content":[{"type":"text","value":"foo"},{"type":"text","value":"bar"}]}]`, `[{"role":"user","content":[{"type":"text","value":"foobar"}]}]`},
		{"prefix stays on a final assistant message", `[{"role":"user","content":"Q"},{"role":"assistant","content":"A:","prefix":true}]`, `[{"role":"user","content":[{"type":"text","value":"Q"}]},{"role":"assistant","content":[{"type":"text","value":"A:"}],"prefix":true}]`},
		{"draft-PR tool-call role with callID", `[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"w","arguments":{"city":"Rome"}}}]}]`, `[` + callJSON + `]`},
		{"Chrome's assistant tool-call part with callId", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c1","name":"w","arguments":{"city":"Rome"}}}]}]`, `[` + callJSON + `]`},
		{"draft-PR tool-result role", `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}]}]`, `[` + resultJSON + `]`},
		{"tool-response role and part aliases", `[{"role":"tool-response","content":[{"type":"tool-response","value":{"callID":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}]}]`, `[` + resultJSON + `]`},
		{"Chrome's user tool-response part", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}]}]`, `[` + resultJSON + `]`},
		{"a string result is one text part", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":"sun"}}]}]`, `[` + resultJSON + `]`},
		{"absent arguments are {}", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c2","name":"now"}}]}]`, `[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c2","callId":"c2","name":"now","arguments":{}}}]}]`},
		{"a text result part with an object value is its JSON text", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":[{"type":"text","value":{"t":21,"sky":["sun"]}}]}}]}]`, `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"text","value":"{\"sky\":[\"sun\"],\"t\":21}"}]}}]}]`},
		{"a text result part with an array value is its JSON text", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":[{"type":"text","value":[1,"a"]}]}}]}]`, `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"text","value":"[1,\"a\"]"}]}}]}]`},
		{"a tool error", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","errorMessage":"down"}}]}]`, `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","errorMessage":"down"}}]}]`},
		{"text and calls in one assistant message split in order", `[{"role":"assistant","content":[{"type":"text","value":"Checking."},{"type":"tool-call","value":{"callId":"c1","name":"w","arguments":{"city":"Rome"}}}]}]`, `[{"role":"assistant","content":[{"type":"text","value":"Checking."}]},` + callJSON + `]`},
		// The explainer writes content as one content object: a one-part sequence.
		{"content one text part", `[{"role":"user","content":{"type":"text","value":"Hi"}}]`, `[{"role":"user","content":[{"type":"text","value":"Hi"}]}]`},
		{"content one tool-call part, callID", `[{"role":"tool-call","content":{"type":"tool-call","value":{"callID":"c1","name":"w","arguments":{"city":"Rome"}}}}]`, `[` + callJSON + `]`},
		{"content one tool-call part in an assistant message, callId", `[{"role":"assistant","content":{"type":"tool-call","value":{"callId":"c1","name":"w","arguments":{"city":"Rome"}}}}]`, `[` + callJSON + `]`},
		{"content one tool-result part, the explainer's callId", `[{"role":"tool-result","content":{"type":"tool-result","value":{"callId":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}}]`, `[` + resultJSON + `]`},
		{"role tool-result with a tool-response part, content one object", `[{"role":"tool-result","content":{"type":"tool-response","value":{"callID":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}}]`, `[` + resultJSON + `]`},
		{"role tool-result with a tool-response part in an array", `[{"role":"tool-result","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":[{"type":"text","value":"sun"}]}}]}]`, `[` + resultJSON + `]`},
		{"Chrome's user tool-response part, content one object", `[{"role":"user","content":{"type":"tool-response","value":{"callId":"c1","name":"w","result":"sun"}}}]`, `[` + resultJSON + `]`},
		{"an object result keeps its JSON, numbers exact", `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"w","result":[{"type":"object","value":{"t":12.50,"big":12345678901234567890}}]}}]}]`, `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"object","value":{"big":12345678901234567890,"t":12.50}}]}}]}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := session.NormalizeOptions{Expected: session.AllInputs}
			msgs, err := session.Normalize(decode(t, tc.input), all)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(session.MarshalMessages(msgs)))
			again, err := session.Normalize(decode(t, string(session.MarshalMessages(msgs))), all)
			require.NoError(t, err)
			require.Equal(t, msgs, again, "the export form normalises to itself")
		})
	}
}

// TestNormalize_Errors checks each rule of a valid prompt by its kind and exact message.
func TestNormalize_Errors(t *testing.T) {
	all := session.NormalizeOptions{Expected: session.AllInputs}
	tests := []struct {
		name    string
		input   string
		opts    session.NormalizeOptions
		kind    session.Kind
		rule    error
		message string
	}{
		{"system message after another message", `[{"role":"user","content":"a"},{"role":"system","content":"b"}]`, session.NormalizeOptions{}, session.KindType, session.ErrSystemNotFirst, "a system message may only be the first message of the session: message 1"},
		{"system message once the session has messages", `[{"role":"system","content":"b"}]`, session.NormalizeOptions{HasPrior: true}, session.KindType, session.ErrSystemNotFirst, "a system message may only be the first message of the session: message 0"},
		{"prefix on a user message", `[{"role":"user","content":"a","prefix":true}]`, session.NormalizeOptions{}, session.KindSyntax, session.ErrPrefixNotAssistant, `prefix is only allowed on an assistant message: message 0 has role "user"`},
		{"prefix not on the last message", `[{"role":"assistant","content":"a","prefix":true},{"role":"user","content":"b"}]`, session.NormalizeOptions{}, session.KindSyntax, session.ErrPrefixNotLast, "prefix is only allowed on the last message: message 0 is followed by others"},
		{"prefix that is not a boolean", `[{"role":"assistant","content":"a","prefix":"yes"}]`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: message 0: prefix must be a boolean"},
		{"an unknown role", `[{"role":"robot","content":"a"}]`, session.NormalizeOptions{}, session.KindType, session.ErrUnknownRole, `unknown role: message 0: "robot"`},
		{"no role", `[{"content":"a"}]`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: message 0 has no role"},
		{"a message that is not an object", `["hi"]`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: message 0 is not an object"},
		{"a number as the prompt", `42`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: a prompt is a string or an array of messages, not a number"},
		{"content of the wrong type", `[{"role":"user","content":7}]`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: message 0: content must be a string, an array of parts or one part {type, value}"},
		{"content one object without a type", `[{"role":"user","content":{"value":"Hi"}}]`, session.NormalizeOptions{}, session.KindType, session.ErrBadMessage, "malformed message: message 0: content must be a string, an array of parts or one part {type, value}; this object has no type"},
		{"a tool-call message with content one text part", `[{"role":"tool-call","content":{"type":"text","value":"x"}}]`, all, session.KindType, session.ErrMisplacedToolPart, "tool content in a message of the wrong role: message 0 part 0: text in a tool-call message"},
		{"text value that is not a string", `[{"role":"user","content":[{"type":"text","value":1}]}]`, session.NormalizeOptions{}, session.KindType, session.ErrTextNotString, "text content must be a string: message 0 part 0"},
		{"an unknown content type", `[{"role":"user","content":[{"type":"video","value":"x"}]}]`, session.NormalizeOptions{}, session.KindType, session.ErrUnknownContentType, `unknown content type: message 0 part 0: "video"`},
		{"an image not declared in expectedInputs", `[{"role":"user","content":[{"type":"image","value":"data:"}]}]`, session.NormalizeOptions{}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: image (declare {type: "image"} in expectedInputs)`},
		{"an image in an assistant message", `[{"role":"assistant","content":[{"type":"image","value":"data:"}]}]`, session.NormalizeOptions{Expected: session.Expected{Image: true}}, session.KindNotSupported, session.ErrAssistantContent, "assistant messages may only hold text and tool calls: message 0 part 0: image content in assistant messages"},
		{"a tool call in a user message", `[{"role":"user","content":[{"type":"tool-call","value":{"callId":"c","name":"w"}}]}]`, all, session.KindType, session.ErrMisplacedToolPart, "tool content in a message of the wrong role: message 0 part 0: a tool call belongs in an assistant or tool-call message, not user"},
		{"a tool result in an assistant message", `[{"role":"assistant","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[]}}]}]`, all, session.KindType, session.ErrMisplacedToolPart, "tool content in a message of the wrong role: message 0 part 0: a tool result belongs in a user or tool-result message, not assistant"},
		{"a tool call without callID", `[{"role":"assistant","content":[{"type":"tool-call","value":{"name":"w"}}]}]`, all, session.KindType, session.ErrBadToolCall, "malformed tool call: message 0 part 0: callID is missing"},
		{"a tool call whose arguments are an array", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c","name":"w","arguments":[1]}}]}]`, all, session.KindData, session.ErrBadToolCall, "malformed tool call: message 0 part 0: arguments must be an object, not an array"},
		{"a tool call whose arguments are a string", `[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c","name":"w","arguments":"{}"}}]}]`, all, session.KindData, session.ErrBadToolCall, "malformed tool call: message 0 part 0: arguments must be an object, not a string"},
		{"a text result part holding binary data", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[{"type":"text","value":{"type":"bytes","base64":"AA=="}}]}}]}]`, all, session.KindData, session.ErrBadToolResult, "malformed tool result: message 0 part 0: malformed tool result: result part 0: a text part holds binary data; give it the type image or audio"},
		{"an object result part holding binary data (an ImageBitmap, a Blob, a buffer)", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[{"type":"object","value":{"type":"bytes","mimeType":"image/png","base64":"AA=="}}]}}]}]`, all, session.KindData, session.ErrBadToolResult, "malformed tool result: message 0 part 0: malformed tool result: result part 0: an object part holds binary data; give it the type image or audio"},
		{"a text result part without a value", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[{"type":"text"}]}}]}]`, all, session.KindType, session.ErrBadToolResult, "malformed tool result: message 0 part 0: malformed tool result: result part 0: text part has no value"},
		{"a tool result with both result and errorMessage", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[],"errorMessage":"x"}}]}]`, all, session.KindType, session.ErrBadToolResult, "malformed tool result: message 0 part 0: give exactly one of result and errorMessage"},
		{"a tool result part of unknown type", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":[{"type":"video","value":1}]}}]}]`, all, session.KindType, session.ErrBadToolResult, `malformed tool result: message 0 part 0: malformed tool result: result part 0: unknown type "video"`},
		{"a tool-call message with string content", `[{"role":"tool-call","content":"c"}]`, all, session.KindType, session.ErrBadMessage, "malformed message: message 0: a tool-call message needs an array of tool-call parts"},
		// § get the expected content types: caller-supplied tool calls and
		// responses need their type in expectedInputs, in either message form.
		{"a draft-PR tool call without tool-call in expectedInputs", `[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c","name":"w"}}]}]`, session.NormalizeOptions{Expected: session.Expected{ToolResponse: true}}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
		{"Chrome's assistant tool call without tool-call in expectedInputs", `[{"role":"assistant","content":[{"type":"tool-call","value":{"callId":"c","name":"w"}}]}]`, session.NormalizeOptions{}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
		{"a draft-PR tool result without tool-response in expectedInputs", `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c","name":"w","result":"x"}}]}]`, session.NormalizeOptions{Expected: session.Expected{ToolCall: true}}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: tool-response (declare {type: "tool-response"} in expectedInputs)`},
		{"Chrome's user tool-response without tool-response in expectedInputs", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c","name":"w","result":"x"}}]}]`, session.NormalizeOptions{}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: tool-response (declare {type: "tool-response"} in expectedInputs)`},
		{"an undeclared tool result is refused before its value is read", `[{"role":"user","content":[{"type":"tool-response","value":7}]}]`, session.NormalizeOptions{}, session.KindNotSupported, session.ErrUnexpectedInput, `content type not declared in expectedInputs: message 0 part 0: tool-response (declare {type: "tool-response"} in expectedInputs)`},
		// DESIGN.md §3: a session that expects tool-call outputs takes, undeclared, the
		// responses to its own model's calls only.
		{"a response to a call the model never made, tool-call among the outputs", `[{"role":"tool-result","content":{"type":"tool-result","value":{"callId":"c9","name":"w","result":"x"}}}]`,
			session.NormalizeOptions{Expected: session.Expected{OwnCallResponses: true}, ModelMade: func(id string) bool { return id == "c1" }}, session.KindNotSupported, session.ErrUnexpectedInput,
			`content type not declared in expectedInputs: message 0 part 0: tool-response (callID "c9" answers no call this session's model made; declare {type: "tool-response"} in expectedInputs)`},
		{"a response to the model's call, tool-call not among the outputs", `[{"role":"tool-result","content":{"type":"tool-result","value":{"callId":"c1","name":"w","result":"x"}}}]`,
			session.NormalizeOptions{ModelMade: func(id string) bool { return id == "c1" }}, session.KindNotSupported, session.ErrUnexpectedInput,
			`content type not declared in expectedInputs: message 0 part 0: tool-response (declare {type: "tool-response"} in expectedInputs)`},
		{"a call the page writes, tool-call among the outputs", `[{"role":"tool-call","content":{"type":"tool-call","value":{"callId":"c1","name":"w"}}}]`,
			session.NormalizeOptions{Expected: session.Expected{OwnCallResponses: true}, ModelMade: func(string) bool { return true }}, session.KindNotSupported, session.ErrUnexpectedInput,
			`content type not declared in expectedInputs: message 0 part 0: tool-call (declare {type: "tool-call"} in expectedInputs)`},
		{"text inside a tool-result message", `[{"role":"tool-result","content":[{"type":"text","value":"x"}]}]`, all, session.KindType, session.ErrMisplacedToolPart, "tool content in a message of the wrong role: message 0 part 0: text in a tool-result message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := session.Normalize(decode(t, tc.input), tc.opts)
			require.Error(t, err)
			require.Equal(t, tc.kind, session.KindOf(err))
			require.ErrorIs(t, err, tc.rule)
			require.Equal(t, tc.message, err.Error())
		})
	}
}

func TestDecodeJSON_KeepsNumbersExact(t *testing.T) {
	v, err := session.DecodeJSON([]byte(`{"n": 12345678901234567890.000}`))
	require.NoError(t, err)
	require.Equal(t, jsonv.Number("12345678901234567890.000"), v.(map[string]any)["n"])
	_, err = session.DecodeJSON([]byte(`{} {}`))
	require.Equal(t, session.KindData, session.KindOf(err))
}

// TestNormalize_OwnCallResponses: a session whose expectedOutputs include tool-call takes
// the responses to its own model's calls, in every form, without tool-response declared.
func TestNormalize_OwnCallResponses(t *testing.T) {
	o := session.NormalizeOptions{Expected: session.Expected{OwnCallResponses: true}, ModelMade: func(id string) bool { return id == "c1" }}
	want := `[{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"w","result":[{"type":"object","value":{"t":21}}]}}]}]`
	for _, tc := range []struct{ name, input string }{
		{"the explainer's: role tool-result, content one object, callId", `[{"role":"tool-result","content":{"type":"tool-result","value":{"callId":"c1","name":"w","result":[{"type":"object","value":{"t":21}}]}}}]`},
		{"role tool-result, a tool-response part in an array, callID", `[{"role":"tool-result","content":[{"type":"tool-response","value":{"callID":"c1","name":"w","result":[{"type":"object","value":{"t":21}}]}}]}]`},
		{"Chrome's: role user, a tool-response part", `[{"role":"user","content":[{"type":"tool-response","value":{"callId":"c1","name":"w","result":[{"type":"object","value":{"t":21}}]}}]}]`},
		{"role tool-response, a tool-result part", `[{"role":"tool-response","content":{"type":"tool-result","value":{"callID":"c1","name":"w","result":[{"type":"object","value":{"t":21}}]}}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := session.Normalize(decode(t, tc.input), o)
			require.NoError(t, err)
			require.JSONEq(t, want, string(session.MarshalMessages(msgs)))
		})
	}
}
