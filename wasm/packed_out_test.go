package wasm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/session"
)

// readPackedReply reads packHistory's answer as js/pack.js unpackHistory does, into what
// json.Unmarshal makes of the history's JSON, and returns it with the reply's id.
func readPackedReply(t *testing.T, b []byte) (int64, []any) {
	t.Helper()
	nl := bytes.IndexByte(b, '\n')
	require.GreaterOrEqual(t, nl, 0, "a newline ends the reply's JSON")
	var r struct {
		Type  string
		ID    int64
		OK    bool
		Value struct {
			Count int
			JSON  []any
		}
	}
	require.NoError(t, json.Unmarshal(b[:nl], &r))
	require.Equal(t, "reply", r.Type)
	require.True(t, r.OK)
	s := string(b[nl+1:])
	out := []any{}
	next := 0
	for range r.Value.Count {
		require.NotEmpty(t, s, "the packed history is cut short")
		letter := s[0]
		s = s[1:]
		if letter == 'j' {
			require.Less(t, next, len(r.Value.JSON))
			out = append(out, r.Value.JSON[next])
			next++
			continue
		}
		n := 0
		for s[0] >= '0' && s[0] <= '9' {
			n = n*10 + int(s[0]-'0')
			s = s[1:]
		}
		require.Equal(t, byte(':'), s[0])
		end := unitsEnd(s, 1, n)
		require.GreaterOrEqual(t, end, 1, "the length in UTF-16 code units is the text's")
		m := map[string]any{"content": []any{map[string]any{"type": "text", "value": s[1:end]}}}
		switch letter {
		case 's':
			m["role"] = "system"
		case 'u':
			m["role"] = "user"
		case 'a':
			m["role"] = "assistant"
		case 'p':
			m["role"], m["prefix"] = "assistant", true
		default:
			t.Fatalf("no role letter %q", letter)
		}
		out = append(out, m)
		s = s[end:]
	}
	require.Empty(t, s, "nothing follows the last message")
	require.Equal(t, len(r.Value.JSON), next, "every JSON message is used")
	return r.ID, out
}

// TestPackHistory: the packed history reads back as the history's JSON
// (session.MarshalMessages) reads, for histories of every shape.
func TestPackHistory(t *testing.T) {
	call := session.ToolCall{CallID: "c1", Name: "lookup", Arguments: jsonv.RawMessage(`{"word":"w"}`)}
	text := func(role session.Role, s string) session.Message { return session.TextMessage(role, s) }
	for _, tc := range []struct {
		name string
		msgs []session.Message
		json int // how many messages go as JSON
	}{
		{"empty history", nil, 0},
		{"system, user and assistant text", []session.Message{text(session.RoleSystem, "Be brief."), text(session.RoleUser, "hi"), text(session.RoleAssistant, "hello")}, 0},
		{"empty text", []session.Message{text(session.RoleUser, ""), text(session.RoleAssistant, "")}, 0},
		{"text that JSON escapes", []session.Message{text(session.RoleUser, "a \"quote\", a \\, a\nnewline, <b>&\u2028\x01")}, 0},
		{"non-ASCII text", []session.Message{text(session.RoleUser, "héllo, 世界"), text(session.RoleAssistant, "ok")}, 0},
		{"astral text: two code units a rune", []session.Message{text(session.RoleUser, "😀 𝄞 x"), text(session.RoleAssistant, "😀")}, 0},
		{"digits after the colon", []session.Message{text(session.RoleUser, "12:34"), text(session.RoleAssistant, "5")}, 0},
		{"an assistant's prefix", []session.Message{text(session.RoleUser, "list"), {Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartText, Text: "1."}}, Prefix: true}}, 0},
		{"invalid UTF-8 goes as JSON", []session.Message{text(session.RoleUser, "ok"), text(session.RoleAssistant, "bad \xff\xfe byte")}, 1},
		{"tool call and text result", []session.Message{text(session.RoleUser, "look"), session.CallMessage(call), session.ResultMessage(session.ToolResult{CallID: "c1", Name: "lookup", Parts: []session.ResultPart{{Type: "text", Text: "found é"}}}), text(session.RoleAssistant, "done")}, 2},
		{"image and object results", []session.Message{session.CallMessage(call), session.ResultMessage(session.ToolResult{CallID: "c1", Name: "lookup", Parts: []session.ResultPart{{Type: "image", Value: jsonv.RawMessage(`{"type":"png","data":"AAA"}`)}, {Type: "object", Value: jsonv.RawMessage(`{"n":1,"s":"x\ny"}`)}}})}, 2},
		{"error result, untrusted", []session.Message{session.CallMessage(call), session.ResultMessage(session.ToolResult{CallID: "c1", Name: "lookup", Failed: true, Error: "no\nluck"}), session.ResultMessage(session.ToolResult{CallID: "c2", Name: "lookup", Untrusted: true, Parts: []session.ResultPart{{Type: "text", Text: "x"}}})}, 3},
		{"several parts", []session.Message{{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartText, Text: "a"}, {Type: session.PartText, Text: "b"}}}, text(session.RoleAssistant, "c")}, 1},
		{"an image", []session.Message{{Role: session.RoleUser, Parts: []session.Part{{Type: session.PartImage, Media: jsonv.RawMessage(`{"type":"png","data":"AAA"}`)}}}, text(session.RoleAssistant, "a cat")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := packHistory(7, tc.msgs, nil)
			var want []any
			require.NoError(t, json.Unmarshal(session.MarshalMessages(tc.msgs), &want))
			id, got := readPackedReply(t, b)
			require.Equal(t, int64(7), id)
			if want == nil {
				want = []any{}
			}
			require.Equal(t, want, got)
			require.Equal(t, tc.json, bytes.Count(b[bytes.IndexByte(b, '\n'):], []byte("j")), "messages packed as JSON")
		})
	}
}

