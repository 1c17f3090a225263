package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// These tests hold the jsonv-based code to the encoding/json-based code it replaced
// (oracle_test.go): byte-identical requests, the same deltas from the same streams, the
// same error messages — but for type mismatches, which encoding/json described in Go
// terms ("cannot unmarshal string into Go struct field …") and which now name the
// member ("choices[].index is a string, not an integer").

// relayWith is relay with read in place of readStream (the old decoder, oracleReadStream).
func relayWith(read func(loop.Context, *Response, func(loop.Delta) error) error, body []byte, contentType string) []string {
	return relayReader(read, bytes.NewReader(body), contentType)
}

const malformed = "error the model failed: malformed data from the server: "

var (
	oldTypeError = regexp.MustCompile(`^json: cannot unmarshal `)
	newTypeError = regexp.MustCompile(`^(the chunk|\S+) is (an object|an array|a string|a boolean|a number|the number \S+), not (a string|an integer|an object|an array)$`)
)

// sameRelay requires readStream to relay body as the old code did; a type mismatch
// must be one in both, whatever its wording.
func sameRelay(t *testing.T, body []byte, contentType string) {
	t.Helper()
	want := relayWith(oracleReadStream, body, contentType)
	got := relay(bytes.NewReader(body), contentType)
	if n := len(want); n > 0 && len(got) == n && strings.HasPrefix(want[n-1], malformed) && strings.HasPrefix(got[n-1], malformed) {
		w, g := strings.TrimPrefix(want[n-1], malformed), strings.TrimPrefix(got[n-1], malformed)
		if oldTypeError.MatchString(w) && newTypeError.MatchString(g) {
			want[n-1], got[n-1] = malformed+"<type mismatch>", malformed+"<type mismatch>"
		}
	}
	require.Equal(t, want, got, "body: %q", body)
}

