package session

import (
	"strings"

	"langmodel/internal/jsonv"
)

// Role is the role of a canonical message. The canonical form is the draft-PR form: one
// message per tool call (RoleToolCall) and one per tool result (RoleToolResult), so that
// eviction, repair and export reason about calls one at a time.
type Role string

const (
	RoleSystem     Role = "system"
	RoleUser       Role = "user"
	RoleAssistant  Role = "assistant"
	RoleToolCall   Role = "tool-call"
	RoleToolResult Role = "tool-result"
)

// PartType is the type of one content part.
type PartType string

const (
	PartText       PartType = "text"
	PartImage      PartType = "image"
	PartAudio      PartType = "audio"
	PartToolCall   PartType = "tool-call"
	PartToolResult PartType = "tool-result"
	// PartReasoning is what the model thought before it answered, on an assistant
	// message, kept only under keepReasoning (docs/reasoning.md).
	PartReasoning PartType = "reasoning"
)

// Message is one canonical message. Messages in a History are never modified in place:
// a History shares them with its marks and clones, so treat every field as read-only.
type Message struct {
	Role   Role
	Parts  []Part
	Prefix bool // only on a final assistant message of an input
}

// Part is one content part. Exactly one of the value fields is set, by Type.
type Part struct {
	Type   PartType
	Text   string           // PartText, PartReasoning
	Media  jsonv.RawMessage // PartImage, PartAudio: the page's encoding, opaque to the engine
	Call   *ToolCall        // PartToolCall
	Result *ToolResult      // PartToolResult
}

// ToolCall is one call the model asked for. Arguments is a compact JSON object.
type ToolCall struct {
	CallID    string
	Name      string
	Arguments jsonv.RawMessage
}

// ToolResult answers one ToolCall: a success with Parts, or a failure with Error.
type ToolResult struct {
	CallID string
	Name   string
	Parts  []ResultPart // success
	Failed bool
	Error  string // the errorMessage of a failure
	// Unpaired is set on a result the page supplied that answers no call the session has
	// open (Chrome's tests supply such responses): it is kept on its own, evicted on its
	// own, and a backend that needs every result paired renders it as text. See
	// RATIONALE.md "Why may the page supply a tool response for a call the session never
	// made?".
	Unpaired bool
	// Untrusted marks the output of a tool with untrustedContentHint, framed as data by
	// the loop's tool policy (loop/policy.go); the page sees "untrusted": true.
	Untrusted bool
}

// ResultPart is one part of a successful tool result.
type ResultPart struct {
	Type  string           // "text", "object", "image" or "audio"
	Text  string           // "text"
	Value jsonv.RawMessage // "object" (any JSON value), "image", "audio" (the page's encoding)
}

// TextMessage returns a message of role with one text part.
func TextMessage(role Role, text string) Message {
	return Message{Role: role, Parts: []Part{{Type: PartText, Text: text}}}
}

// CallMessage returns the canonical message for one tool call.
func CallMessage(c ToolCall) Message {
	return Message{Role: RoleToolCall, Parts: []Part{{Type: PartToolCall, Call: &c}}}
}

// ResultMessage returns the canonical message for one tool result.
func ResultMessage(r ToolResult) Message {
	return Message{Role: RoleToolResult, Parts: []Part{{Type: PartToolResult, Result: &r}}}
}

// UnpairedMessage returns the canonical message for a result that answers no open call.
func UnpairedMessage(r ToolResult) Message {
	r.Unpaired = true
	return ResultMessage(r)
}

// ErrorResult returns a failed result for call.
func ErrorResult(call ToolCall, message string) ToolResult {
	return ToolResult{CallID: call.CallID, Name: call.Name, Failed: true, Error: message}
}

// Text returns the concatenated text parts of m.
func (m Message) Text() string {
	if len(m.Parts) == 1 && m.Parts[0].Type == PartText {
		return m.Parts[0].Text
	}
	var s string
	for _, p := range m.Parts {
		if p.Type == PartText {
			s += p.Text
		}
	}
	return s
}

// Call returns the tool call of a RoleToolCall message, or nil.
func (m Message) Call() *ToolCall {
	if m.Role == RoleToolCall && len(m.Parts) == 1 {
		return m.Parts[0].Call
	}
	return nil
}

// Result returns the tool result of a RoleToolResult message, or nil.
func (m Message) Result() *ToolResult {
	if m.Role == RoleToolResult && len(m.Parts) == 1 {
		return m.Parts[0].Result
	}
	return nil
}

// PartsText renders result parts for a model that reads text: text parts as they are,
// objects as their JSON, one part per line. media gives the stand-in for an image or
// audio part, or an error when the model cannot take it.
func PartsText(parts []ResultPart, media func(ResultPart) (string, error)) (string, error) {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "object":
			b.Write(p.Value)
		default:
			s, err := media(p)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
	}
	return b.String(), nil
}
