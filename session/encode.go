package session

import (
	"bytes"
	"strconv"

	"langmodel/internal/jsonv"
)

// MarshalJSON writes m in the draft-PR form that session.history exports: roles
// "tool-call" and "tool-result" with one part each, and every call id under both
// spellings, callID (canonical) and callId (Chrome's). Feeding the output back through
// Normalize gives m again.
func (m Message) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	m.appendJSON(&b)
	return b.Bytes(), nil
}

// MarshalMessages encodes msgs as a JSON array; the result is a deep copy.
func MarshalMessages(msgs []Message) []byte {
	var b bytes.Buffer
	b.Grow(sizeHint(msgs))
	b.WriteByte('[')
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		m.appendJSON(&b)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// sizeHint is about the length of msgs as JSON, texts unescaped: a long history is
// written into one buffer grown once, not doubled a dozen times (each a copy and a
// cleared allocation).
func sizeHint(msgs []Message) int {
	n := 2
	for _, m := range msgs {
		n += 40
		for _, p := range m.Parts {
			n += 32 + len(p.Text) + len(p.Media)
			if p.Call != nil || p.Result != nil {
				n += 128
			}
		}
	}
	return n
}

func (m Message) appendJSON(b *bytes.Buffer) {
	b.WriteString(`{"role":`)
	writeString(b, string(m.Role))
	b.WriteString(`,"content":[`)
	for i, p := range m.Parts {
		if i > 0 {
			b.WriteByte(',')
		}
		p.appendJSON(b)
	}
	b.WriteByte(']')
	if m.Prefix {
		b.WriteString(`,"prefix":true`)
	}
	b.WriteByte('}')
}

func (p Part) appendJSON(b *bytes.Buffer) {
	b.WriteString(`{"type":`)
	writeString(b, string(p.Type))
	b.WriteString(`,"value":`)
	switch p.Type {
	case PartText, PartReasoning:
		writeString(b, p.Text)
	case PartImage, PartAudio:
		b.Write(p.Media)
	case PartToolCall:
		p.Call.appendJSON(b)
	case PartToolResult:
		p.Result.appendJSON(b)
	}
	b.WriteByte('}')
}

func (c *ToolCall) appendJSON(b *bytes.Buffer) {
	writeIDs(b, c.CallID, c.Name)
	b.WriteString(`,"arguments":`)
	if len(c.Arguments) == 0 {
		b.WriteString("{}")
	} else {
		b.Write(c.Arguments)
	}
	b.WriteByte('}')
}

// MarshalJSON writes the call as the page sees it: {callID, callId, name, arguments}.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(2*len(c.CallID) + len(c.Name) + len(c.Arguments) + 64) // one buffer, not two: each step's call is encoded so
	c.appendJSON(&b)
	return b.Bytes(), nil
}

func (r *ToolResult) appendJSON(b *bytes.Buffer) {
	writeIDs(b, r.CallID, r.Name)
	if r.Failed {
		b.WriteString(`,"errorMessage":`)
		writeString(b, r.Error)
	} else {
		b.WriteString(`,"result":`)
		appendResultParts(b, r.Parts)
	}
	if r.Untrusted {
		b.WriteString(`,"untrusted":true`)
	}
	b.WriteByte('}')
}

// MarshalJSON writes the result as the page sees it: {callID, callId, name, result} or
// {callID, callId, name, errorMessage}.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	r.appendJSON(&b)
	return b.Bytes(), nil
}

func appendResultParts(b *bytes.Buffer, parts []ResultPart) {
	b.WriteByte('[')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":`)
		writeString(b, p.Type)
		b.WriteString(`,"value":`)
		if p.Type == "text" {
			writeString(b, p.Text)
		} else {
			b.Write(p.Value)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

func writeIDs(b *bytes.Buffer, id, name string) {
	b.WriteString(`{"callID":`)
	writeString(b, id)
	b.WriteString(`,"callId":`)
	writeString(b, id)
	b.WriteString(`,"name":`)
	writeString(b, name)
}

func writeString(b *bytes.Buffer, s string) {
	b.Write(jsonv.AppendString(b.AvailableBuffer(), s))
}

// DecodeJSON decodes JSON the way the engine reads every value from the page: numbers
// stay jsonv.Number, so integers and decimals survive unchanged.
func DecodeJSON(data []byte) (any, error) {
	v, n, err := jsonv.DecodePrefix(data)
	if err != nil {
		return nil, Wrap(KindData, ErrBadMessage, err)
	}
	if jsonv.SkipSpace(data, n) < len(data) {
		return nil, Errorf(KindData, ErrBadMessage, "trailing data after the JSON value")
	}
	return v, nil
}

// MarshalJSON writes a's fields that are set, as the tool declared them (MCP's names).
func (a Annotations) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	field := func(name string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(jsonv.AppendString(b, name), ':')
	}
	if a.Title != "" {
		field("title")
		b = jsonv.AppendString(b, a.Title)
	}
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}, {"consequentialHint", a.ConsequentialHint}, {"untrustedContentHint", a.UntrustedContentHint}} {
		if h.v != nil {
			field(h.name)
			b = strconv.AppendBool(b, *h.v)
		}
	}
	return append(b, '}'), nil
}

// WriteMessage writes m as MarshalMessages writes each message, into b.
func WriteMessage(b *bytes.Buffer, m Message) { m.appendJSON(b) }