// chunkCases are single chunks (sent as a plain JSON completion) at the edges of what
// encoding/json accepted, each compared with the old code's result.
var chunkCases = []struct{ name, chunk string }{
	{"keys in another case", `{"Choices":[{"INDEX":0,"Delta":{"Content":"hi","Tool_Calls":[{"Index":0,"ID":"c","Function":{"Name":"f","Arguments":"{}"}}]},"Finish_Reason":"stop"}],"USAGE":{"Prompt_Tokens":3,"completion_TOKENS":4}}`},
	{"keys with escapes", `{"\u0063hoices":[{"delta":{"c\u006fntent":"hi"}}],"usag\u0065":{"prompt_tokens":1}}`},
	{"keys folded beyond ASCII (Kelvin sign, long s)", `{"choice\u017f":[{"delta":{"content":"x"}}],"usage":{"prompt_to\u212aens":5}}`},
	{"a key that only looks alike", `{"choices_":[{"delta":{"content":"x"}}],"choice":[],"usage ":{}}`},
	{"null everywhere", `{"choices":null,"usage":null,"error":null}`},
	{"null choice", `{"choices":[null]}`},
	{"null members", `{"choices":[{"index":null,"delta":null,"message":null,"finish_reason":null}]}`},
	{"null tool call makes an empty call", `{"choices":[{"delta":{"content":null,"tool_calls":[null]}}]}`},
	{"null function and index", `{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":null}]}}]}`},
	{"top-level null", `null`},
	{"top-level array", `[]`},
	{"top-level string", `"x"`},
	{"top-level number", `1`},
	{"top-level true", `true`},
	{"empty", ``},
	{"white space", " \t\r\n"},
	{"choices is an object", `{"choices":{}}`},
	{"a choice is a number", `{"choices":[1]}`},
	{"index is a string", `{"choices":[{"index":"0","delta":{"content":"x"}}]}`},
	{"index is 1.0", `{"choices":[{"index":1.0}]}`},
	{"index is 1e0", `{"choices":[{"index":1e0}]}`},
	{"index is -0", `{"choices":[{"index":-0,"delta":{"content":"x"}}]}`},
	{"index is the largest int", `{"choices":[{"index":9223372036854775807,"delta":{"content":"x"}}]}`},
	{"index overflows", `{"choices":[{"index":9223372036854775808}]}`},
	{"index is the smallest int", `{"choices":[{"index":-9223372036854775808,"delta":{"content":"x"}}]}`},
	{"index underflows", `{"choices":[{"index":-9223372036854775809}]}`},
	{"tokens are decimals", `{"usage":{"prompt_tokens":1.5}}`},
	{"usage is an array", `{"usage":[]}`},
	{"usage is empty", `{"usage":{}}`},
	{"content is a number", `{"choices":[{"delta":{"content":5}}]}`},
	{"content is an object", `{"choices":[{"delta":{"content":{"a":1}}}]}`},
	{"finish_reason is true", `{"choices":[{"finish_reason":true}]}`},
	{"message is a string", `{"choices":[{"message":"x"}]}`},
	{"delta is an array", `{"choices":[{"delta":[]}]}`},
	{"tool_calls is an object", `{"choices":[{"delta":{"tool_calls":{}}}]}`},
	{"a tool call id is a number", `{"choices":[{"delta":{"tool_calls":[{"id":5}]}}]}`},
	{"function is an array", `{"choices":[{"delta":{"tool_calls":[{"function":[]}]}}]}`},
	{"a function name is false", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":false}}]}}]}`},
	{"a mismatch, then a syntax error", `{"choices":5, "x": }`},
	{"a mismatch, then trailing data", `{"choices":5} x`},
	{"unknown members of every kind", `{"id":"x","n":-1.5e+10,"b":[true,false,null,{"a":[]}],"choices":[{"logprobs":{"content":[{"token":"a","bytes":[97]}]},"delta":{"role":"assistant","content":"ok"}}],"z":{}}`},
	{"arguments as an object, spaced", `{"choices":[{"delta":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":{ "a" : [1, 2] }}}]}}]}`},
	{"arguments as a number, an array, true", `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":5}},{"function":{"arguments":[1]}},{"function":{"arguments":true}}]}}]}`},
	{"arguments with escapes", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"{\"q\":\"\\u00e9 \\\"x\\\" \u00e9\"}"}}]}}]}`},
	{"arguments with a lone surrogate", `{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"\ud800x\udc00\ud83d\ude00"}}]}}]}`},
	{"arguments with invalid UTF-8", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"a\xffb\xc3\"}}]}}]}"},
	{"content with invalid UTF-8", "{\"choices\":[{\"delta\":{\"content\":\"a\xff\xfeb\"}}]}"},
	{"content with escapes", `{"choices":[{"delta":{"content":"tab\there \/ \b\f\n\r \u2028 \uD83D\uDE00"}}]}`},
	{"arguments null, empty, spaces", `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":null}},{"function":{"arguments":""}},{"function":{"arguments":"  "}}]}}]}`},
	{"an empty message hides the delta", `{"choices":[{"delta":{"content":"d"},"message":{}}]}`},
	{"a null message does not", `{"choices":[{"delta":{"content":"d"},"message":null}]}`},
	{"choices of other indexes are skipped", `{"choices":[{"index":1,"delta":{"content":"one"}},{"index":0,"delta":{"content":"zero"},"finish_reason":"stop"},{"delta":{"content":"again"}}]}`},
	{"an error object", `{"error":{"message":"boom","type":"x"}}`},
	{"an error string", `{"error":"boom"}`},
	{"an error without message, spaced", `{"error":{"code":5 , "x": [1, 2]}}`},
	{"an error message in another case", `{"error":{"Message":"boom"}}`},
	{"an error number", `{"error":5}`},
	{"an empty error string", `{"error":""}`},
	{"an error whose message is a number", `{"error":{"message":5}}`},
	{"an error beside choices", `{"choices":[{"delta":{"content":"x"}}],"error":{"message":"late"}}`},
	{"a repeated choices merges", `{"choices":[{"delta":{"content":"a"}}],"choices":[{"index":0}]}`},
	{"a repeated usage merges", `{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`},
	{"a null usage between resets", `{"usage":{"prompt_tokens":1},"usage":null,"usage":{"completion_tokens":2}}`},
	{"an empty repeat empties", `{"choices":[{"delta":{"content":"a"}},{"index":1}],"choices":[]}`},
	{"a repeated message merges", `{"choices":[{"message":{"content":"a"}}],"choices":[{"message":{}}]}`},
	{"a repeated content, null", `{"choices":[{"delta":{"content":"a","content":null}}]}`},
	{"repeated tool_calls merge", `{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"name":"f"}}],"tool_calls":[{"id":"x"}]}}]}`},
	{"a repeated index, null", `{"choices":[{"delta":{"tool_calls":[{"index":3,"index":null,"id":"x"}]}}]}`},
	{"a repeated error, null", `{"error":{"message":"a"},"error":null}`},
	{"a shorter repeat truncates", `{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}],"choices":[{}]}`},
	{"trailing data", `{"choices":[]} x`},
	{"two values", `{} {}`},
	{"white space around", " \n{\"choices\":[ { \"delta\" : { \"content\" : \"x\" } } ] }\r\n "},
	{"a trailing comma", `{"choices":[{"index":0,}]}`},
	{"a trailing comma in an array", `{"choices":[{},]}`},
	{"a bad literal", `{"a":tru}`},
	{"a leading zero", `{"a":01}`},
	{"a bad escape", `{"a":"\x"}`},
	{"a short unicode escape", `{"a":"\u12"}`},
	{"a control character", "{\"a\":\"\x01\"}"},
	{"no colon", `{"a" 1}`},
	{"a lone comma", `{,}`},
	{"an open array", `[`},
	{"a bare minus", `{"a":-}`},
	{"a bare point", `{"a":1.}`},
	{"a bare exponent", `{"a":1e}`},
	{"a non-string key", `{1:2}`},
	{"an unclosed string", `{"choices":[{"delta":{"content":"Hel`},
	{"an unclosed object", `{"choices":[]`},
	{"a NUL after the value", "{}\x00"},
}

