package session

import (
	"strconv"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
)

// Expected lists the input content types a session declared in expectedInputs beyond
// text, which is always expected (the spec's "get the expected content types"). Tool
// calls and tool responses the page supplies (in initialPrompts, prompt or append, in
// either message form) need "tool-call" and "tool-response" declared, as images and audio
// need theirs; what the closed loop appends itself is not input and needs nothing.
type Expected struct {
	Image, Audio, ToolCall, ToolResponse bool
	// OwnCallResponses is set when the session's expectedOutputs include tool-call: a
	// tool response that answers a call the session's own model made is then taken
	// whether or not tool-response was declared (the open loop as the explainer writes
	// it). Responses to calls the page wrote, or to no call, still need the declaration.
	OwnCallResponses bool
}

// AllInputs declares every input type: for tests, and hosts that check nothing.
var AllInputs = Expected{Image: true, Audio: true, ToolCall: true, ToolResponse: true}

// undeclared is the NotSupportedError for a part whose type expectedInputs does not list;
// the message names the type to declare.
func undeclared(where, typ string) error {
	return Errorf(KindNotSupported, ErrUnexpectedInput, `%s: %s (declare {type: "%s"} in expectedInputs)`, where, typ, typ)
}

// NormalizeOptions carries the session state the explainer's rules depend on.
type NormalizeOptions struct {
	// HasPrior is true once the session holds any message: a system message is then
	// no longer allowed ("hasAppendedInput" in the spec).
	HasPrior bool
	Expected Expected
	// ModelMade reports whether the session's model made the call with an id (see
	// Expected.OwnCallResponses). nil: no call was.
	ModelMade func(callID string) bool
}

// answersOwnCall reports whether a tool response to id is taken undeclared.
func (o *NormalizeOptions) answersOwnCall(id string) bool {
	return o.Expected.OwnCallResponses && o.ModelMade != nil && o.ModelMade(id)
}

// Normalize validates a prompt as the page gave it (decoded JSON: a string, or an array
// of messages in any form DESIGN.md §3 accepts; or its JSON text as a jsonv.RawMessage,
// see NormalizeJSON) and returns its canonical messages. It
// follows the spec's "validate and canonicalize a prompt": a string is one user message,
// an empty array one empty user message, empty content one empty text part, contiguous
// text parts collapse into one. Tool parts become one message each, in order.
func Normalize(input any, o NormalizeOptions) ([]Message, error) {
	switch in := input.(type) {
	case jsonv.RawMessage:
		return NormalizeJSON(in, o)
	case Reader:
		return in.NormalizePrompt(o)
	case string:
		return []Message{TextMessage(RoleUser, in)}, nil
	case []any:
		if len(in) == 0 {
			return []Message{TextMessage(RoleUser, "")}, nil
		}
		var out []Message
		hasPrior := o.HasPrior
		for i, raw := range in {
			obj, ok := raw.(map[string]any)
			if !ok {
				return nil, Errorf(KindType, ErrBadMessage, "message %d is not an object", i)
			}
			msgs, err := normalizeMessage(i, obj, i == len(in)-1, hasPrior, &o)
			if err != nil {
				return nil, err
			}
			out = append(out, msgs...)
			hasPrior = true
		}
		return out, nil
	default:
		return nil, Errorf(KindType, ErrBadMessage, "a prompt is a string or an array of messages, not %s", jsonType(input))
	}
}

// A Reader is a prompt in a form of the binding's own (wasm's packed history) that
// reads itself when the session does, with the session's options; Normalize hands it
// those. What it gives and the errors it names are Normalize's for the same prompt as
// decoded JSON (NormalizeMessageJSON reads a message of it given as JSON).
type Reader interface {
	NormalizePrompt(o NormalizeOptions) ([]Message, error)
}

// NormalizeMessageJSON reads message i of a prompt whose messages come one by one as
// JSON text (raw, and in, the same text as a string): last says whether it is the
// prompt's last message. The messages and every error are those Normalize gives for the
// same message at index i of the array (FuzzNormalizeJSON holds them to that).
func NormalizeMessageJSON(raw []byte, in string, i int, last bool, o *NormalizeOptions) ([]Message, error) {
	if m, ok := toolMessageFast(raw, in, o); ok {
		return []Message{m}, nil
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, Errorf(KindType, ErrBadMessage, "message %d is not an object", i)
	}
	return normalizeMessage(i, obj, last, o.HasPrior || i > 0, o)
}

