package openai

import (
	"encoding/json"
	"io"
	"sort"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// This file keeps the code this package had over encoding/json's Marshal and Unmarshal,
// unchanged but for names, as the oracle the jsonv-based code is held to: same request
// bytes, same relayed deltas, same messages (equivalence_test.go).

type oracleChatRequest struct {
	Model          string                `json:"model"`
	Stream         bool                  `json:"stream"`
	StreamOptions  *oracleStreamOptions  `json:"stream_options,omitempty"`
	Messages       []oracleWireMessage   `json:"messages"`
	Tools          []oracleWireTool      `json:"tools,omitempty"`
	ToolChoice     any                   `json:"tool_choice,omitempty"`
	ResponseFormat *oracleResponseFormat `json:"response_format,omitempty"`
	Temperature    *float64              `json:"temperature,omitempty"`
}

type oracleStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type oracleWireMessage struct {
	Role       string               `json:"role"`
	Content    any                  `json:"content"`
	ToolCalls  []oracleWireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string               `json:"tool_call_id,omitempty"`
	Name       string               `json:"name,omitempty"`
}

type oracleContentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	ImageURL *oracleImageURL `json:"image_url,omitempty"`
}

type oracleImageURL struct {
	URL string `json:"url"`
}

type oracleWireToolCall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function oracleWireFunction `json:"function"`
}

type oracleWireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oracleWireTool struct {
	Type     string            `json:"type"`
	Function oracleWireToolDef `json:"function"`
}

type oracleWireToolDef struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Parameters  jsonv.RawMessage `json:"parameters"`
}

type oracleResponseFormat struct {
	Type       string            `json:"type"`
	JSONSchema *oracleJSONSchema `json:"json_schema,omitempty"`
}

type oracleJSONSchema struct {
	Name   string           `json:"name"`
	Schema jsonv.RawMessage `json:"schema"`
}

func oracleBuildRequest(cfg Config, req *loop.Request) ([]byte, error) {
	out := oracleChatRequest{Model: cfg.Model, Stream: true, StreamOptions: &oracleStreamOptions{IncludeUsage: true}}
	msgs, err := oracleWireMessages(req.Messages, cfg.ToolNames)
	if err != nil {
		return nil, err
	}
	out.Messages = msgs
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, oracleWireTool{Type: "function", Function: oracleWireToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
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
		out.ResponseFormat = &oracleResponseFormat{Type: "json_schema", JSONSchema: &oracleJSONSchema{Name: "response", Schema: req.ResponseConstraint}}
	}
	if t, ok := temperatures[req.SamplingMode]; ok {
		out.Temperature = &t
	}
	return json.Marshal(out)
}

func oracleWireMessages(msgs []session.Message, names bool) ([]oracleWireMessage, error) {
	out := make([]oracleWireMessage, 0, len(msgs))
	var ids wireIDs // the wire ids templates need (TestWireIDs holds them)
	for _, m := range msgs {
		switch m.Role {
		case session.RoleToolCall:
			c := m.Call()
			wc := oracleWireToolCall{ID: ids.of(c.CallID), Type: "function", Function: oracleWireFunction{Name: c.Name, Arguments: string(c.Arguments)}}
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, wc)
				continue
			}
			out = append(out, oracleWireMessage{Role: "assistant", ToolCalls: []oracleWireToolCall{wc}})
		case session.RoleToolResult:
			r := m.Result()
			content, err := resultText(r)
			if err != nil {
				return nil, err
			}
			w := oracleWireMessage{Role: "tool", ToolCallID: ids.of(r.CallID), Content: content}
			if names {
				w.Name = r.Name
			}
			out = append(out, w)
		default:
			content, err := oracleWireContent(m)
			if err != nil {
				return nil, err
			}
			out = append(out, oracleWireMessage{Role: string(m.Role), Content: content})
		}
	}
	return out, nil
}