func TestReadStream_MatchesEncodingJSON(t *testing.T) {
	for _, tc := range chunkCases {
		t.Run(tc.name, func(t *testing.T) {
			sameRelay(t, []byte(tc.chunk), "application/json")
		})
	}
}

// deepChunk is a chunk whose unknown member nests n arrays, within a document that adds
// one more container (the object).
func deepChunk(n int) []byte {
	return []byte(`{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"choices":[{"delta":{"content":"deep"}}]}`)
}

func TestReadStream_NestingLimitMatchesEncodingJSON(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			sameRelay(t, deepChunk(n), "application/json")
		})
	}
	// Known members nest too: choices[] > delta > tool_calls[] > function > arguments.
	args := strings.Repeat("[", 9993) + strings.Repeat("]", 9993)
	for _, extra := range []string{"", "[]"} {
		body := `{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":[` + args + extra + `]}}]}}]}`
		sameRelay(t, []byte(body), "application/json")
	}
}

// A known difference: encoding/json reused a slice's backing array when an array member
// came again, so a third, longer "choices" after a shorter second one found the earlier
// elements beyond it. No server repeats keys; decode starts such elements afresh.
func TestReadStream_ThriceRepeatedArray(t *testing.T) {
	body := []byte(`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}],"choices":[{}],"choices":[{},{}]}`)
	require.Equal(t, []string{"text a", "text b"}, relayWith(oracleReadStream, body, "application/json"))
	require.Equal(t, []string{"text a"}, relay(bytes.NewReader(body), "application/json"))
}

func TestReadStream_RecordedStreamsMatchEncodingJSON(t *testing.T) {
	files, err := os.ReadDir("testdata")
	require.NoError(t, err)
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		t.Run(f.Name(), func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + f.Name())
			require.NoError(t, err)
			sameRelay(t, b, "text/event-stream")
			sameRelay(t, b, "application/json")
		})
	}
	sameRelay(t, syntheticStream(30), "text/event-stream")
}