// partAt names part j of message i in an error (normalizeMessage's 14 errors name a
// part). Not marked go:noinline: the compiler does not inline it (two strconv.Itoa are
// over the inliner's budget); with the mark, the module was the same, byte for byte.
// Its calls stay calls.
func partAt(i, j int) string { return "message " + strconv.Itoa(i) + " part " + strconv.Itoa(j) }

func normalizeMessage(i int, obj map[string]any, last, hasPrior bool, o *NormalizeOptions) ([]Message, error) {
	exp := o.Expected
	roleName, ok := obj["role"].(string)
	if !ok {
		return nil, Errorf(KindType, ErrBadMessage, "message %d has no role", i)
	}
	prefix := false
	if p, present := obj["prefix"]; present && p != nil {
		b, ok := p.(bool)
		if !ok {
			return nil, Errorf(KindType, ErrBadMessage, "message %d: prefix must be a boolean", i)
		}
		prefix = b
	}
	role := Role(roleName)
	switch role {
	case RoleSystem, RoleUser, RoleAssistant, RoleToolCall, RoleToolResult:
	case "tool-response":
		role = RoleToolResult
	default:
		return nil, Errorf(KindType, ErrUnknownRole, "message %d: %q", i, roleName)
	}
	if prefix {
		if role != RoleAssistant {
			return nil, Errorf(KindSyntax, ErrPrefixNotAssistant, "message %d has role %q", i, roleName)
		}
		if !last {
			return nil, Errorf(KindSyntax, ErrPrefixNotLast, "message %d is followed by others", i)
		}
	}
	if role == RoleSystem && (hasPrior || i > 0) {
		return nil, Errorf(KindType, ErrSystemNotFirst, "message %d", i)
	}

	var parts []any
	switch c := obj["content"].(type) {
	case string:
		if role == RoleToolCall || role == RoleToolResult {
			return nil, Errorf(KindType, ErrBadMessage, "message %d: a %s message needs an array of %s parts", i, role, role)
		}
		m := TextMessage(role, c)
		m.Prefix = prefix
		return []Message{m}, nil
	case []any:
		parts = c
	case map[string]any:
		// One content object, as the explainer writes it: a one-part sequence.
		if _, ok := c["type"]; !ok {
			return nil, Errorf(KindType, ErrBadMessage, "message %d: content must be a string, an array of parts or one part {type, value}; this object has no type", i)
		}
		parts = []any{c}
	default:
		return nil, Errorf(KindType, ErrBadMessage, "message %d: content must be a string, an array of parts or one part {type, value}", i)
	}
	if len(parts) == 0 {
		if role == RoleToolCall || role == RoleToolResult {
			return nil, Errorf(KindType, ErrBadMessage, "message %d: a %s message needs at least one part", i, role)
		}
		m := TextMessage(role, "")
		m.Prefix = prefix
		return []Message{m}, nil
	}

	// Contiguous text and media parts form one message of the role; each tool part is a
	// message of its own.
	var out []Message
	var group []Part
	flush := func() {
		if len(group) > 0 {
			out = append(out, Message{Role: role, Parts: group})
			group = nil
		}
	}
	for j, raw := range parts {
		obj, ok := raw.(map[string]any)
		if !ok {
			return nil, Errorf(KindType, ErrBadMessage, "message %d part %d is not an object", i, j)
		}
		typ, _ := obj["type"].(string)
		value := obj["value"]
		where := func() string { return partAt(i, j) }
		switch PartType(typ) {
		case PartText, PartReasoning: // reasoning: what the model thought, on its own messages
			s, ok := value.(string)
			if !ok {
				return nil, Errorf(KindType, ErrTextNotString, "%s", where())
			}
			if role == RoleToolCall || role == RoleToolResult || typ == "reasoning" && role != RoleAssistant {
				return nil, Errorf(KindType, ErrMisplacedToolPart, "%s: %s in a %s message", where(), typ, role)
			}
			if n := len(group); n > 0 && group[n-1].Type == PartType(typ) {
				group[n-1].Text += s
			} else {
				group = append(group, Part{Type: PartType(typ), Text: s})
			}
		case PartImage, PartAudio:
			if role == RoleAssistant || role == RoleSystem {
				return nil, Errorf(KindNotSupported, ErrAssistantContent, "%s: %s content in %s messages", where(), typ, role)
			}
			if role != RoleUser {
				return nil, Errorf(KindType, ErrMisplacedToolPart, "%s: %s content in %s messages", where(), typ, role)
			}
			if (typ == "image" && !exp.Image) || (typ == "audio" && !exp.Audio) {
				return nil, undeclared(where(), typ)
			}
			if value == nil {
				return nil, Errorf(KindType, ErrBadMessage, "%s: %s content has no value", where(), typ)
			}
			group = append(group, Part{Type: PartType(typ), Media: mustJSON(value)})
		case PartToolCall:
			if role != RoleAssistant && role != RoleToolCall {
				return nil, Errorf(KindType, ErrMisplacedToolPart, "%s: a tool call belongs in an assistant or tool-call message, not %s", where(), role)
			}
			if !exp.ToolCall {
				return nil, undeclared(where(), "tool-call")
			}
			call, err := parseToolCall(value, where())
			if err != nil {
				return nil, err
			}
			flush()
			out = append(out, CallMessage(call))
		case PartToolResult, "tool-response":
			if role != RoleUser && role != RoleToolResult {
				return nil, Errorf(KindType, ErrMisplacedToolPart, "%s: a tool result belongs in a user or tool-result message, not %s", where(), role)
			}
			res, err := parseToolResult(value, where())
			if !exp.ToolResponse && (err != nil || !o.answersOwnCall(res.CallID)) {
				if exp.OwnCallResponses && err == nil {
					return nil, Errorf(KindNotSupported, ErrUnexpectedInput, `%s: tool-response (callID %q answers no call this session's model made; declare {type: "tool-response"} in expectedInputs)`, where(), res.CallID)
				}
				return nil, undeclared(where(), "tool-response")
			}
			if err != nil {
				return nil, err
			}
			flush()
			out = append(out, ResultMessage(res))
		default:
			return nil, Errorf(KindType, ErrUnknownContentType, "%s: %q", where(), typ)
		}
	}
	flush()
	if prefix {
		lastMsg := &out[len(out)-1]
		if lastMsg.Role != RoleAssistant {
			return nil, Errorf(KindSyntax, ErrPrefixNotLast, "message %d ends in a tool call", i)
		}
		lastMsg.Prefix = true
	}
	return out, nil
}

