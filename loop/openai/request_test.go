package openai

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// An ArrayBuffer or typed array crosses from the face as {type: "bytes", base64}: the
// backend names its format from its signature and sends it as a data: URL.
func TestMediaURL_Bytes(t *testing.T) {
	b64 := func(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }
	for _, tc := range []struct{ name, media, want, err string }{
		{"PNG", `{"type":"bytes","base64":"` + b64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") + `"}`, "data:image/png;base64," + b64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ""},
		{"JPEG", `{"type":"bytes","base64":"` + b64("\xff\xd8\xff\xe0") + `"}`, "data:image/jpeg;base64," + b64("\xff\xd8\xff\xe0"), ""},
		{"GIF", `{"type":"bytes","base64":"` + b64("GIF89a\x01\x00") + `"}`, "data:image/gif;base64," + b64("GIF89a\x01\x00"), ""},
		{"WebP", `{"type":"bytes","base64":"` + b64("RIFF\x24\x00\x00\x00WEBPVP8 ") + `"}`, "data:image/webp;base64," + b64("RIFF\x24\x00\x00\x00WEBPVP8 "), ""},
		{"a mimeType given wins", `{"type":"bytes","mimeType":"image/avif","base64":"AQID"}`, "data:image/avif;base64,AQID", ""},
		{"unknown bytes", `{"type":"bytes","base64":"AQID"}`, "", "NotSupportedError"},
		{"too short to tell", `{"type":"bytes","base64":"/w=="}`, "", "NotSupportedError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mediaURL(jsonv.RawMessage(tc.media))
			if tc.err != "" {
				require.Equal(t, session.Kind(tc.err), session.KindOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// Audio goes as an input_audio part, WAV or MP3, named by its mimeType or its signature.
func TestAudioInput(t *testing.T) {
	b64 := func(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }
	wav := b64("RIFF\x24\x00\x00\x00WAVEfmt ")
	for _, tc := range []struct{ name, media, data, format, err string }{
		{"WAV bytes", `{"type":"bytes","base64":"` + wav + `"}`, wav, "wav", ""},
		{"MP3 bytes with an ID3 tag", `{"type":"bytes","base64":"` + b64("ID3\x04\x00") + `"}`, b64("ID3\x04\x00"), "mp3", ""},
		{"MP3 bytes from a frame", `{"type":"bytes","base64":"` + b64("\xff\xfb\x90\x00") + `"}`, b64("\xff\xfb\x90\x00"), "mp3", ""},
		{"a Blob's type wins", `{"type":"bytes","mimeType":"audio/mpeg","base64":"AQID"}`, "AQID", "mp3", ""},
		{"mimeType and data", `{"mimeType":"audio/x-wav","data":"AQID"}`, "AQID", "wav", ""},
		{"a mimeType in capitals", `{"mimeType":"Audio/MPEG","data":"AQID"}`, "AQID", "mp3", ""},
		{"a data: URL", `"data:audio/wav;base64,AA"`, "AA", "wav", ""},
		{"a web URL", `"https://example.com/a.wav"`, "", "", "NotSupportedError"},
		{"another format", `{"type":"bytes","mimeType":"audio/ogg","base64":"AQID"}`, "", "", "NotSupportedError"},
		{"unknown bytes", `{"type":"bytes","base64":"AQID"}`, "", "", "NotSupportedError"},
		{"nothing to send", `{"mimeType":"audio/wav"}`, "", "", "TypeError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, format, err := audioInput(jsonv.RawMessage(tc.media))
			if tc.err != "" {
				require.Equal(t, session.Kind(tc.err), session.KindOf(err), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, []string{tc.data, tc.format}, []string{data, format})
		})
	}
}

func TestBuildRequest_AudioPart(t *testing.T) {
	req := &loop.Request{Messages: []session.Message{{Role: session.RoleUser, Parts: []session.Part{
		{Type: session.PartText, Text: "hear"}, {Type: session.PartAudio, Media: jsonv.RawMessage(`"data:audio/wav;base64,AA"`)}}}}}
	body, err := buildRequest(Config{Model: "m"}, req)
	require.NoError(t, err)
	require.Contains(t, string(body), `"messages":[{"role":"user","content":[{"type":"text","text":"hear"},{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}}]}]`)
}

// A JSON Schema constraint becomes response_format; a RegExp ({"pattern": source}) has
// none in the Chat Completions API, so it is left to the loop's check and repair round.
func TestBuildRequest_ResponseFormat(t *testing.T) {
	msgs := []session.Message{session.TextMessage(session.RoleUser, "q")}
	for _, tc := range []struct{ name, constraint, want string }{
		{"a JSON Schema", `{"type":"object"}`, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"q"}],"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object"}}}}`},
		{"a RegExp", `{"pattern":"^a+$"}`, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"q"}]}`},
		{"a schema with a pattern among other keywords", `{"type":"string","pattern":"^a+$"}`, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"q"}],"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"string","pattern":"^a+$"}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := buildRequest(Config{Model: "m"}, &loop.Request{Messages: msgs, ResponseConstraint: jsonv.RawMessage(tc.constraint)})
			require.NoError(t, err)
			require.Equal(t, tc.want, string(body))
		})
	}
}

// A response the page supplied for a call never made in the session cannot be a "tool"
// message (servers refuse one without its tool_calls): it goes as the user's text.
func TestBuildRequest_UnpairedResult(t *testing.T) {
	r := session.ToolResult{CallID: "x1", Name: "weather", Parts: []session.ResultPart{{Type: "text", Text: "sun"}}}
	req := &loop.Request{Messages: []session.Message{session.UnpairedMessage(r), session.TextMessage(session.RoleUser, "so?")}}
	body, err := buildRequest(Config{Model: "m"}, req)
	require.NoError(t, err)
	require.Contains(t, string(body), `"messages":[{"role":"user","content":"Result of the tool weather (call x1): sun"},{"role":"user","content":"so?"}]`)
}

// head decodes by hand what base64.StdEncoding.DecodeString decodes of the first 16
// characters, whatever they are: line breaks, padding, a bad character, a short tail.
func TestHead_DecodesAsPackageBase64(t *testing.T) {
	for _, tc := range []struct{ name, b64 string }{
		{"empty", ""},
		{"sixteen characters of more", "iVBORw0KGgoAAAANSUhEUgAA"},
		{"exactly a PNG signature", base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n"))},
		{"one byte, padded", "/w=="},
		{"two bytes, padded", "/9g="},
		{"a lone = after two characters", "/w=A"},
		{"= after one character", "/===="},
		{"= at a group's start", "AAAA=AAA"},
		{"line breaks inside", "R0lG\r\nODlh\nAQAB"},
		{"a line break between the two =", "/w=\r\n="},
		{"a bad character in the second group", "R0lGOD*hAQAB"},
		{"a short tail", "R0lGODlhA"},
		{"URL-safe alphabet", "-_-_AAAA"},
		{"the whole alphabet", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := base64.StdEncoding.DecodeString(tc.b64[:min(len(tc.b64), 16)])
			require.Equal(t, string(want), head(tc.b64))
		})
	}
}

// What chat templates require of the messages: call ids of nine letters and digits that
// an engine hands back as they were (Mistral's templates raise on any other), the same
// in a call and its result and from request to request; "name" on tool messages for an
// in-page engine (a server gets none: OpenAI's API refuses it); and no
// assistant message with neither content nor calls.
func TestWireMessages_WhatTemplatesRequire(t *testing.T) {
	call := func(id string) session.Message {
		return session.CallMessage(session.ToolCall{CallID: id, Name: "get_weather", Arguments: jsonv.RawMessage(`{}`)})
	}
	result := func(id string) session.Message {
		return session.ResultMessage(session.ToolResult{CallID: id, Name: "get_weather", Parts: []session.ResultPart{{Type: "text", Text: "ok"}}})
	}
	long := "chatcmpl-tool-0123456789abcdef0123456789abcdef"
	clash := hashID("call_1", 0) // nine letters and digits: goes as it is, unless taken
	for _, tc := range []struct {
		name    string
		msgs    []session.Message
		callIDs []string // the wire ids of the calls, in order
		toolIDs []string // of the results, in order
		roles   []string
	}{
		{"an id of nine letters and digits goes as it is",
			[]session.Message{call("a1b2c3d4e"), result("a1b2c3d4e")},
			[]string{"a1b2c3d4e"}, []string{"a1b2c3d4e"}, []string{"assistant", "tool"}},
		{"a longer id goes as nine characters of its hash, the same in its result",
			[]session.Message{call(long), result(long)},
			[]string{hashID(long, 0)}, []string{hashID(long, 0)}, []string{"assistant", "tool"}},
		{"an id of nine with other characters is hashed",
			[]session.Message{call("call_1234"), result("call_1234")},
			[]string{hashID("call_1234", 0)}, []string{hashID("call_1234", 0)}, []string{"assistant", "tool"}},
		{"two ids that would share a wire id: the later one is hashed again",
			[]session.Message{call("call_1"), call(clash), result("call_1"), result(clash)},
			[]string{clash, hashID(clash, 0)}, []string{clash, hashID(clash, 0)}, []string{"assistant", "tool", "tool"}},
		{"an assistant turn of white space is left out",
			[]session.Message{session.TextMessage(session.RoleUser, "hi"), session.TextMessage(session.RoleAssistant, "\n\n"), call("a1b2c3d4e"), result("a1b2c3d4e")},
			[]string{"a1b2c3d4e"}, []string{"a1b2c3d4e"}, []string{"user", "assistant", "tool"}},
		{"an empty assistant turn is left out, a user's is not",
			[]session.Message{session.TextMessage(session.RoleUser, ""), session.TextMessage(session.RoleAssistant, "")},
			nil, nil, []string{"user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, names := range []bool{true, false, true} { // the same in every request
				msgs, err := wireMessages(tc.msgs, names)
				require.NoError(t, err)
				var roles, callIDs, toolIDs []string
				for _, m := range msgs {
					roles = append(roles, m.Role)
					for _, c := range m.ToolCalls {
						require.Regexp(t, `^[0-9A-Za-z]{9}$`, c.ID)
						callIDs = append(callIDs, c.ID)
					}
					if m.Role == "tool" {
						if names { // an in-page engine's templates
							require.Equal(t, "get_weather", m.Name)
						} else { // a server: OpenAI's API refuses a name on a tool message
							require.Empty(t, m.Name)
						}
						toolIDs = append(toolIDs, m.ToolCallID)
					}
				}
				require.Equal(t, tc.roles, roles)
				require.Equal(t, tc.callIDs, callIDs)
				require.Equal(t, tc.toolIDs, toolIDs)
			}
		})
	}
	require.Equal(t, "call_1", tcID(t), "the history keeps the page's callIDs")
}

func tcID(t *testing.T) string {
	m := session.CallMessage(session.ToolCall{CallID: "call_1", Name: "f", Arguments: jsonv.RawMessage(`{}`)})
	_, err := wireMessages([]session.Message{m}, true)
	require.NoError(t, err)
	return m.Call().CallID
}

// The request body for a step, byte for byte: members in a fixed order, strings escaped as
// encoding/json escapes them (<, >, &, U+2028), raw JSON compacted; a schema or constraint
// that is not JSON, or media the backend cannot send, fails the step.
func TestBuildRequest_Bodies(t *testing.T) {
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
	server, engine := Config{Model: "m"}, Config{Model: "m", ToolNames: true}
	const (
		start     = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":`
		system    = `{"role":"system","content":"Be brief. \u003cscript\u003e\u0026amp;\u003c/script\u003e"}`
		toolsJSON = `[{"type":"function","function":{"name":"get_weather","description":"Weather \u003cnow\u003e \u0026 later","parameters":{"properties":{"city":{"description":"a \u003cb\u003e \u2028 c","type":"string"}},"type":"object"}}},{"type":"function","function":{"name":"noop","description":"Does nothing","parameters":{"type":"object"}}}]`
		invalid   = "json: error calling MarshalJSON for type json.RawMessage: "
	)
	for _, tc := range []struct {
		name      string
		cfg       Config
		req       *loop.Request
		want, err string
		kind      session.Kind
	}{
		{"no messages: an empty array", server, &loop.Request{}, start + `[]}`, "", ""},
		{"a history: texts escaped as encoding/json escapes them, images, calls joined to the text before them, results", server, &loop.Request{Messages: history},
			start + `[` + system + `,{"role":"user","content":"quotes \" back\\slash \t tab \u0001 ctl \u2028\u2029 é 😀 \ufffd bad"},` +
				`{"role":"user","content":[{"type":"text","text":"look:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{"type":"image_url","image_url":{"url":"https://x/a.png?a=1\u0026b=2"}},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,BB"}},{"type":"text"}]},` +
				`{"role":"user","content":[]},` +
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"7pPNQO8GX","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome \u003cit\u003e\"}"}},{"id":"wCBTlKcFX","type":"function","function":{"name":"noop","arguments":"{}"}}]},` +
				`{"role":"tool","content":"21°C\n{\"t\":21}","tool_call_id":"7pPNQO8GX"},` +
				`{"role":"tool","content":"Error: no \u003cdata\u003e","tool_call_id":"wCBTlKcFX"},` +
				`{"role":"user","content":"again"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"7pPNQO8GX","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome \u003cit\u003e\"}"}}]}]}`, "", ""},
		{"an in-page engine's tool messages name their tool", engine, &loop.Request{Messages: history},
			start + `[` + system + `,{"role":"user","content":"quotes \" back\\slash \t tab \u0001 ctl \u2028\u2029 é 😀 \ufffd bad"},` +
				`{"role":"user","content":[{"type":"text","text":"look:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{"type":"image_url","image_url":{"url":"https://x/a.png?a=1\u0026b=2"}},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,BB"}},{"type":"text"}]},` +
				`{"role":"user","content":[]},` +
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"7pPNQO8GX","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome \u003cit\u003e\"}"}},{"id":"wCBTlKcFX","type":"function","function":{"name":"noop","arguments":"{}"}}]},` +
				`{"role":"tool","content":"21°C\n{\"t\":21}","tool_call_id":"7pPNQO8GX","name":"get_weather"},` +
				`{"role":"tool","content":"Error: no \u003cdata\u003e","tool_call_id":"wCBTlKcFX","name":"noop"},` +
				`{"role":"user","content":"again"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"7pPNQO8GX","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome \u003cit\u003e\"}"}}]}]}`, "", ""},
		{"a model name escaped as encoding/json escapes it", Config{Model: "a<b>&\"c\"\u2028"}, &loop.Request{}, `{"model":"a\u003cb\u003e\u0026\"c\"\u2028","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, "", ""},
		{"tools, the server choosing: no tool_choice", server, &loop.Request{Messages: history[:2], Tools: tools}, start + `[` + system + `,{"role":"user","content":"quotes \" back\\slash \t tab \u0001 ctl \u2028\u2029 é 😀 \ufffd bad"}],"tools":` + toolsJSON + `}`, "", ""},
		{"tools, none chosen", server, &loop.Request{Tools: tools, ToolChoice: loop.ToolChoice{Mode: "none"}}, start + `[],"tools":` + toolsJSON + `,"tool_choice":"none"}`, "", ""},
		{"tools, one required", server, &loop.Request{Tools: tools, ToolChoice: loop.ToolChoice{Mode: "required"}}, start + `[],"tools":` + toolsJSON + `,"tool_choice":"required"}`, "", ""},
		{"tools, a named tool", server, &loop.Request{Tools: tools, ToolChoice: loop.ToolChoice{Mode: "tool", Name: "get_<weather>"}}, start + `[],"tools":` + toolsJSON + `,"tool_choice":{"function":{"name":"get_\u003cweather\u003e"},"type":"function"}}`, "", ""},
		{"tools, an unknown mode: no tool_choice", server, &loop.Request{Tools: tools, ToolChoice: loop.ToolChoice{Mode: "sometimes"}}, start + `[],"tools":` + toolsJSON + `}`, "", ""},
		{"a tool choice without tools: neither", server, &loop.Request{ToolChoice: loop.ToolChoice{Mode: "tool", Name: "x"}}, start + `[]}`, "", ""},
		{"a tool without a schema: parameters null", server, &loop.Request{Tools: []session.Tool{{Name: "nil", Description: "no schema"}}}, start + `[],"tools":[{"type":"function","function":{"name":"nil","description":"no schema","parameters":null}}]}`, "", ""},
		{"an invalid schema", server, &loop.Request{Tools: badSchema}, "", invalid + "unexpected end of JSON input", session.KindOperation},
		{"an empty schema", server, &loop.Request{Tools: []session.Tool{{Name: "empty", InputSchema: jsonv.RawMessage{}}}}, "", invalid + "unexpected end of JSON input", session.KindOperation},
		{"a response constraint, compacted and escaped", server, &loop.Request{ResponseConstraint: jsonv.RawMessage(" {\n \"type\" : \"object\", \"description\": \"<x> & \u2028\" }\n")}, start + `[],"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","description":"\u003cx\u003e \u0026 \u2028"}}}}`, "", ""},
		{"an invalid constraint", server, &loop.Request{ResponseConstraint: jsonv.RawMessage(`{"type"}`)}, "", invalid + "invalid character '}' after object key", session.KindOperation},
		{"an invalid schema and constraint: the schema's error", server, &loop.Request{Tools: badSchema, ResponseConstraint: jsonv.RawMessage(`[`)}, "", invalid + "unexpected end of JSON input", session.KindOperation},
		{"a call first: an assistant message with no content", server, &loop.Request{Messages: []session.Message{session.CallMessage(call)}}, start + `[{"role":"assistant","content":null,"tool_calls":[{"id":"7pPNQO8GX","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Rome \u003cit\u003e\"}"}}]}]}`, "", ""},
		{"a bad image, before a bad schema", server, &loop.Request{Messages: []session.Message{{Role: session.RoleUser, Parts: []session.Part{image(`{"url":5}`)}}}, Tools: badSchema}, "", "malformed message: an image must be a URL or {mimeType, data}", session.KindType},
		{"an image result", server, &loop.Request{Messages: []session.Message{session.CallMessage(call), session.ResultMessage(session.ToolResult{CallID: "c1", Name: "snap", Parts: []session.ResultPart{{Type: "image", Value: jsonv.RawMessage(`"data:,"`)}}})}}, "", "content type not declared in expectedInputs: tool snap returned image, which the OpenAI-compatible backend cannot send back", session.KindNotSupported},
		{"sampling balanced: no temperature", server, &loop.Request{SamplingMode: "balanced"}, start + `[]}`, "", ""},
		{"sampling most-predictable: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "most-predictable"}, start + `[` + system + `],"temperature":0}`, "", ""},
		{"sampling predictable: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "predictable"}, start + `[` + system + `],"temperature":0.3}`, "", ""},
		{"sampling slightly-predictable: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "slightly-predictable"}, start + `[` + system + `],"temperature":0.5}`, "", ""},
		{"sampling slightly-creative: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "slightly-creative"}, start + `[` + system + `],"temperature":0.9}`, "", ""},
		{"sampling creative: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "creative"}, start + `[` + system + `],"temperature":1.1}`, "", ""},
		{"sampling most-creative: its temperature", server, &loop.Request{Messages: history[:1], SamplingMode: "most-creative"}, start + `[` + system + `],"temperature":1.3}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := buildRequest(tc.cfg, tc.req)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.Equal(t, tc.kind, session.KindOf(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

// FuzzBuildRequest: whatever the text, name and schema, the body reads back with
// encoding/json as what was given (invalid UTF-8 replaced byte by byte); only a schema
// that is not JSON fails.
func FuzzBuildRequest(f *testing.F) {
	f.Add("hello", "get_weather", `{"type":"object"}`)
	f.Add("<&>\u2028", "a\xffb", ` { "a" : [1, 2.50, "<x>"] } `)
	f.Add("", "", `{"type":`)
	f.Fuzz(func(t *testing.T, text, name, schema string) {
		req := &loop.Request{
			Messages:   []session.Message{session.TextMessage(session.RoleUser, text)},
			Tools:      []session.Tool{{Name: name, Description: text, InputSchema: jsonv.RawMessage(schema)}},
			ToolChoice: loop.ToolChoice{Mode: "tool", Name: name},
		}
		got, err := buildRequest(Config{Model: name}, req)
		if !json.Valid([]byte(schema)) {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		var body struct {
			Model    string
			Messages []struct{ Content string }
			Tools    []struct {
				Function struct {
					Name, Description string
					Parameters        any
				}
			}
			ToolChoice struct{ Function struct{ Name string } } `json:"tool_choice"`
		}
		require.NoError(t, json.Unmarshal(got, &body), "%s", got)
		valid := func(s string) string { return string([]rune(s)) }
		var params any
		require.NoError(t, json.Unmarshal([]byte(schema), &params))
		require.Equal(t, valid(name), body.Model)
		require.Equal(t, valid(text), body.Messages[0].Content)
		require.Equal(t, valid(name), body.Tools[0].Function.Name)
		require.Equal(t, valid(text), body.Tools[0].Function.Description)
		require.Equal(t, params, body.Tools[0].Function.Parameters)
		require.Equal(t, valid(name), body.ToolChoice.Function.Name)
	})
}
