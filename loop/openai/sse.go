package openai

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/loop"
	"langmodel/loop/internal/fetchport"
	"langmodel/loop/internal/sse"
	"langmodel/session"
)

// maxEventSize bounds one message of the server: a server-sent event (its data lines
// together, and each line) or a plain JSON answer. A larger one is a NetworkError naming
// the server (Step), found before the client reads much past the limit (loop/internal/sse).
const maxEventSize = 4 << 20

// Assembler builds complete tool calls from streamed deltas. Servers split a call's
// arguments anywhere (mid-token, mid-escape); they identify the call by index, send the id
// and name once, and may interleave several calls.
type Assembler struct {
	calls   map[int]*partialCall
	order   []int
	scratch []byte // where arguments are unescaped
}

type partialCall struct {
	id, name string
	args     strings.Builder
	shown    int // bytes of args the last Forming showed, +1; 0: none yet (form)
}

// Add takes the tool-call deltas of one chunk. A delta without an index is the next call
// (servers that send whole calls at once omit it).
func (a *Assembler) Add(deltas []toolCallDelta) {
	if a.calls == nil {
		a.calls = make(map[int]*partialCall)
	}
	for i, d := range deltas {
		idx := len(a.order) + i
		if d.hasIndex {
			idx = d.index
		}
		pc := a.calls[idx]
		if pc == nil {
			pc = &partialCall{}
			a.calls[idx] = pc
			a.order = append(a.order, idx)
		}
		if d.id != "" {
			pc.id = d.id
		}
		if d.name != "" {
			pc.name += d.name
		}
		a.appendArguments(&pc.args, d.args)
	}
}

// appendArguments adds one delta's arguments to a call's: the text of a JSON string (the
// API's shape), or the value as sent (an object: Ollama's native shape). args is a value
// the chunk's reader checked.
func (a *Assembler) appendArguments(b *strings.Builder, args []byte) {
	switch {
	case len(args) == 0 || string(args) == "null":
	case args[0] == '"':
		text := args[1 : len(args)-1]
		if bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
			b.Write(text)
			return
		}
		a.scratch = jsonv.Unescape(a.scratch[:0], text)
		b.Write(a.scratch)
	default:
		b.Write(args)
	}
}

// form emits a loop.Forming for each call whose name is known and which has changed
// since the last: its place (the order calls started in, which is the index order of
// every server seen), id, name and argument text so far.
func (a *Assembler) form(emit func(loop.Delta) error) error {
	for at, idx := range a.order {
		pc := a.calls[idx]
		if pc.name == "" || pc.shown == pc.args.Len()+1 {
			continue
		}
		pc.shown = pc.args.Len() + 1
		if err := emit(loop.Delta{Forming: &loop.Forming{Index: at, CallID: pc.id, Name: pc.name, Arguments: pc.args.String()}}); err != nil {
			return err
		}
	}
	return nil
}

// Calls returns the assembled calls in index order. Empty arguments are {}.
func (a *Assembler) Calls() []session.ToolCall {
	idx := append([]int(nil), a.order...)
	order.Sort(idx)
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

// readStream relays a response: server-sent events of chunks (text as it comes, calls when
// the stream ends, usage when given), or a plain JSON completion from servers that ignore
// stream: true.
func readStream(ctx loop.Context, resp *Response, emit func(loop.Delta) error) error {
	r := chunkReader{source: "the server", emit: emit}
	return r.read(ctx, resp)
}

// read is readStream with the reader given.
func (r *chunkReader) read(ctx loop.Context, resp *Response) error {
	if strings.Contains(resp.Header["content-type"], "application/json") {
		body, err := fetchport.ReadAll(io.LimitReader(resp.Body, maxEventSize+1))
		if err == nil && len(body) > maxEventSize {
			err = sse.ErrTooLarge
		}
		if err != nil {
			return streamError(ctx, err)
		}
		if err := r.handle(body); err != nil {
			return err
		}
	} else {
		done, err := readEvents(resp.Body, r.handle)
		if err != nil {
			return streamError(ctx, err)
		}
		if !done && !r.finished {
			return session.Errorf(session.KindNetwork, session.ErrModel, "the stream ended before [DONE]: the connection was dropped")
		}
	}
	return r.flush()
}

// chunkReader reads one completion's chunks, whatever carried them (server-sent events,
// a plain JSON body, an in-page engine's chunk objects): text is emitted as it comes,
// usage when given, and the tool calls, assembled, by flush once the chunks have ended.
type chunkReader struct {
	source   string // who sent the chunks, for errors: "the server", "the engine"
	emit     func(loop.Delta) error
	asm      Assembler
	finished bool // a choice reported its finish_reason
	forming  bool // the loop asks for calls as they form (loop.Request.Forming)
	// c is reused: its slices keep their room from chunk to chunk.
	c chunk
}

// handle reads one chunk's JSON text.
func (r *chunkReader) handle(data []byte) error {
	c := &r.c
	if err := c.decode(data); err != nil {
		return session.Errorf(session.KindOperation, session.ErrModel, "malformed data from %s: %v", r.source, err)
	}
	if len(c.err) > 0 && string(c.err) != "null" {
		return session.Errorf(session.KindOperation, session.ErrModel, "%s reported an error mid-stream: %s", r.source, serverMessage(append(append([]byte(`{"error":`), c.err...), '}')))
	}
	for i := range c.choices {
		ch := &c.choices[i]
		if ch.index != 0 {
			continue // we ask for one choice
		}
		if ch.finishReason != "" {
			r.finished = true
		}
		m := &ch.delta
		if ch.hasMessage {
			m = &ch.message
		}
		content, calls := m.content, m.toolCalls
		if content != "" || m.reasoning != "" {
			if err := r.emit(loop.Delta{Text: content, Reasoning: m.reasoning}); err != nil {
				return err
			}
		}
		r.asm.Add(calls)
		if r.forming && len(calls) > 0 {
			if err := r.asm.form(r.emit); err != nil {
				return err
			}
		}
	}
	if c.hasUsage {
		u := c.usage
		return r.emit(loop.Delta{Usage: &loop.Usage{InputTokens: u.prompt, OutputTokens: u.completion, CachedTokens: u.cached, Cached: u.hasCached}})
	}
	return nil
}

// flush emits the assembled tool calls, in index order.
func (r *chunkReader) flush() error {
	for _, c := range r.asm.Calls() {
		c := c
		if err := r.emit(loop.Delta{Call: &c}); err != nil {
			return err
		}
	}
	return nil
}

func streamError(ctx loop.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if se, ok := errors.AsType[*session.Error](err); ok {
		return se
	}
	if err == sse.ErrTooLarge { // Step names the server
		return session.Wrap(session.KindNetwork, session.ErrModel, err)
	}
	return session.Errorf(session.KindNetwork, session.ErrModel, "reading the stream: %v", err)
}

// readEvents parses server-sent events and calls handle with each event's data
// (loop/internal/sse). It returns done when the stream ended with "data: [DONE]";
// readStream also accepts a clean end of file after a finish_reason, for servers that send
// no [DONE].
func readEvents(r io.Reader, handle func([]byte) error) (done bool, err error) {
	return sse.Read(r, maxEventSize, handle)
}
