package openai

import "langmodel/internal/jsonv"

// chunk is one streamed Chat Completions chunk: only the fields we read. It used to be a
// struct that encoding/json's Unmarshal filled; decode reads the same members with the
// same rules (see reader), for every event of every stream, allocating only the strings
// it keeps.
//
// Strings hold "" where the struct had a nil *string: nothing read them differently.
type chunk struct {
	choices  []choice
	usage    usage
	hasUsage bool   // usage was an object (absent or null: no figures)
	err      []byte // the "error" member as sent, aliasing the chunk; nil or "null": none
	scratch  []byte // the reader's, kept from chunk to chunk
}

type choice struct {
	index        int
	delta        message
	message      message // what servers that ignore stream:true send instead of deltas
	hasMessage   bool
	finishReason string
}

type message struct {
	content string
	// reasoning is reasoning_content (DeepSeek, vLLM, llama.cpp, wllama) or reasoning
	// (OpenRouter, Ollama): what the model thinks, never the answer. A value that is
	// not a string is skipped, not an error: it is no part of the answer.
	reasoning string
	toolCalls []toolCallDelta
}

type usage struct {
	prompt, completion, cached int
	hasCached                  bool
}

type toolCallDelta struct {
	index    int
	hasIndex bool // servers that send whole calls at once omit it
	id, name string
	// args is the "arguments" member as sent, aliasing the chunk: a string of JSON text,
	// or an object from servers that send one (Ollama's native shape).
	args []byte
}

// paths name a message's members in mismatch errors, without building strings on the
// hot path.
type paths struct{ message, call, function string }

var (
	deltaPaths   = &paths{"choices[].delta", "choices[].delta.tool_calls[]", "choices[].delta.tool_calls[].function"}
	messagePaths = &paths{"choices[].message", "choices[].message.tool_calls[]", "choices[].message.tool_calls[].function"}
)

// decode reads data into c as encoding/json's Unmarshal read it into the chunk struct
// this replaced: keys matched case-insensitively, unknown members skipped, a value of the
// wrong type an error, a syntax error reported with encoding/json's message. A repeated
// key merges into what the first one gave, as it did, with one difference no server can
// meet (none repeats keys): when an array is given three times or more (by repeated keys,
// here or in an enclosing object), a longer one after a shorter one no longer inherits
// the elements an earlier, longer one left behind (encoding/json reused the slice).
//
// c's slices are reused from chunk to chunk; the strings are new.
func (c *chunk) decode(data []byte) error {
	*c = chunk{choices: c.choices[:0], scratch: c.scratch}
	r := reader{Reader: jsonv.Reader{Data: data, Scratch: c.scratch}}
	r.structField("", "the chunk", 0, func(key memberKey, depth int) { c.member(&r, key, depth) })
	c.scratch = r.Scratch
	return r.err()
}

func (c *chunk) member(r *reader, key memberKey, depth int) {
	switch {
	case key.Is("choices"):
		n := r.arrayField("", "choices", depth, func(i, depth int) {
			if i == len(c.choices) {
				c.choices = append(c.choices, choice{})
			}
			c.choices[i].read(r, depth)
		})
		c.choices = c.choices[:n]
	case key.Is("usage"):
		if c.hasUsage = r.structField("", "usage", depth, func(key memberKey, depth int) { c.usage.member(r, key, depth) }); !c.hasUsage {
			c.usage = usage{}
		}
	case key.Is("error"):
		c.err = r.Raw(depth)
	default:
		r.Skip(depth)
	}
}

func (u *usage) member(r *reader, key memberKey, depth int) {
	switch {
	case key.Is("prompt_tokens"):
		r.intField(&u.prompt, "usage", "prompt_tokens", depth)
	case key.Is("completion_tokens"):
		r.intField(&u.completion, "usage", "completion_tokens", depth)
	case key.Is("prompt_tokens_details"):
		r.structField("usage", "prompt_tokens_details", depth, func(key memberKey, depth int) {
			if key.Is("cached_tokens") {
				u.hasCached = r.intField(&u.cached, "usage.prompt_tokens_details", "cached_tokens", depth)
			} else {
				r.Skip(depth)
			}
		})
	default:
		r.Skip(depth)
	}
}

func (ch *choice) read(r *reader, depth int) {
	r.structField("", "choices[]", depth, func(key memberKey, depth int) {
		switch {
		case key.Is("index"):
			r.intField(&ch.index, "choices[]", "index", depth)
		case key.Is("delta"):
			r.structField("choices[]", "delta", depth, func(key memberKey, depth int) { ch.delta.member(r, key, depth, deltaPaths) })
		case key.Is("message"):
			// A pointer in the struct: null clears it, an object fills it.
			if ch.hasMessage = r.structField("choices[]", "message", depth, func(key memberKey, depth int) { ch.message.member(r, key, depth, messagePaths) }); !ch.hasMessage {
				ch.message = message{}
			}
		case key.Is("finish_reason"):
			r.stringField(&ch.finishReason, true, "choices[]", "finish_reason", depth)
		default:
			r.Skip(depth)
		}
	})
}

func (m *message) member(r *reader, key memberKey, depth int, p *paths) {
	switch {
	case key.Is("content"):
		r.stringField(&m.content, true, p.message, "content", depth)
	case (key.Is("reasoning_content") || key.Is("reasoning")) && r.Peek() == '"':
		m.reasoning = r.Str()
	case key.Is("tool_calls"):
		n := r.arrayField(p.message, "tool_calls", depth, func(i, depth int) {
			if i == len(m.toolCalls) {
				m.toolCalls = append(m.toolCalls, toolCallDelta{})
			}
			m.toolCalls[i].read(r, depth, p)
		})
		m.toolCalls = m.toolCalls[:n]
	default:
		r.Skip(depth)
	}
}

func (d *toolCallDelta) read(r *reader, depth int, p *paths) {
	r.structField(p.message, "tool_calls[]", depth, func(key memberKey, depth int) {
		switch {
		case key.Is("index"):
			if r.Peek() == 'n' {
				d.hasIndex = false // a *int: null clears it
			}
			if r.intField(&d.index, p.call, "index", depth) {
				d.hasIndex = true
			}
		case key.Is("id"):
			r.stringField(&d.id, false, p.call, "id", depth)
		case key.Is("function"):
			r.structField(p.call, "function", depth, func(key memberKey, depth int) { d.function(r, key, depth, p) })
		default:
			r.Skip(depth)
		}
	})
}

func (d *toolCallDelta) function(r *reader, key memberKey, depth int, p *paths) {
	switch {
	case key.Is("name"):
		r.stringField(&d.name, false, p.function, "name", depth)
	case key.Is("arguments"):
		d.args = r.Raw(depth)
	default:
		r.Skip(depth)
	}
}
