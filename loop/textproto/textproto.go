// Package textproto gives tool use to models without native tool calling: Wrap turns a
// loop.Model that only reads and writes text into one that takes Request.Tools and
// emits Delta.Call, so the loop runs open, closed and hybrid tool loops over it
// unchanged (DESIGN.md §4, "Text protocol"). Read does the reading half for a model
// that has native tools: the calls its runtime left in the content (see "Calls read
// from content" below).
//
// # What the inner model sees
//
// The tools offered this step (name, description, input schema) and the calling
// convention go atop the system prompt (DefaultPrompt, or Options.Prompt). The inner
// request has no tools and no tool roles: a tool call of the history becomes assistant
// text holding its canonical block, a tool result a user message holding a tool_result
// block (see Injection below); such messages merge into a neighbour of the same role.
// Request.Messages itself is never modified. When a step offers no tools (there are
// none, or toolChoice is "none") the history is converted the same way and the system
// prompt is left alone; the output passes through verbatim, except that in a conversation
// that has used tools a call block the model still writes is dropped, never shown.
//
// # Formats recognised
//
// The prompt asks for the canonical format, one fenced block per call:
//
//	```tool_call
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	```
//
// The Parser also reads the formats small models drift into, and each model family's
// own: <tool_call>{…}</tool_call> (Hermes, Qwen; Qwen3-Coder's XML <function=name>
// <parameter=key> inside it), <function=name>{…}</function> (Llama 3.1), Phi-4-mini's
// <|tool_call|>…<|/tool_call|>, Mistral's [TOOL_CALLS][…] and [TOOL_CALLS]name[ARGS]{…},
// Llama's <|python_tag|>{…}; {…}, DeepSeek's <｜tool▁calls▁begin｜>…, LFM2's
// <|tool_call_start|>[f(a=1)]<|tool_call_end|>, Gemma 4's <|tool_call>call:f{…}<tool_call|>
// (families.go reads the ones that are not JSON), a ```json fence holding a call, and a
// response that is nothing but a call object, a list of them or a Python call list
// (except under a responseConstraint, where a JSON object is the answer). In every format "parameters"
// is accepted for "arguments", arguments given as a string holding JSON are unwrapped,
// OpenAI's {"type": "function", "function": {…}} is unwrapped, and a block may hold
// several calls (an array, or objects one after another). A block left open at the end
// of the stream is read as it stands, since servers often stop at the closing delimiter.
//
// Delimiters never reach the page. ```tool_call, <tool_call>, <function=name> and the
// other families' openers open a call block whatever follows, so what they open is a call or a malformed block, never
// text (even <tool_call> mentioned in prose: the price of never leaking one); a stray
// </tool_call> is dropped. A ```json fence or a leading '{' is only a candidate: if it
// turns out not to be a call it is released as text, unchanged and in order, and read
// again as text. Other fences, bare ``` included, are ordinary code blocks. The parser
// holds back only what may still become a delimiter, so prose streams at once.
//
// # Validation and repair
//
// Each call must name a tool offered this step and carry arguments that are a JSON
// object valid against the tool's schema (session.Tool.ValidateArguments). Calls are
// held until the inner step ends. If a block could not be read, or a call fails those
// checks, or toolChoice demands a call and there is none, the wrapper asks the inner
// model once more: the request gains the model's whole reply as an assistant message
// and a user message naming each problem and showing the expected format, and the second
// reply is streamed as the step's answer. The first reply's calls are then dropped (the
// model is asked for all of them again).
//
// What the page sees during a repair: the first reply's text up to the first broken
// block, streamed live (it cannot be taken back), then the second reply. The broken
// block and anything after it in the first reply are not shown. When the repair is for
// a missing call ("required", or a named tool), the first reply was all text and the
// page has seen all of it. Usage passes through; after a repair it is the first
// request's input and the second reply's output, since the history holds neither the
// broken reply nor the repair message (the loop calibrates contextUsage on it).
//
// If the second reply is still wrong, there is no third try: a call that was read but
// fails validation is emitted as it is, and the loop answers it with a tool error (or
// hands it to the page, in an open loop); a block that could not be read at all becomes
// text, its content with the delimiters removed, so the page sees what the model tried;
// a reply still without a call under "required" is the answer as it is.
//
// # Calls read from content
//
// Read wraps a backend with native tools. Its request goes through unchanged and its own
// calls pass through; on a step that offered tools, its text (after reasoning: Thinking
// stays beneath) goes through the Parser in Strict mode, and where the line is between a
// call and prose is stricter than above, since this model was not told to write blocks:
//
//   - A family's opener starts a candidate: it is a call only if it reads as calls that
//     all name tools offered this step; otherwise it is released as text, unchanged and in
//     order. A block that names an offered tool but cannot be read, or whose arguments
//     fail the schema, gets the repair round, as above.
//   - Inside an ordinary code fence nothing is a call, and a ```json fence is an ordinary
//     code fence.
//   - A bare JSON object or array, or a bare Python call list, is a call only when it is
//     the whole content, white space aside.
//   - When the backend made calls of its own in the step, those are the calls, and every
//     block is released as text, as written. So text after the first block is held until
//     the step ends; text before it streams at once.
//
// The repair round's request shows the model its reply from the first call block on (the
// prose before it has reached the page), so a step without a block keeps no copy of its
// text. A step that offers no tools costs nothing: the inner model's deltas go straight
// on.
//
// # Injection
//
// A tool result is wrapped in a tool_result block, {"id", "name", "result"} or
// {"id", "name", "error"}, whose content is a single JSON string in which every '<',
// '>', '&' and '`' is a \u escape. Nothing a tool returns can then close the block, open
// a fence or a tag, or be read as a call object, by the parser or by a model echoing it;
// the prompt also tells the model that results are data, not instructions.
//
// textproto imports loop, session and internal/jsonv only (no regexp, and none of
// encoding/json's reflection, which the WebAssembly module must not link): the parser is
// hand-written, a small state machine with a JSON lexer that reads each byte once, twice
// for a candidate it releases, whatever the chunking.
package textproto

