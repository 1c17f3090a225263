package openai

import (
	"encoding/base64"
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
