package openai

import (
	"encoding/json"

	"langmodel/loop"
	"langmodel/session"
)

// The wire types of a Chat Completions request: only the fields we send.
type chatRequest struct {
	Model          string          `json:"model"`
	Stream         bool            `json:"stream"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	Messages       []wireMessage   `json:"messages"`
	Tools          []wireTool      `json:"tools,omitempty"`
	ToolChoice     any             `json:"tool_choice,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"` // string, []contentPart, or null with tool calls
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // a JSON document in a string, as the API wants
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// temperatures maps the explainer's samplingMode to a temperature; "balanced" (and no
// mode) leaves the server's default.
var temperatures = map[string]float64{
	"most-predictable": 0, "predictable": 0.3, "slightly-predictable": 0.5,
	"slightly-creative": 0.9, "creative": 1.1, "most-creative": 1.3,
}

// buildRequest renders a step as a Chat Completions request. Consecutive tool calls join
// the assistant message before them (as tool_calls); each result is a "tool" message.
func buildRequest(cfg Config, req *loop.Request) ([]byte, error) {
	out := chatRequest{Model: cfg.Model, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true}}
	msgs, err := wireMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	out.Messages = msgs
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, wireTool{Type: "function", Function: wireToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	if len(out.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case "none", "required":
			out.ToolChoice = req.ToolChoice.Mode
		case "tool":
			out.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": req.ToolChoice.Name}}
		}
	}
	if len(req.ResponseConstraint) > 0 {
		out.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: "response", Schema: req.ResponseConstraint}}
	}
	if t, ok := temperatures[req.SamplingMode]; ok {
		out.Temperature = &t
	}
	return json.Marshal(out)
}

func wireMessages(msgs []session.Message) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case session.RoleToolCall:
			c := m.Call()
			wc := wireToolCall{ID: c.CallID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: string(c.Arguments)}}
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
			out = append(out, wireMessage{Role: "tool", ToolCallID: r.CallID, Content: content})
		default:
			content, err := wireContent(m)
			if err != nil {
				return nil, err
			}
			out = append(out, wireMessage{Role: string(m.Role), Content: content})
		}
	}
	return out, nil
}

// wireContent is a plain string for text-only messages (every server takes it), else an
// array of parts.
func wireContent(m session.Message) (any, error) {
	if len(m.Parts) == 1 && m.Parts[0].Type == session.PartText {
		return m.Parts[0].Text, nil
	}
	parts := make([]contentPart, 0, len(m.Parts))
	for _, p := range m.Parts {
		switch p.Type {
		case session.PartText:
			parts = append(parts, contentPart{Type: "text", Text: p.Text})
		case session.PartImage:
			url, err := mediaURL(p.Media)
			if err != nil {
				return nil, err
			}
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
		default:
			return nil, session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the OpenAI-compatible backend does not send %s input", p.Type)
		}
	}
	return parts, nil
}

// mediaURL reads the page's encoding of an image: a URL string (usually a data: URL), or
// {url} / {mimeType, data} with base64 data.
func mediaURL(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s, nil
	}
	var v struct {
		URL      string `json:"url"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	}
	if json.Unmarshal(raw, &v) == nil {
		if v.URL != "" {
			return v.URL, nil
		}
		if v.Data != "" {
			return "data:" + v.MimeType + ";base64," + v.Data, nil
		}
	}
	return "", session.Errorf(session.KindType, session.ErrBadMessage, "an image must be a URL or {mimeType, data}")
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