import (
	"strconv"
	"strings"

	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
)

// Options configure Wrap. The zero value is ready to use.
type Options struct {
	// Prompt renders the instructions put atop the system prompt for the tools offered
	// this step; nil means DefaultPrompt. choice is "auto", "required", or "tool" with
	// the one tool in tools. A custom prompt should ask for the canonical format: the
	// repair message shows that one.
	Prompt func(tools []session.Tool, choice loop.ToolChoice) string
}

// Wrap returns a Model that gives inner tool use through the text protocol. It reports
// inner's context window when inner has one.
func Wrap(inner loop.Model, opts Options) loop.Model {
	m := &model{inner: inner, opts: opts}
	if w, ok := inner.(loop.Windowed); ok {
		return &windowed{model: m, w: w}
	}
	return m
}

type model struct {
	inner loop.Model
	opts  Options
}

type windowed struct {
	*model
	w loop.Windowed
}

func (w *windowed) ContextWindow() int { return w.w.ContextWindow() }

// Step runs one step of the inner model over the text protocol, with at most one
// repair round.
func (m *model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	tools, choice := offered(req)
	var decl []session.Tool
	if len(tools) > 0 {
		decl = searching(req.Tools)
	}
	msgs, done := convert(req.Messages, decl)
	r := *req
	r.Messages, r.Tools = msgs, nil
	if len(tools) == 0 {
		if !usedTools(req.Messages) {
			return m.inner.Step(ctx, &r, emit)
		}
		// Tools are off for this step (toolChoice "none", or the last step after the
		// call limit), but the model has seen call blocks in the conversation and may
		// write one: it is dropped, so that no delimiter reaches the page.
		f := &callFilter{emit: emit, p: Parser{NoBareJSON: true}}
		if err := m.inner.Step(ctx, &r, bounded(req.ContextWindow, f.relay)); err != nil {
			return err
		}
		return f.send(f.p.Close())
	}
	render := m.opts.Prompt
	if render == nil {
		render = DefaultPrompt
	}
	sys := render(atop(tools, decl, done), choice)
	if c := req.ResponseConstraint; len(c) > 0 {
		// The constraint binds the answer, not the calls: an inner model that enforces it
		// (a grammar, Chrome's responseConstraint) could write no call block. A step that
		// offers tools goes without it: the model is told what an answer must be, and the
		// loop checks the answer (one repair). A step without tools keeps it (above).
		r.ResponseConstraint, r.OmitConstraintInput = nil, false
		if !req.OmitConstraintInput {
			sys += answerRule(c)
		}
	}
	r.Messages = withSystem(msgs, sys)
	r.ToolChoice = loop.ToolChoice{}

	noBare := req.ResponseConstraint != nil // a JSON object is then the answer, not a call
	first := &attempt{tools: tools, choice: choice, emit: emit, mayRepair: true, forming: req.Forming}
	first.parser.NoBareJSON = noBare
	if err := m.inner.Step(ctx, &r, bounded(req.ContextWindow, first.delta)); err != nil {
		return err
	}
	if err := first.end(); err != nil {
		return err
	}
	why := first.problems()
	if why == "" {
		if choice.Mode == "auto" || len(first.calls) > 0 {
			return first.flush()
		}
		why = mustCallSentence(choice) + "\n\nReply with the tool call only, in its own block exactly like this:\n\n" + callExample
	}
	return first.again(ctx, m.inner, &r, req.ContextWindow, first.raw.String(), why)
}