func oracleWireContent(m session.Message) (any, error) {
	if len(m.Parts) == 1 && m.Parts[0].Type == session.PartText {
		return m.Parts[0].Text, nil
	}
	parts := make([]oracleContentPart, 0, len(m.Parts))
	for _, p := range m.Parts {
		switch p.Type {
		case session.PartText:
			parts = append(parts, oracleContentPart{Type: "text", Text: p.Text})
		case session.PartImage:
			url, err := oracleMediaURL(p.Media)
			if err != nil {
				return nil, err
			}
			parts = append(parts, oracleContentPart{Type: "image_url", ImageURL: &oracleImageURL{URL: url}})
		default:
			return nil, session.Errorf(session.KindNotSupported, session.ErrUnexpectedInput, "the OpenAI-compatible backend does not send %s input", p.Type)
		}
	}
	return parts, nil
}

func oracleMediaURL(raw jsonv.RawMessage) (string, error) {
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

func oracleServerMessage(body []byte) string {
	var v struct {
		Error   jsonv.RawMessage `json:"error"`
		Message string           `json:"message"`
		Detail  string           `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != "":
			return v.Detail
		}
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text
}

type oracleChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string               `json:"content"`
			ToolCalls []oracleToolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		Message *struct {
			Content   *string               `json:"content"`
			ToolCalls []oracleToolCallDelta `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error jsonv.RawMessage `json:"error"`
}

type oracleToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string           `json:"name"`
		Arguments jsonv.RawMessage `json:"arguments"`
	} `json:"function"`
}

type oracleAssembler struct {
	calls map[int]*partialCall
	order []int
}

func (a *oracleAssembler) Add(deltas []oracleToolCallDelta) {
	if a.calls == nil {
		a.calls = make(map[int]*partialCall)
	}
	for i, d := range deltas {
		idx := len(a.order) + i
		if d.Index != nil {
			idx = *d.Index
		}
		pc := a.calls[idx]
		if pc == nil {
			pc = &partialCall{}
			a.calls[idx] = pc
			a.order = append(a.order, idx)
		}
		if d.ID != "" {
			pc.id = d.ID
		}
		if d.Function.Name != "" {
			pc.name += d.Function.Name
		}
		args := d.Function.Arguments
		var s string
		switch {
		case len(args) == 0 || string(args) == "null":
		case json.Unmarshal(args, &s) == nil:
			pc.args.WriteString(s)
		default:
			pc.args.Write(args)
		}
	}
}

func (a *oracleAssembler) Calls() []session.ToolCall {
	idx := append([]int(nil), a.order...)
	sort.Ints(idx)
	out := make([]session.ToolCall, 0, len(idx))
	for _, i := range idx {
		pc := a.calls[i]
		args := strings.TrimSpace(pc.args.String())
		if args == "" {
			args = "{}"
		}
		out = append(out, session.ToolCall{CallID: pc.id, Name: pc.name, Arguments: jsonv.RawMessage(args)})
	}
	return out
}

func oracleReadStream(ctx loop.Context, resp *Response, emit func(loop.Delta) error) error {
	var asm oracleAssembler
	finished := false
	handle := func(data []byte) error {
		var c oracleChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return session.Errorf(session.KindOperation, session.ErrModel, "malformed data from the server: %v", err)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return session.Errorf(session.KindOperation, session.ErrModel, "the server reported an error mid-stream: %s", oracleServerMessage(append(append([]byte(`{"error":`), c.Error...), '}')))
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finished = true
			}
			content, calls := ch.Delta.Content, ch.Delta.ToolCalls
			if ch.Message != nil {
				content, calls = ch.Message.Content, ch.Message.ToolCalls
			}
			if content != nil && *content != "" {
				if err := emit(loop.Delta{Text: *content}); err != nil {
					return err
				}
			}
			asm.Add(calls)
		}
		if c.Usage != nil {
			return emit(loop.Delta{Usage: &loop.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}})
		}
		return nil
	}

	if strings.Contains(resp.Header["content-type"], "application/json") {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxEventSize))
		if err != nil {
			return streamError(ctx, err)
		}
		if err := handle(body); err != nil {
			return err
		}
	} else {
		done, err := readEvents(resp.Body, handle)
		if err != nil {
			return streamError(ctx, err)
		}
		if !done && !finished {
			return session.Errorf(session.KindNetwork, session.ErrModel, "the stream ended before [DONE]: the connection was dropped")
		}
	}
	for _, c := range asm.Calls() {
		c := c
		if err := emit(loop.Delta{Call: &c}); err != nil {
			return err
		}
	}
	return nil
}
