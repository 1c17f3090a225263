package openai

import (
	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// The parts of a Chat Completions request that buildRequest assembles before writing
// them: the messages, whose tool calls join the assistant message before them.
type wireMessage struct {
	Role       string
	Content    any // string, []contentPart, or nil (null) with tool calls
	ToolCalls  []wireToolCall
	ToolCallID string
	Name       string // the tool a "tool" message answers (templates that need it raise without)
	Reasoning  string // reasoning_content: the reasoning parts of an assistant message
}

type contentPart struct {
	Type     string
	Text     string
	ImageURL string // for image_url parts
	Audio    string // base64 data, for input_audio parts
	Format   string // "wav" or "mp3", for input_audio parts
}

type wireToolCall struct {
	ID        string
	Name      string
	Arguments string // a JSON document in a string, as the API wants
}

// temperatures maps the explainer's samplingMode to a temperature; "balanced" (and no
// mode) leaves the server's default.
var temperatures = map[string]float64{
	"most-predictable": 0, "predictable": 0.3, "slightly-predictable": 0.5,
	"slightly-creative": 0.9, "creative": 1.1, "most-creative": 1.3,
}

// buildRequest renders a step as a Chat Completions request. Consecutive tool calls join
// the assistant message before them (as tool_calls); each result is a "tool" message.
//
// The body is written member by member, in the order and with the omissions that
// encoding/json's Marshal gave the struct it replaces (recorded exchanges compare the
// bytes): model, stream, stream_options, messages, then tools, tool_choice,
// response_format and temperature when set. Schemas are compacted and HTML-escaped by
// jsonv.Append as Marshal did jsonv.RawMessage, with its error when one is not JSON.
func buildRequest(cfg Config, req *loop.Request) ([]byte, error) {
	msgs, err := wireMessages(req.Messages, cfg.ToolNames)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 512)
	b = jsonv.AppendString(append(b, `{"model":`...), cfg.Model)
	b = append(b, `,"stream":true,"stream_options":{"include_usage":true},"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMessage(b, m)
	}
	b = append(b, ']')
	if len(req.Tools) > 0 {
		if b, err = appendTools(b, req.Tools); err != nil {
			return nil, err
		}
		b = appendToolChoice(b, req.ToolChoice)
	}
	if _, re := session.ConstraintPattern(req.ResponseConstraint); len(req.ResponseConstraint) > 0 && !re {
		// A RegExp has no response_format: the loop checks the answer (and repairs it once).
		b = append(b, `,"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":`...)
		if b, err = jsonv.Append(b, req.ResponseConstraint); err != nil {
			return nil, err
		}
		b = append(b, "}}"...)
	}
	if t, ok := temperatures[req.SamplingMode]; ok {
		// Never fails: the temperatures are finite.
		b, _ = jsonv.Append(append(b, `,"temperature":`...), t)
	}
	return append(b, '}'), nil
}

// appendTools writes the tools member: each tool as a function, its input schema as the
// parameters.
func appendTools(b []byte, tools []session.Tool) ([]byte, error) {
	b = append(b, `,"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonv.AppendString(append(b, `{"type":"function","function":{"name":`...), t.Name)
		b = jsonv.AppendString(append(b, `,"description":`...), t.Description)
		var err error
		if b, err = jsonv.Append(append(b, `,"parameters":`...), t.InputSchema); err != nil {
			return nil, err
		}
		b = append(b, "}}"...)
	}
	return append(b, ']'), nil
}

// appendToolChoice writes tool_choice, which "auto" (the servers' default) omits. A named
// tool is the object encoding/json's Marshal made of a map, so with its keys sorted.
func appendToolChoice(b []byte, choice loop.ToolChoice) []byte {
	switch choice.Mode {
	case "none", "required":
		return jsonv.AppendString(append(b, `,"tool_choice":`...), choice.Mode)
	case "tool":
		b = jsonv.AppendString(append(b, `,"tool_choice":{"function":{"name":`...), choice.Name)
		return append(b, `},"type":"function"}`...)
	}
	return b
}