// FuzzReadStreamMatchesEncodingJSON: any body, as events or as one completion, relays as
// it did over encoding/json.
func FuzzReadStreamMatchesEncodingJSON(f *testing.F) {
	files, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range files {
		if b, err := os.ReadFile("testdata/" + e.Name()); err == nil && !e.IsDir() {
			f.Add(b, false)
		}
	}
	for _, tc := range chunkCases {
		f.Add([]byte(tc.chunk), true)
		f.Add([]byte("data: "+tc.chunk+"\n\ndata: [DONE]\n\n"), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, whole bool) {
		ct := "text/event-stream"
		if whole {
			ct = "application/json"
		}
		sameRelay(t, body, ct)
	})
}

// FuzzDecodeChunk: the reader accepts exactly what encoding/json accepts, with the same
// syntax error, whatever the document.
func FuzzDecodeChunk(f *testing.F) {
	for _, tc := range chunkCases {
		f.Add([]byte(tc.chunk))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c chunk
		err := c.decode(data)
		var old oracleChunk
		oldErr := json.Unmarshal(data, &old)
		var syntax *json.SyntaxError
		switch {
		case oldErr == nil:
			require.NoError(t, err)
		case errors.As(oldErr, &syntax):
			require.EqualError(t, err, oldErr.Error())
		default:
			require.Error(t, err)
			require.Regexp(t, newTypeError, err.Error())
		}
	})
}

