package wasm

import (
	"strconv"
	"sync"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/session"
)

// The redaction of what leaves the engine (docs/design.md "Secrets"). Handler.write cleans every
// message as JSON text; what is not one JSON text, or spreads a secret over several
// strings, is cleaned here: a history packed as text (its lengths frame it, so bytes
// cannot be replaced after packing), the adjacent text parts of a message, and a stream of
// chunks.

// redactMessages returns msgs with the sessions' secrets redacted, reading adjacent text
// parts of a message as one text; msgs itself when nothing matched (the Mirror's identity
// of messages is then kept), and only the messages that changed are copies.
func (h *Handler) redactMessages(msgs []session.Message) []session.Message {
	if h.red.Empty() {
		return msgs
	}
	var out []session.Message
	for k := range msgs {
		m, changed := h.redactMessage(msgs[k])
		if changed && out == nil {
			out = append(make([]session.Message, 0, len(msgs)), msgs[:k]...)
		}
		if out != nil {
			out = append(out, m)
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

func (h *Handler) redactMessage(m session.Message) (session.Message, bool) {
	var parts []session.Part
	set := func(i int, p session.Part) {
		if parts == nil {
			parts = append([]session.Part(nil), m.Parts...)
		}
		parts[i] = p
	}
	for i := 0; i < len(m.Parts); {
		p := m.Parts[i]
		switch p.Type {
		case session.PartText, session.PartReasoning: // adjacent parts of one type as one text
			j := i
			for j < len(m.Parts) && m.Parts[j].Type == p.Type {
				j++
			}
			if j == i+1 { // one text part, the usual message: no slice
				if t := h.red.String(p.Text); t != p.Text {
					p.Text = t
					set(i, p)
				}
				i = j
				continue
			}
			texts := make([]string, j-i)
			for k := range texts {
				texts[k] = m.Parts[i+k].Text
			}
			for k, t := range h.red.Parts(texts) {
				if t != texts[k] {
					q := m.Parts[i+k]
					q.Text = t
					set(i+k, q)
				}
			}
			i = j
			continue
		case session.PartToolCall:
			if args := h.red.JSON(p.Call.Arguments); string(args) != string(p.Call.Arguments) {
				c := *p.Call
				c.Arguments = jsonv.RawMessage(args)
				p.Call = &c
				set(i, p)
			}
		case session.PartToolResult:
			if r, changed := h.redactResult(p.Result); changed {
				p.Result = r
				set(i, p)
			}
		}
		i++
	}
	if parts == nil {
		return m, false
	}
	m.Parts = parts
	return m, true
}

func (h *Handler) redactResult(r *session.ToolResult) (*session.ToolResult, bool) {
	c := *r
	c.Error = h.red.String(r.Error)
	changed := c.Error != r.Error
	var parts []session.ResultPart
	for i := 0; i < len(r.Parts); {
		if r.Parts[i].Type != "text" {
			if v := h.red.JSON(r.Parts[i].Value); string(v) != string(r.Parts[i].Value) {
				if parts == nil {
					parts = append([]session.ResultPart(nil), r.Parts...)
				}
				parts[i].Value = jsonv.RawMessage(v)
			}
			i++
			continue
		}
		j := i
		for j < len(r.Parts) && r.Parts[j].Type == "text" {
			j++
		}
		texts := make([]string, j-i)
		for k := range texts {
			texts[k] = r.Parts[i+k].Text
		}
		for k, t := range h.red.Parts(texts) {
			if t != texts[k] {
				if parts == nil {
					parts = append([]session.ResultPart(nil), r.Parts...)
				}
				parts[i+k].Text = t
			}
		}
		i = j
	}
	if parts != nil {
		c.Parts, changed = parts, true
	}
	if !changed {
		return r, false
	}
	return &c, true
}

// redactChunks is a prompt's OnChunk when the sessions hold secrets: the text chunks go
// through one redact.Stream, so that a secret split across chunks is caught, and what it
// holds back goes out before a call's chunk and at the end (flush, before the reply).
func (h *Handler) redactChunks(key, id int64) (onChunk func(loop.Chunk), flush func()) {
	var mu sync.Mutex
	st := h.red.Stream()
	send := func(c loop.Chunk) {
		h.write(&Event{Type: TypeChunk, Session: key, ID: id, Detail: chunkDetail(c)})
	}
	flush = func() {
		mu.Lock()
		defer mu.Unlock()
		if t := st.Flush(); t != "" {
			send(loop.Chunk{Text: t})
		}
	}
	onChunk = func(c loop.Chunk) {
		if c.Call != nil {
			flush()
			send(c)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if t := st.Push(c.Text); t != "" {
			send(loop.Chunk{Text: t})
		}
	}
	return onChunk, flush
}

// secrets warns the page's console when short values of where (a backend, an MCP
// server) are too short to redact: they are not matched, by design (redact.MinLen), and
// a page that gives one should know it.
func (h *Handler) secrets(where string, short int) {
	if short == 0 {
		return
	}
	msg := "language-model: " + where + ": " + strconv.Itoa(short) + " secret value(s) shorter than " +
		strconv.Itoa(redact.MinLen) + " characters (an apiKey, a credential header, a URL's user-info or query value) " +
		"will not be redacted from what the engine shows; see docs/design.md, Secrets"
	h.write(&Event{Type: TypeWarning, Detail: jsonv.AppendStringKeepHTML(nil, msg)})
}