// appendMessage writes one message: role and content always (content null for an
// assistant message that only calls tools), tool_calls and tool_call_id when set.
func appendMessage(b []byte, m wireMessage) []byte {
	b = jsonv.AppendString(append(b, `{"role":`...), m.Role)
	b = append(b, `,"content":`...)
	switch c := m.Content.(type) {
	case string:
		b = jsonv.AppendString(b, c)
	case []contentPart:
		b = appendParts(b, c)
	default:
		b = append(b, "null"...)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonv.AppendString(append(b, `{"id":`...), c.ID)
			b = jsonv.AppendString(append(b, `,"type":"function","function":{"name":`...), c.Name)
			b = jsonv.AppendString(append(b, `,"arguments":`...), c.Arguments)
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	if m.ToolCallID != "" {
		b = jsonv.AppendString(append(b, `,"tool_call_id":`...), m.ToolCallID)
	}
	if m.Name != "" {
		b = jsonv.AppendString(append(b, `,"name":`...), m.Name)
	}
	if m.Reasoning != "" {
		b = jsonv.AppendString(append(b, `,"reasoning_content":`...), m.Reasoning)
	}
	return append(b, '}')
}

// appendParts writes content as an array of parts: {type: "text", text} (text omitted
// when empty) or {type: "image_url", image_url: {url}}.
func appendParts(b []byte, parts []contentPart) []byte {
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonv.AppendString(append(b, `{"type":`...), p.Type)
		if p.Text != "" {
			b = jsonv.AppendString(append(b, `,"text":`...), p.Text)
		}
		switch p.Type {
		case "image_url":
			b = jsonv.AppendString(append(b, `,"image_url":{"url":`...), p.ImageURL)
			b = append(b, '}')
		case "input_audio":
			b = jsonv.AppendString(append(b, `,"input_audio":{"data":`...), p.Audio)
			b = jsonv.AppendString(append(b, `,"format":`...), p.Format)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// wireMessages renders the history as the server's messages. What chat templates
// require of them holds for every server: a call's id is its wire id (wireIDs), the same
// in the call and in its result; a "tool" message names its tool where names is set
// (Config.ToolNames: an in-page engine); and no message has neither content nor calls (an
// assistant turn that was only white space, or empty, is left out).
func wireMessages(msgs []session.Message, names bool) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	var ids wireIDs
	for _, m := range msgs {
		switch m.Role {
		case session.RoleToolCall:
			c := m.Call()
			wc := wireToolCall{ID: ids.of(c.CallID), Name: c.Name, Arguments: string(c.Arguments)}
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, wc)
				continue
			}
			out = append(out, wireMessage{Role: "assistant", ToolCalls: []wireToolCall{wc}})
		case session.RoleToolResult:
			r := m.Result()
			content, err := resultText(r)
			if err != nil {
				return nil, err
			}
			if r.Unpaired {
				// A "tool" message must answer a tool_calls entry before it; a response
				// the page supplied for a call never made here goes as the user's text.
				out = append(out, wireMessage{Role: "user", Content: "Result of the tool " + r.Name + " (call " + r.CallID + "): " + content})
				continue
			}
			w := wireMessage{Role: "tool", ToolCallID: ids.of(r.CallID), Content: content}
			if names {
				w.Name = r.Name
			}
			out = append(out, w)
		default:
			content, reason, err := wireContent(m)
			if err != nil {
				return nil, err
			}
			if s, ok := content.(string); ok && m.Role == session.RoleAssistant && reason == "" && blank(s) {
				continue // nothing to say: a template would render an empty turn, or raise
			}
			out = append(out, wireMessage{Role: string(m.Role), Content: content, Reasoning: reason})
		}
	}
	return out, nil
}

// blank reports whether s is empty or white space.
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// wireIDs gives each call of one request its wire id: nine letters and digits, which
// every chat template accepts (Mistral's raise on any other id) and every engine hands
// back as it was. An id that already is nine letters and digits goes as it is; any
// other is nine characters of a hash of it, so the same call has the same wire id in
// every request (an engine's prefix cache survives from step to step). Two ids of one
// request that would share a wire id are told apart by hashing the later one again, in
// history order, which is the same in every request. The page's callIDs, in the history
// and in events, are never changed: only the request carries wire ids.
type wireIDs struct {
	of_ map[string]string // callID -> wire id
	use map[string]bool   // wire ids given
}

func (w *wireIDs) of(id string) string {
	if v, ok := w.of_[id]; ok {
		return v
	}
	if w.of_ == nil {
		w.of_, w.use = make(map[string]string), make(map[string]bool)
	}
	v := id
	for n := uint64(0); !nineAlnum(v) || w.use[v]; n++ {
		v = hashID(id, n)
	}
	w.of_[id], w.use[v] = v, true
	return v
}

// nineAlnum reports whether id is nine ASCII letters and digits.
func nineAlnum(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < 9; i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// hashID is nine letters and digits from FNV-1a of id and the round n.
func hashID(id string, n uint64) string {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	h := uint64(14695981039346656037) ^ n
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * 1099511628211
	}
	var b [9]byte
	for i := range b {
		b[i] = alnum[h%62]
		h /= 62
		if h == 0 {
			h = uint64(i+1) * 1099511628211
		}
	}
	return string(b[:])
}

// wireContent is a plain string for text-only messages (every server takes it), else an
// array of parts; reasoning parts (kept under keepReasoning) go apart, as the
// reasoning_content that servers whose templates render it read back.
func wireContent(m session.Message) (content any, reason string, err error) {
	if len(m.Parts) == 1 && m.Parts[0].Type == session.PartText {
		return m.Parts[0].Text, "", nil
	}
	parts := make([]contentPart, 0, len(m.Parts))
	for _, p := range m.Parts {
		switch p.Type {
		case session.PartReasoning:
			reason += p.Text
		case session.PartText:
			parts = append(parts, contentPart{Type: "text", Text: p.Text})
		case session.PartImage:
			url, err := mediaURL(p.Media)
			if err != nil {
				return nil, "", err
			}
			parts = append(parts, contentPart{Type: "image_url", ImageURL: url})
		case session.PartAudio:
			data, format, err := audioInput(p.Media)
			if err != nil {
				return nil, "", err
			}
			parts = append(parts, contentPart{Type: "input_audio", Audio: data, Format: format})
		default:
			return nil, "", session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the OpenAI-compatible backend does not send %s input", p.Type)
		}
	}
	if reason != "" && len(parts) <= 1 {
		// Text alone beside the reasoning: a plain string, as for any text message.
		var text string
		for _, p := range parts {
			text = p.Text
		}
		return text, reason, nil
	}
	return parts, reason, nil
}

// resultText renders a tool result for a "tool" message, which takes text only: text parts
// as they are, objects as JSON, failures as "Error: …". Image and audio results cannot be
// sent and fail with NotSupportedError.
func resultText(r *session.ToolResult) (string, error) {
	if r.Failed {
		return "Error: " + r.Error, nil
	}
	return session.PartsText(r.Parts, func(p session.ResultPart) (string, error) {
		return "", session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "tool %s returned %s, which the OpenAI-compatible backend cannot send back", r.Name, p.Type)
	})
}