// TestPackHistory_Bytes: the packed form, byte for byte.
func TestPackHistory_Bytes(t *testing.T) {
	b := packHistory(0, []session.Message{
		session.TextMessage(session.RoleSystem, "S"),
		session.TextMessage(session.RoleUser, "héllo 😀"),
		session.CallMessage(session.ToolCall{CallID: "c", Name: "t", Arguments: jsonv.RawMessage(`{}`)}),
		{Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartText, Text: "ok"}}, Prefix: true},
	}, nil)
	require.Equal(t, `{"type":"reply","id":0,"ok":true,"value":{"count":4,"json":[{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c","callId":"c","name":"t","arguments":{}}}]}]}}`+"\n"+
		"s1:Su8:héllo 😀jp2:ok", string(b))
}

// TestHandler_QueryPacked: a history query marked packed is answered packed; unmarked,
// and asked through send, it is JSON as before.
func TestHandler_QueryPacked(t *testing.T) {
	p := newPage(t)
	p.ok("hello", helloVersion)
	p.ok("create", `"session":1,"initialPrompts":[{"role":"user","content":"hi"}],"options":{}`)
	require.Equal(t, `{"type":"reply","id":0,"ok":true,"value":{"count":1,"json":[]}}`+"\nu2:hi", string(p.h.Query([]byte(`{"type":"history","session":1,"packed":true}`))))
	require.Equal(t, `{"type":"reply","id":0,"ok":true,"value":[{"role":"user","content":[{"type":"text","value":"hi"}]}]}`, string(p.h.Query([]byte(`{"type":"history","session":1}`))))
	require.Equal(t, []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "value": "hi"}}}}, p.ok("history", `"session":1,"packed":true`))
	e := p.h.Query([]byte(`{"type":"history","session":2,"packed":true}`))
	require.Contains(t, string(e), `"name":"InvalidStateError"`)
}

// FuzzPackHistory: whatever the texts (any bytes, valid UTF-8 or not), the packed
// history reads back as its JSON does.
func FuzzPackHistory(f *testing.F) {
	for _, s := range []string{"", "ascii only", "héllo", "😀", "\xff", "a\xed\xa0\x80b", "12:3", "\u2028\n\"\\"} {
		f.Add(s, "ok")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		msgs := []session.Message{
			session.TextMessage(session.RoleSystem, b),
			session.TextMessage(session.RoleUser, a),
			session.CallMessage(session.ToolCall{CallID: a, Name: b, Arguments: jsonv.RawMessage(`{}`)}),
			session.TextMessage(session.RoleAssistant, a+b),
			{Role: session.RoleAssistant, Parts: []session.Part{{Type: session.PartText, Text: b + a}}, Prefix: true},
		}
		var want []any
		require.NoError(t, json.Unmarshal(session.MarshalMessages(msgs), &want))
		_, got := readPackedReply(t, packHistory(0, msgs, nil))
		require.Equal(t, want, got)
	})
}
