package loop

import "strings"

// Thinking returns a Model that reads a <think>…</think> block at the start of m's text
// as reasoning (Delta.Reasoning), so that small reasoning models served without a
// reasoning parser keep their thinking out of the answer, and out of the text protocol's
// call parser, which wraps it (docs/reasoning.md). Only a block the step begins with
// counts (leading white space aside): a <think> later in the text, or a </think> after
// the block closed (in a tool's argument, say), is text. A block still open when the step
// ends is reasoning, and the answer is what followed it: nothing, as llama.cpp's and
// vLLM's parsers decide. The white space after </think> is not part of the answer, also
// when the inner model split the reasoning itself (a server's reasoning_content) and
// left that white space at the start of its text: such a step's text starts after it, so
// white space is never an answer, or a history entry, of its own.
//
// open is for a model whose chat template opens the block in the prompt: its reply
// starts inside it and has only the </think>.
func Thinking(m Model, open bool) Model { return &thinking{inner: m, open: open} }

type thinking struct {
	inner Model
	open  bool
}

// ContextWindow is the wrapped model's, 0 when it does not say.
func (t *thinking) ContextWindow() int {
	if w, ok := t.inner.(Windowed); ok {
		return w.ContextWindow()
	}
	return 0
}

func (t *thinking) Step(ctx Context, req *Request, emit func(Delta) error) error {
	s := &splitter{emit: emit}
	if t.open {
		s.state = inThought
	}
	if err := t.inner.Step(ctx, req, s.delta); err != nil {
		return err
	}
	return s.end()
}

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// The splitter's states, in the order a step goes through them.
const (
	atStart   = iota // nothing but white space yet, or a prefix of <think>
	inThought        // inside the block
	afterIt          // after </think>: white space still dropped
	inAnswer         // text, passed on as it comes
)

// splitter splits one step's text. held is what it cannot place yet: the start while it
// may still become <think>, or the end of the reasoning while it may still become
// </think>. In the answer it holds nothing and costs one comparison per delta. Each
// delta moves it forward through the states at most once each, so there is no loop.
type splitter struct {
	emit  func(Delta) error
	state int
	held  string
}

func (s *splitter) delta(d Delta) error {
	if d.Reasoning != "" && s.state < afterIt {
		// Reasoning the inner model split itself (a server's reasoning_content, or an
		// engine's): the text that follows it is the answer, after the white space that
		// stood after </think>, as when the block is read here. What was held at the start
		// was white space or part of a <think> that never came; in a block the template
		// opened, it is the reasoning's.
		if s.state == inThought && s.held != "" {
			d.Reasoning, s.held = s.held+d.Reasoning, ""
		}
		s.state, s.held = afterIt, ""
	}
	if s.state == inAnswer || d.Text == "" {
		return s.emit(d)
	}
	t := s.held + d.Text
	s.held = ""
	if s.state == atStart {
		u := trimLead(t)
		switch {
		case strings.HasPrefix(u, thinkOpen):
			s.state, t = inThought, u[len(thinkOpen):]
		case strings.HasPrefix(thinkOpen, u): // "" or a prefix: wait for more
			s.held, t = t, ""
		default:
			s.state = inAnswer
		}
	}
	if s.state == inThought {
		// Up to </think>, or else to what may be its start, which is held.
		k := strings.Index(t, thinkClose)
		rest := k + len(thinkClose)
		if k < 0 {
			k = max(0, len(t)-len(thinkClose)+1)
			for k < len(t) && !strings.HasPrefix(thinkClose, t[k:]) {
				k++
			}
			s.held, rest = t[k:], len(t)
		} else {
			s.state = afterIt
		}
		d.Reasoning += t[:k]
		t = t[rest:]
	}
	if s.state == afterIt {
		if t = trimLead(t); t != "" {
			s.state = inAnswer
		}
	}
	d.Text = t
	if t == "" && d.Reasoning == "" && d.Call == nil && d.Usage == nil {
		return nil
	}
	return s.emit(d)
}

// trimLead drops the white space t begins with.
func trimLead(t string) string {
	for t != "" && (t[0] == ' ' || t[0] == '\n' || t[0] == '\t' || t[0] == '\r') {
		t = t[1:]
	}
	return t
}

// end gives back what the splitter held when the step ended: white space, or a prefix
// of <think>, is the answer's; the tail of unterminated reasoning is reasoning.
func (s *splitter) end() error {
	if s.held == "" {
		return nil
	}
	if s.state == atStart {
		return s.emit(Delta{Text: s.held})
	}
	return s.emit(Delta{Reasoning: s.held})
}