// again is the repair round after the attempt a: inner is asked once more, r gaining
// the reply it gave and what was wrong with it, and its second reply is the step's.
func (a *attempt) again(ctx loop.Context, inner loop.Model, r *loop.Request, window int, reply, why string) error {
	for at := 0; at < a.n && a.forming; at++ {
		if err := a.drop(at); err != nil { // the repair asks for them all again
			return err
		}
	}
	r.Messages = repairMessages(r.Messages, reply, why)
	second := &attempt{tools: a.tools, choice: a.choice, emit: a.emit, before: a.usage, forming: a.forming, read: a.read}
	second.parser.Strict, second.parser.NoBareJSON = a.parser.Strict, a.parser.NoBareJSON
	if err := inner.Step(ctx, r, bounded(window, second.delta)); err != nil {
		return err
	}
	return second.end()
}

// offered returns the tools this step renders and the choice, normalised to "auto",
// "required" or "tool". A named tool that is not offered leaves every tool, in "auto".
func offered(req *loop.Request) ([]session.Tool, loop.ToolChoice) {
	switch req.ToolChoice.Mode {
	case "none":
		return nil, req.ToolChoice
	case "required":
		return req.Tools, req.ToolChoice
	case "tool":
		for i := range req.Tools {
			if req.Tools[i].Name == req.ToolChoice.Name {
				return req.Tools[i : i+1 : i+1], req.ToolChoice
			}
		}
	}
	return req.Tools, loop.ToolChoice{Mode: "auto"}
}

// atop returns the tools the list atop the system prompt declares: tools without those
// of decl that the history declares where a search found them (done).
// Not marked go:noinline: the compiler does not inline it (it is over the inliner's
// budget); with the mark, the module was the same, byte for byte.
func atop(tools, decl []session.Tool, done []bool) []session.Tool {
	if decl == nil {
		return tools
	}
	out := make([]session.Tool, 0, len(tools))
	for i := range tools {
		if k := toolIndex(decl, tools[i].Name); k < 0 || !done[k] {
			out = append(out, tools[i])
		}
	}
	return out
}

// toolIndex is where name is in tools, -1 when none is. Not inlined: 308 B brotli less.
//
//go:noinline
func toolIndex(tools []session.Tool, name string) int {
	for i := range tools {
		if tools[i].Name == name {
			return i
		}
	}
	return -1
}

// repairMessages is the request of a repair round: the first request, the model's reply,
// and what was wrong with it.
func repairMessages(msgs []session.Message, reply, why string) []session.Message {
	out := make([]session.Message, len(msgs), len(msgs)+2)
	copy(out, msgs)
	for i := range out {
		out[i].Prefix = false // a prefix is no longer the last message
	}
	if n := len(out); n > 0 && out[n-1].Role == session.RoleAssistant {
		// The reply continued a prefix: the two are one assistant message.
		parts := make([]session.Part, len(out[n-1].Parts), len(out[n-1].Parts)+1)
		copy(parts, out[n-1].Parts)
		if k := len(parts) - 1; k >= 0 && parts[k].Type == session.PartText {
			parts[k] = session.Part{Type: session.PartText, Text: parts[k].Text + reply}
		} else {
			parts = append(parts, session.Part{Type: session.PartText, Text: reply})
		}
		out[n-1] = session.Message{Role: session.RoleAssistant, Parts: parts}
	} else {
		out = append(out, session.TextMessage(session.RoleAssistant, reply))
	}
	return append(out, session.TextMessage(session.RoleUser, why))
}