func TestServerMessage_MatchesEncodingJSON(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct{ name, body string }{
		{"OpenAI", `{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{"Ollama", `{"error":"model \"llama9\" not found"}`},
		{"a top-level message", `{"message":"nope"}`},
		{"AWS's capitalised Message", `{"Message":"User is not authorized"}`},
		{"FastAPI's detail string", `{"detail":"Not Found"}`},
		{"FastAPI's validation detail, an array: the text", `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`},
		{"a message that is not a string: the text", `{"error":{"message":"x"},"message":5}`},
		{"an error message that is a number", `{"error":{"message":5},"message":"top"}`},
		{"an error that is an object without message", `{"error":{"code":5},"detail":"d"}`},
		{"an empty error message", `{"error":{"message":""},"message":"top"}`},
		{"an error that is null", `{"error":null,"detail":"d"}`},
		{"an error that is an array", `{"error":[1],"message":"m"}`},
		{"keys in capitals", `{"ERROR":{"MESSAGE":"caps"}}`},
		{"a repeated message", `{"message":"a","Message":"b"}`},
		{"a repeated error", `{"error":{"message":"a"},"error":"b"}`},
		{"null", `null`},
		{"a string", `"just text"`},
		{"plain text", "upstream exploded\n"},
		{"HTML", "<html><body>502 Bad Gateway</body></html>"},
		{"empty", ""},
		{"long text is cut", long},
		{"broken JSON", `{"error":{"message":"x"}`},
		{"escapes", `{"error":{"message":"a\u00e9\n\"b\""}}`},
		{"invalid UTF-8", "{\"error\":\"a\xffb\"}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, oracleServerMessage([]byte(tc.body)), serverMessage([]byte(tc.body)))
		})
	}
}

func FuzzServerMessage(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"x"}}`))
	f.Add([]byte(`{"error":"x","detail":[1]}`))
	f.Add([]byte(`{"Message":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		require.Equal(t, oracleServerMessage(body), serverMessage(body))
	})
}

func TestMediaURL_MatchesEncodingJSON(t *testing.T) {
	for _, media := range []string{
		`"data:image/png;base64,AA"`, `"https://example.com/a.png"`, `""`, `null`, `5`, `[]`, ``, `{`,
		`{"url":"https://x/y.png"}`, `{"URL":"https://x/y.png"}`, `{"mimeType":"image/png","data":"AA"}`,
		`{"mimetype":"image/jpeg","DATA":"BB"}`, `{"data":"AA"}`, `{"url":"","data":"AA","mimeType":"image/gif"}`,
		`{"url":5}`, `{"url":"u","extra":{"deep":[1,2]}}`, `{"mimeType":null,"data":"AA"}`, `{}`,
		`{"url":"a\u003cb"}`, `"a\u0026b"`, `{"url":"u"} x`,
	} {
		t.Run(media, func(t *testing.T) {
			want, wantErr := oracleMediaURL(jsonv.RawMessage(media))
			got, err := mediaURL(jsonv.RawMessage(media))
			require.Equal(t, want, got)
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
		})
	}
}

// requestCases are steps at the edges of what json.Marshal wrote.
func requestCases(t testing.TB) map[string]*loop.Request {
	tools, err := session.ParseTools([]any{
		map[string]any{"name": "get_weather", "description": "Weather <now> & later", "hasExecute": true,
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string", "description": "a <b> \u2028 c"}}}},
		map[string]any{"name": "noop", "description": "Does nothing", "hasExecute": true, "inputSchema": map[string]any{"type": "object"}},
	}, false)
	require.NoError(t, err)
	call := session.ToolCall{CallID: "c1", Name: "get_weather", Arguments: jsonv.RawMessage(`{"city": "Rome <it>"}`)}
	call2 := session.ToolCall{CallID: "c2", Name: "noop", Arguments: jsonv.RawMessage(`{}`)}
	image := func(media string) session.Part {
		return session.Part{Type: session.PartImage, Media: jsonv.RawMessage(media)}
	}
	text := func(s string) session.Part { return session.Part{Type: session.PartText, Text: s} }
	history := []session.Message{
		session.TextMessage(session.RoleSystem, "Be brief. <script>&amp;</script>"),
		session.TextMessage(session.RoleUser, "quotes \" back\\slash \t tab \x01 ctl \u2028\u2029 é 😀 \xff bad"),
		{Role: session.RoleUser, Parts: []session.Part{text("look:"), image(`"data:image/png;base64,AA"`), image(`{"url":"https://x/a.png?a=1&b=2"}`), image(`{"mimeType":"image/jpeg","data":"BB"}`), text("")}},
		{Role: session.RoleUser, Parts: []session.Part{}},
		session.TextMessage(session.RoleAssistant, "Checking."),
		session.CallMessage(call), session.CallMessage(call2),
		session.ResultMessage(session.ToolResult{CallID: "c1", Name: "get_weather", Parts: []session.ResultPart{{Type: "text", Text: "21°C"}, {Type: "object", Value: jsonv.RawMessage(`{"t":21}`)}}}),
		session.ResultMessage(session.ErrorResult(call2, "no <data>")),
		session.TextMessage(session.RoleUser, "again"),
		session.CallMessage(call),
	}
	badSchema := []session.Tool{{Name: "bad", InputSchema: jsonv.RawMessage(`{"type":`)}}
	nilSchema := []session.Tool{{Name: "nil", Description: "no schema"}}
	emptySchema := []session.Tool{{Name: "empty", InputSchema: jsonv.RawMessage{}}}
	cases := map[string]*loop.Request{
		"empty":                       {},
		"history":                     {Messages: history},
		"tools, auto":                 {Messages: history[:2], Tools: tools},
		"tools, none":                 {Tools: tools, ToolChoice: loop.ToolChoice{Mode: "none"}},
		"tools, required":             {Tools: tools, ToolChoice: loop.ToolChoice{Mode: "required"}},
		"tools, a named tool":         {Tools: tools, ToolChoice: loop.ToolChoice{Mode: "tool", Name: "get_<weather>"}},
		"tools, an unknown mode":      {Tools: tools, ToolChoice: loop.ToolChoice{Mode: "sometimes"}},
		"a tool choice without tools": {ToolChoice: loop.ToolChoice{Mode: "tool", Name: "x"}},
		"a schema with no schema":     {Tools: nilSchema},
		"an invalid schema":           {Tools: badSchema},
		"an empty schema":             {Tools: emptySchema},
		"a response constraint":       {ResponseConstraint: jsonv.RawMessage(" {\n \"type\" : \"object\", \"description\": \"<x> & \u2028\" }\n")},
		"an invalid constraint":       {ResponseConstraint: jsonv.RawMessage(`{"type"}`)},
		"both invalid: tools first":   {Tools: badSchema, ResponseConstraint: jsonv.RawMessage(`[`)},
		"a call first":                {Messages: []session.Message{session.CallMessage(call)}},
		"a bad image":                 {Messages: []session.Message{{Role: session.RoleUser, Parts: []session.Part{image(`{"url":5}`)}}}, Tools: badSchema},
		"an image result":             {Messages: []session.Message{session.CallMessage(call), session.ResultMessage(session.ToolResult{CallID: "c1", Name: "snap", Parts: []session.ResultPart{{Type: "image", Value: jsonv.RawMessage(`"data:,"`)}}})}},
	}
	for mode := range temperatures {
		cases["sampling "+mode] = &loop.Request{Messages: history[:1], SamplingMode: mode}
	}
	cases["sampling balanced"] = &loop.Request{SamplingMode: "balanced"}
	return cases
}

func TestBuildRequest_MatchesEncodingJSON(t *testing.T) {
	for _, model := range []string{"m", "qwen2.5:7b", "a<b>&\"c\"\u2028"} {
		for name, req := range requestCases(t) {
			t.Run(model+"/"+name, func(t *testing.T) {
				cfg := Config{Model: model, ToolNames: model == "qwen2.5:7b"} // an engine's, or a server's
				want, wantErr := oracleBuildRequest(cfg, req)
				got, err := buildRequest(cfg, req)
				require.Equal(t, string(want), string(got))
				// The module words its error for a bad raw message as encoding/json did
				// for its json.RawMessage, the type the oracle's structs held before
				// jsonv.RawMessage took its place.
				require.Equal(t, strings.ReplaceAll(fmt.Sprint(wantErr), "type jsonv.RawMessage", "type json.RawMessage"), fmt.Sprint(err))
				if wantErr != nil {
					require.Equal(t, session.KindOf(wantErr), session.KindOf(err))
				}
			})
		}
	}
}

// FuzzBuildRequest: any text, name or schema is written as json.Marshal wrote it.
func FuzzBuildRequest(f *testing.F) {
	f.Add("hello", "get_weather", `{"type":"object"}`, `"data:image/png;base64,AA"`)
	f.Add("<&>\u2028", "a\xffb", ` { "a" : [1, 2.50, "<x>"] } `, `{"mimeType":"image/png","data":"AA"}`)
	f.Fuzz(func(t *testing.T, text, name, schema, media string) {
		call := session.ToolCall{CallID: name, Name: name, Arguments: jsonv.RawMessage(text)}
		req := &loop.Request{
			Messages: []session.Message{
				session.TextMessage(session.RoleUser, text),
				{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartText, Text: text}, {Type: session.PartImage, Media: jsonv.RawMessage(media)}}},
				session.CallMessage(call),
				session.ResultMessage(session.ToolResult{CallID: name, Name: name, Parts: []session.ResultPart{{Type: "text", Text: text}}}),
			},
			Tools:              []session.Tool{{Name: name, Description: text, InputSchema: jsonv.RawMessage(schema)}},
			ToolChoice:         loop.ToolChoice{Mode: "tool", Name: name},
			ResponseConstraint: jsonv.RawMessage(schema),
		}
		cfg := Config{Model: name, ToolNames: len(text)%2 == 0} // an engine's, or a server's
		want, wantErr := oracleBuildRequest(cfg, req)
		got, err := buildRequest(cfg, req)
		require.Equal(t, string(want), string(got))
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
	})
}
