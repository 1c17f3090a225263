package custom_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/custom"
	"langmodel/session"
)

// oracleRenderRequest is RenderRequest as it was over json.Marshal: the jsonv-based one
// must write the same bytes.
func oracleRenderRequest(req *loop.Request) []byte {
	var b bytes.Buffer
	b.WriteString(`{"messages":`)
	b.Write(session.MarshalMessages(req.Messages))
	if len(req.Tools) > 0 {
		b.WriteString(`,"tools":[`)
		for i, t := range req.Tools {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(t.Name)
			desc, _ := json.Marshal(t.Description)
			b.WriteString(`{"name":`)
			b.Write(name)
			b.WriteString(`,"description":`)
			b.Write(desc)
			b.WriteString(`,"inputSchema":`)
			b.Write(t.InputSchema)
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	b.WriteString(`,"toolChoice":`)
	switch req.ToolChoice.Mode {
	case "", "auto":
		b.WriteString(`"auto"`)
	case "tool":
		name, _ := json.Marshal(req.ToolChoice.Name)
		b.WriteString(`{"type":"tool","name":`)
		b.Write(name)
		b.WriteByte('}')
	default:
		mode, _ := json.Marshal(req.ToolChoice.Mode)
		b.Write(mode)
	}
	if len(req.ResponseConstraint) > 0 {
		b.WriteString(`,"responseConstraint":`)
		b.Write(req.ResponseConstraint)
	}
	if req.SamplingMode != "" {
		mode, _ := json.Marshal(req.SamplingMode)
		b.WriteString(`,"samplingMode":`)
		b.Write(mode)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func TestRenderRequest_MatchesEncodingJSON(t *testing.T) {
	odd := "quotes \" back\\slash \t \x01 <b>&amp;</b> \u2028\u2029 é 😀 \xff"
	tools := []session.Tool{
		{Name: "w", Description: "Weather", InputSchema: jsonv.RawMessage(`{"type":"object"}`)},
		{Name: odd, Description: odd, InputSchema: jsonv.RawMessage(" { \"type\" : \"object\" } ")},
	}
	tests := []struct {
		name string
		req  *loop.Request
	}{
		{"empty", &loop.Request{}},
		{"everything", &loop.Request{Messages: []session.Message{session.TextMessage(session.RoleUser, odd)}, Tools: tools,
			ToolChoice: loop.ToolChoice{Mode: "tool", Name: odd}, ResponseConstraint: jsonv.RawMessage(`{"type":"object"}`), SamplingMode: "creative"}},
		{"auto", &loop.Request{Tools: tools[:1], ToolChoice: loop.ToolChoice{Mode: "auto"}}},
		{"none", &loop.Request{ToolChoice: loop.ToolChoice{Mode: "none"}}},
		{"required", &loop.Request{ToolChoice: loop.ToolChoice{Mode: "required"}}},
		{"an odd mode", &loop.Request{ToolChoice: loop.ToolChoice{Mode: odd}, SamplingMode: odd}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, string(oracleRenderRequest(tc.req)), string(custom.RenderRequest(tc.req)))
		})
	}
}

func FuzzRenderRequest(f *testing.F) {
	f.Add("w", "Weather", "tool", "creative")
	f.Add("<\u2028>", "a\xffb", "required", "")
	f.Fuzz(func(t *testing.T, name, desc, mode, sampling string) {
		req := &loop.Request{
			Tools:        []session.Tool{{Name: name, Description: desc, InputSchema: jsonv.RawMessage(`{}`)}},
			ToolChoice:   loop.ToolChoice{Mode: mode, Name: name},
			SamplingMode: sampling,
		}
		require.Equal(t, string(oracleRenderRequest(req)), string(custom.RenderRequest(req)))
	})
}

// TestParsePiece_ArgumentsMatchEncodingJSON: structured arguments are written as
// json.Marshal wrote the decoded value: keys sorted, numbers as given, HTML escaped.
func TestParsePiece_ArgumentsMatchEncodingJSON(t *testing.T) {
	tests := []struct{ name, arguments, want string }{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"numbers as given", `{"n":[1.50,1e3,-0,12345678901234567890]}`, `{"n":[1.50,1e3,-0,12345678901234567890]}`},
		{"HTML and separators escaped", `{"s":"<b>&amp;</b>\u2028"}`, `{"s":"\u003cb\u003e\u0026amp;\u003c/b\u003e\u2028"}`},
		{"nested, spaced", `{ "o" : { "z" : [ true , false , null , {} , [] ] } }`, `{"o":{"z":[true,false,null,{},[]]}}`},
		{"an array", `[1,"x"]`, `[1,"x"]`},
		{"a number", `42`, `42`},
		{"true", `true`, `true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := custom.ParsePiece([]byte(`{"type":"tool-call","value":{"name":"f","arguments":` + tc.arguments + `}}`))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(d.Call.Arguments))
			v, err := session.DecodeJSON([]byte(tc.arguments))
			require.NoError(t, err)
			old, err := json.Marshal(v)
			require.NoError(t, err)
			require.Equal(t, string(old), string(d.Call.Arguments))
		})
	}
}
