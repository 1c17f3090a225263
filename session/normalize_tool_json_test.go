package session

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// toolMessageFast reads the shapes a history passed back holds by the thousand, and
// leaves to the generic path whatever it would write back otherwise or refuse
// (FuzzNormalizeJSON holds the messages it reads to the generic path's).
func TestToolMessageFast(t *testing.T) {
	all := &NormalizeOptions{Expected: AllInputs}
	for _, tc := range []struct {
		name, raw string
		o         *NormalizeOptions
		fast      bool
	}{
		{"a call as session.history writes it", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"f","arguments":{"a":1,"b":["x",true,null]}}}]}`, all, true},
		{"a call without callId", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{}}}]}`, all, true},
		{"a call with an empty callID and a callId", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"","callId":"c1","name":"f","arguments":{"a":{"b":[]}}}}]}`, all, true},
		{"a result of text and object parts, untrusted", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"text","value":"a\"b"},{"type":"object","value":[1,{"k":"v"}]}],"untrusted":true}}]}`, all, true},
		{"a result of no parts", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"f","result":[]}}]}`, all, true},
		{"an error result", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"f","errorMessage":"no\u00e9"}}]}`, all, true},
		{"spaces between tokens", ` { "role" : "tool-call" , "content" : [ { "type" : "tool-call" , "value" : { "callID" : "c1" , "name" : "f" } } ] } `, all, false},
		{"a call in Chrome's form, keys in any order", `{"content":[{"value":{"arguments":{},"name":"f","callId":"c1"},"type":"tool-call"}],"role":"assistant"}`, all, false},
		{"a call without arguments", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":null}}]}`, all, false},
		{"a result as a string, in Chrome's form", `{"role":"user","content":[{"type":"tool-response","value":{"callID":"c1","name":"f","result":"ok"}}]}`, all, false},
		{"the tool-response role", `{"role":"tool-response","content":[{"type":"tool-response","value":{"callID":"c1","name":"f","errorMessage":"no"}}]}`, all, false},
		{"a text part that is not a string, read as its JSON text", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"text","value":1}]}}]}`, all, true},
		{"an empty name", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"","arguments":{}}}]}`, all, false},

		{"arguments with keys out of order, written back sorted", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{"b":1,"a":2}}}]}`, all, true},
		{"arguments with an escape", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{"a":"\n"}}}]}`, all, true},
		{"arguments with a character written back escaped", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{"a":"<b>"}}}]}`, all, true},
		{"arguments with spaces", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{ "a":1}}}]}`, all, true},
		{"an undeclared call", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}`, &NormalizeOptions{}, false},
		{"an undeclared response", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":"ok"}}]}`, &NormalizeOptions{Expected: Expected{ToolCall: true}}, false},
		{"a key twice", `{"role":"tool-call","role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}`, all, false},
		{"a prefix", `{"role":"tool-call","prefix":false,"content":[{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}`, all, false},
		{"two parts", `{"role":"assistant","content":[{"type":"text","value":"x"},{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}`, all, false},
		{"a call in a result message", `{"role":"tool-result","content":[{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}`, all, false},
		{"no callID", `{"role":"tool-call","content":[{"type":"tool-call","value":{"name":"f"}}]}`, all, false},
		{"both result and errorMessage", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":"a","errorMessage":"b"}}]}`, all, false},
		{"an image result", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"image","value":{"base64":"AA","type":"bytes"}}]}}]}`, all, true},
		{"binary data in an object part", `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"object","value":{"base64":"AA","type":"bytes"}}]}}]}`, all, false},
		{"a text message", `{"role":"user","content":"hi"}`, all, false},
		{"more after the message", `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f"}}]}x`, all, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := toolMessageFast([]byte(tc.raw), tc.raw, tc.o)
			require.Equal(t, tc.fast, ok)
			v, err := DecodeJSON([]byte(tc.raw))
			if !ok || err != nil {
				return
			}
			want, err := normalizeMessage(0, v.(map[string]any), true, false, tc.o)
			require.NoError(t, err)
			require.Equal(t, want, []Message{m})
		})
	}
}