func callIDOf(obj map[string]any) (string, bool) {
	if id, ok := obj["callID"].(string); ok && id != "" {
		return id, true
	}
	id, ok := obj["callId"].(string)
	return id, ok && id != ""
}

func parseToolCall(value any, where string) (ToolCall, error) {
	obj, ok := value.(map[string]any)
	if !ok {
		return ToolCall{}, Errorf(KindType, ErrBadToolCall, "%s: the value is not an object", where)
	}
	id, ok := callIDOf(obj)
	if !ok {
		return ToolCall{}, Errorf(KindType, ErrBadToolCall, "%s: callID is missing", where)
	}
	name, ok := obj["name"].(string)
	if !ok || name == "" {
		return ToolCall{}, Errorf(KindType, ErrBadToolCall, "%s: name is missing", where)
	}
	args := jsonv.RawMessage("{}")
	switch a := obj["arguments"].(type) {
	case nil:
	case map[string]any:
		args = mustJSON(a)
	default:
		// A DataError, as for any tool value that cannot be what it claims (the face's
		// cycles, functions and BigInt): the call is well-formed, its arguments are not.
		return ToolCall{}, Errorf(KindData, ErrBadToolCall, "%s: arguments must be an object, not %s", where, jsonType(a))
	}
	return ToolCall{CallID: id, Name: name, Arguments: args}, nil
}

