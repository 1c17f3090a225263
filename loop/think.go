package loop

import "strings"

// Thinking returns a Model that reads a <think>…</think> block at the start of m's text
// as reasoning (Delta.Reasoning), so that small reasoning models served without a
// reasoning parser keep their thinking out of the answer, and out of the text protocol's
// call parser, which wraps it (docs/reasoning.md). Only a block the step begins with
// counts (leading white space aside): a <think> later in the text, or a </think> after
// the block closed (in a tool's argument, say), is text. A block still open when the step
// ends is reasoning, and the answer is what followed it: nothing, as llama.cpp's and
// vLLM's parsers decide. The white space after </think> is not part of the answer.
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
// </think>. In the answer it holds nothing and costs one comparison per delta.
type splitter struct {
	emit  func(Delta) error
	state int
	held  string
}

func (s *splitter) delta(d Delta) error {
	if s.state == inAnswer || d.Text == "" {
		return s.emit(d)
	}
	text := s.held + d.Text
	s.held = ""
	var reason string
	for text != "" {
		switch s.state {
		case atStart:
			t := strings.TrimLeft(text, " \t\r\n")
			switch {
			case strings.HasPrefix(t, thinkOpen):
				s.state, text = inThought, t[len(thinkOpen):]
			case strings.HasPrefix(thinkOpen, t): // "" or a prefix: wait for more
				s.held, text = text, ""
			default:
				s.state = inAnswer
				d.Text, text = text, ""
			}
		case inThought:
			i := strings.Index(text, thinkClose)
			if i >= 0 {
				reason += text[:i]
				s.state, text = afterIt, text[i+len(thinkClose):]
				continue
			}
			// Hold what may be the start of </think>.
			k := len(text)
			for j := max(0, len(text)-len(thinkClose)+1); j < len(text); j++ {
				if strings.HasPrefix(thinkClose, text[j:]) {
					k = j
					break
				}
			}
			reason += text[:k]
			s.held, text = text[k:], ""
		case afterIt:
			if t := strings.TrimLeft(text, " \t\r\n"); t != "" {
				s.state = inAnswer
				d.Text = t
			}
			text = ""
		}
	}
	if s.state != inAnswer {
		d.Text = ""
	}
	d.Reasoning += reason
	if d == (Delta{}) {
		return nil
	}
	return s.emit(d)
}

// end gives back what the splitter held when the step ended: white space, or a prefix
// of <think>, is the answer's; the tail of unterminated reasoning is reasoning.
func (s *splitter) end() error {
	h := s.held
	s.held = ""
	switch {
	case h == "":
		return nil
	case s.state == atStart:
		return s.emit(Delta{Text: h})
	}
	return s.emit(Delta{Reasoning: h})
}