// attempt is one run of the inner model: it parses the stream, validates each call and
// decides what reaches the loop.
type attempt struct {
	tools     []session.Tool
	choice    loop.ToolChoice
	emit      func(loop.Delta) error
	mayRepair bool // the first attempt: calls are held, problems collected, not emitted

	parser Parser
	raw    strings.Builder // the reply as the model wrote it (first attempt)
	calls  []session.ToolCall
	issues []string
	blocks int
	usage  *loop.Usage // the first attempt's, held
	before *loop.Usage // in a repair: the first attempt's

	forming bool    // the loop asks for calls as they form (forming.go)
	n       int     // calls kept or passed on so far: the place of the next
	cur     forming // the call forming in the open block

	// Reading content of a backend with native tools (Read, read.go).
	read       bool
	native     []session.ToolCall // the backend's own calls, held with the content's (first attempt)
	nativeSeen bool               // the backend called, or began to: content forms no call
	held       []heldPiece        // what followed the first call block, until the step ends
}

// bounded passes the inner model's deltas to next and stops the step once they alone are
// longer than the context window (loop.ReplyTooLong), as the loop stops any step: the
// parser holds an open call block until it closes, and the repair keeps the raw reply,
// so a model that never closes a block would otherwise grow them without end.
func bounded(window int, next func(loop.Delta) error) func(loop.Delta) error {
	n := 0
	return func(d loop.Delta) error {
		n += len(d.Text) + len(d.Reasoning)
		if d.Call != nil {
			n += len(d.Call.Name) + len(d.Call.Arguments)
		}
		if window > 0 && session.TextCost(n) > window {
			return loop.ReplyTooLong(session.TextCost(n), window)
		}
		return next(d)
	}
}

func (a *attempt) delta(d loop.Delta) error {
	if d.Forming != nil { // the backend's own call forming (Read)
		if err := a.nativeCall(); err != nil {
			return err
		}
		return a.emit(loop.Delta{Forming: d.Forming})
	}
	if d.Reasoning != "" {
		// Reasoning is never parsed for calls: it goes on as it came.
		if err := a.emit(loop.Delta{Reasoning: d.Reasoning}); err != nil {
			return err
		}
	}
	if d.Text != "" {
		if a.mayRepair && !a.read { // Read keeps only what follows the first block (held)
			a.raw.WriteString(d.Text)
		}
		if err := a.pieces(a.parser.Feed(d.Text)); err != nil {
			return err
		}
		if a.forming && !a.nativeSeen {
			if err := a.form(); err != nil {
				return err
			}
		}
	}
	if d.Call != nil && a.read {
		if err := a.nativeCall(); err != nil {
			return err
		}
		if a.mayRepair {
			a.native = append(a.native, *d.Call)
		} else if err := a.emit(loop.Delta{Call: d.Call}); err != nil {
			return err
		}
	} else if d.Call != nil { // an inner model with some native tool use: trust its structure
		a.n++
		if a.mayRepair {
			a.calls = append(a.calls, *d.Call)
		} else if err := a.emit(loop.Delta{Call: d.Call}); err != nil {
			return err
		}
	}
	if d.Usage != nil {
		switch {
		case a.mayRepair:
			u := *d.Usage
			a.usage = &u // sent with the calls, or folded into the repair's
		case a.before != nil:
			// The repair's input holds the broken reply and the repair message, which the
			// history will not: count the first request's input and the answer's output.
			u := *a.before // its input, and what the engine had cached of it
			u.OutputTokens = d.Usage.OutputTokens
			return a.emit(loop.Delta{Usage: &u})
		default:
			return a.emit(loop.Delta{Usage: d.Usage})
		}
	}
	return nil
}

func (a *attempt) end() error {
	if err := a.pieces(a.parser.Close()); err != nil {
		return err
	}
	if a.cur.on { // the block was released as text at the end of the stream
		return a.drop(a.cur.at)
	}
	return nil
}