func parseToolResult(value any, where string) (ToolResult, error) {
	obj, ok := value.(map[string]any)
	if !ok {
		return ToolResult{}, Errorf(KindType, ErrBadToolResult, "%s: the value is not an object", where)
	}
	id, ok := callIDOf(obj)
	if !ok {
		return ToolResult{}, Errorf(KindType, ErrBadToolResult, "%s: callID is missing", where)
	}
	name, ok := obj["name"].(string)
	if !ok || name == "" {
		return ToolResult{}, Errorf(KindType, ErrBadToolResult, "%s: name is missing", where)
	}
	r := ToolResult{CallID: id, Name: name}
	r.Untrusted, _ = obj["untrusted"].(bool)
	result, hasResult := obj["result"]
	errMsg, hasError := obj["errorMessage"]
	if hasResult == hasError {
		return ToolResult{}, Errorf(KindType, ErrBadToolResult, "%s: give exactly one of result and errorMessage", where)
	}
	if hasError {
		s, ok := errMsg.(string)
		if !ok {
			return ToolResult{}, Errorf(KindType, ErrBadToolResult, "%s: errorMessage must be a string", where)
		}
		r.Failed, r.Error = true, s
		return r, nil
	}
	parts, err := ParseResultParts(result)
	if err != nil {
		return ToolResult{}, Errorf(KindOf(err), ErrBadToolResult, "%s: %v", where, err)
	}
	r.Parts = parts
	return r, nil
}

// ParseResultParts reads a tool's result: an array of {type, value} parts, or, as a
// shorthand, a string (one text part). It is also how the loop reads what execute returned.
func ParseResultParts(v any) ([]ResultPart, error) {
	if s, ok := v.(string); ok {
		return []ResultPart{{Type: "text", Text: s}}, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, Errorf(KindType, ErrBadToolResult, "result must be an array of {type, value} parts, not %s", jsonType(v))
	}
	parts := make([]ResultPart, 0, len(arr))
	for k, raw := range arr {
		obj, ok := raw.(map[string]any)
		if !ok {
			return nil, Errorf(KindType, ErrBadToolResult, "result part %d is not an object", k)
		}
		typ, _ := obj["type"].(string)
		value, present := obj["value"]
		switch typ {
		case "text":
			s, ok := value.(string)
			switch {
			case ok:
			case isMedia(value):
				return nil, Errorf(KindData, ErrBadToolResult, "result part %d: a text part holds binary data; give it the type image or audio", k)
			case !present:
				return nil, Errorf(KindType, ErrBadToolResult, "result part %d: text part has no value", k)
			default:
				s = string(mustJSON(value)) // any other value is its JSON text
			}
			parts = append(parts, ResultPart{Type: typ, Text: s})
		case "object", "image", "audio":
			if !present {
				return nil, Errorf(KindType, ErrBadToolResult, "result part %d: %s part has no value", k, typ)
			}
			if typ == "object" && isMedia(value) {
				// A platform object (an ImageBitmap, a Blob, a buffer) is no JSON value.
				return nil, Errorf(KindData, ErrBadToolResult, "result part %d: an object part holds binary data; give it the type image or audio", k)
			}
			parts = append(parts, ResultPart{Type: typ, Value: mustJSON(value)})
		default:
			return nil, Errorf(KindType, ErrBadToolResult, "result part %d: unknown type %q", k, typ)
		}
	}
	return parts, nil
}

// isMedia reports whether v is binary data as the face encodes it ({type: "bytes",
// base64, mimeType?}: a Blob, a buffer, an image or audio source).
func isMedia(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "bytes" {
		return false
	}
	_, ok = m["base64"].(string)
	return ok
}

// mustJSON encodes a decoded JSON value back to compact JSON. Values come from
// DecodeJSON, so encoding cannot fail; maps encode with sorted keys, which makes
// the canonical form deterministic.
func mustJSON(v any) jsonv.RawMessage {
	b, err := jsonv.Marshal(v)
	if err != nil {
		panic("session: re-encoding decoded JSON: " + err.Error())
	}
	return b
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case jsonv.Number, float64, int:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return sfmt.Sprintf("a %T", v)
	}
}