func (a *attempt) pieces(ps []Piece) error {
	for _, p := range ps {
		var err error
		switch {
		case p.Block != nil:
			err = a.block(p.Block)
		case a.read:
			err = a.text(p.Text)
		case a.mayRepair && len(a.issues) > 0:
			// after a broken block the first reply is not shown: the repair replaces it
		default:
			err = a.emit(loop.Delta{Text: p.Text})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *attempt) block(b *Block) error {
	if a.read && !a.callsOffered(b) {
		// Content that does not read as a call of a tool offered this step is the
		// model's text, as it wrote it.
		if err := a.settle(b, nil); err != nil {
			return err
		}
		return a.text(b.Raw)
	}
	a.blocks++
	if a.read && a.mayRepair {
		a.held = append(a.held, heldPiece{text: b.Raw, block: true}) // shown if the backend calls
	}
	if b.Err != nil {
		if a.mayRepair {
			a.issues = append(a.issues, "block "+strconv.Itoa(a.blocks)+" ("+b.Format.String()+") could not be read: "+b.Err.Error())
			return a.settle(b, nil)
		}
		if err := a.settle(b, nil); err != nil {
			return err
		}
		if s := visible(b.Body); s != "" {
			return a.emit(loop.Delta{Text: s})
		}
		return nil
	}
	var first *Call // the block's first call that goes on
	for i := range b.Calls {
		c := &b.Calls[i]
		if c.params != nil {
			if t := a.tool(c.Name); t != nil {
				c.Arguments = fit(c.params, t.InputSchema)
			}
		}
		call := session.ToolCall{Name: c.Name, Arguments: c.Arguments}
		if !a.mayRepair {
			if err := a.emit(loop.Delta{Call: &call}); err != nil {
				return err
			}
		} else if msg := a.check(*c); msg != "" {
			a.issues = append(a.issues, "block "+strconv.Itoa(a.blocks)+": "+msg)
			continue
		} else {
			a.calls = append(a.calls, call)
		}
		if a.n++; first == nil {
			first = &b.Calls[i]
		}
	}
	return a.settle(b, first)
}

// tool is the tool named name offered this step, nil when none is.
func (a *attempt) tool(name string) *session.Tool {
	for i := range a.tools {
		if a.tools[i].Name == name {
			return &a.tools[i]
		}
	}
	return nil
}

// check validates a call against the tools offered; it returns the problem for the model.
func (a *attempt) check(c Call) string {
	t := a.tool(c.Name)
	if t == nil {
		if a.choice.Mode == "tool" {
			return sfmt.Sprintf("only the tool %q may be called now, not %q", a.choice.Name, c.Name)
		}
		names := make([]string, len(a.tools))
		for i := range a.tools {
			names[i] = a.tools[i].Name
		}
		return sfmt.Sprintf("unknown tool %q; the tools are: %s", c.Name, strings.Join(names, ", "))
	}
	if len(c.Arguments) == 0 || c.Arguments[0] != '{' {
		return sfmt.Sprintf("the arguments of %q must be a JSON object, not %s", c.Name, c.Arguments)
	}
	return t.ValidateArguments(c.Arguments)
}

func (a *attempt) problems() string {
	if len(a.issues) == 0 {
		return ""
	}
	return "Your tool calls could not be used:\n- " + strings.Join(a.issues, "\n- ") +
		"\n\nReply again with all the tool calls you meant to make, corrected, each in its own block exactly like this:\n\n" + callExample
}

func (a *attempt) flush() error {
	for i := range a.calls {
		if err := a.emit(loop.Delta{Call: &a.calls[i]}); err != nil {
			return err
		}
	}
	if a.usage != nil {
		return a.emit(loop.Delta{Usage: a.usage})
	}
	return nil
}

// visible is the content of an unreadable block as text, without any delimiter.
func visible(body string) string {
	s := strings.TrimSpace(body)
	for {
		t := s
		for _, d := range [...]string{"```" + wordToolCall, tagOpen, tagClose} {
			t = strings.ReplaceAll(t, d, "")
		}
		if t == s {
			return strings.TrimSpace(s)
		}
		s = t
	}
}

// usedTools reports whether the conversation holds tool calls.
func usedTools(msgs []session.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleToolCall {
			return true
		}
	}
	return false
}

// callFilter relays a step's text through a parser that drops call blocks (bare JSON is
// left as text: without tools it is an answer, not a call).
type callFilter struct {
	emit func(loop.Delta) error
	p    Parser
}

func (f *callFilter) relay(d loop.Delta) error {
	if d.Text != "" {
		if err := f.send(f.p.Feed(d.Text)); err != nil {
			return err
		}
		d.Text = ""
	}
	if d.Usage == nil && d.Call == nil && d.Reasoning == "" {
		return nil
	}
	return f.emit(d)
}

func (f *callFilter) send(pieces []Piece) error {
	for _, pc := range pieces {
		if pc.Block == nil && pc.Text != "" {
			if err := f.emit(loop.Delta{Text: pc.Text}); err != nil {
				return err
			}
		}
	}
	return nil
}
