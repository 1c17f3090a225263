// Package scripted is a deterministic, offline Model for tests and the demo. It is not a
// language model and never pretends to be one: it either plays a script of turns, one per
// step, or follows a small rule set (see Rules) that turns keywords into tool calls and
// tool results into a summary. The demo labels it "offline demo model".
package scripted

import (
	"errors"
	"sync"

	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
)

// Turn is one scripted step.
type Turn struct {
	// Text is the step's text, streamed as one chunk unless Chunks is set.
	Text   string   `json:"text,omitempty"`
	Chunks []string `json:"chunks,omitempty"`
	Calls  []Call   `json:"calls,omitempty"`
	// Error makes the step fail with an error of that kind and message.
	Error *StepError `json:"error,omitempty"`
	// Hang makes the step wait until it is aborted, after sending its chunks.
	Hang bool `json:"hang,omitempty"`
	// Usage, when set, is reported after the calls.
	Usage *loop.Usage `json:"usage,omitempty"`
	// Request is the step's recorded request (loop/record), decoded JSON; a strict
	// Script compares each step's request with it (docs/recordings.md).
	Request any `json:"request,omitempty"`
}

// Call is a scripted tool call. Arguments is raw JSON (normally an object); ID may be
// empty, and the loop assigns one.
type Call struct {
	ID        string           `json:"callID,omitempty"`
	Name      string           `json:"name"`
	Arguments jsonv.RawMessage `json:"arguments,omitempty"`
}

// StepError is a scripted failure.
type StepError struct {
	Kind    session.Kind `json:"name"`
	Message string       `json:"message"`
}

// ErrExhausted is returned by a step past the end of the script.
var ErrExhausted = errors.New("scripted model: the script has no more turns")

// Script plays its turns in order, one per step, across every session that uses it.
type Script struct {
	mu    sync.Mutex
	turns []Turn
	next  int
	reqs  []Seen
	// Window is the context window the model reports; 0 leaves the loop's default.
	Window int
	// Strict makes a step whose request differs from its turn's recorded Request fail
	// with a DataError naming the first difference (ErrRequestDiffers).
	Strict bool
}

// ErrRequestDiffers is the rule a strict replay breaks when a step's request is not the
// recorded one.
var ErrRequestDiffers = errors.New("the request differs from the recording")

// Seen is what a step was asked: the message count, the last message and the tool names.
type Seen struct {
	Messages int
	Last     session.Message
	Tools    []string
	Choice   loop.ToolChoice
}

// New returns a model that plays turns.
func New(turns ...Turn) *Script { return &Script{turns: turns} }

// ContextWindow implements loop.Windowed.
func (s *Script) ContextWindow() int { return s.Window }

// Requests returns what each step so far was asked.
func (s *Script) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.reqs...)
}

// Step plays the next turn.
func (s *Script) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	s.mu.Lock()
	seen := Seen{Messages: len(req.Messages), Choice: req.ToolChoice}
	if n := len(req.Messages); n > 0 {
		seen.Last = req.Messages[n-1]
	}
	for _, t := range req.Tools {
		seen.Tools = append(seen.Tools, t.Name)
	}
	s.reqs = append(s.reqs, seen)
	if s.next >= len(s.turns) {
		s.mu.Unlock()
		return ErrExhausted
	}
	t := s.turns[s.next]
	s.next++
	s.mu.Unlock()
	if s.Strict && t.Request != nil {
		got, err := session.DecodeJSON(req.AppendJSON(nil))
		if err != nil {
			return err
		}
		if d := Diff(t.Request, got); d != "" {
			return session.Errorf(session.KindData, ErrRequestDiffers, "step %d: %s", s.next, d)
		}
	}
	return play(ctx, t, emit)
}

func play(ctx loop.Context, t Turn, emit func(loop.Delta) error) error {
	chunks := t.Chunks
	if chunks == nil && t.Text != "" {
		chunks = []string{t.Text}
	}
	for _, c := range chunks {
		if err := emit(loop.Delta{Text: c}); err != nil {
			return err
		}
	}
	for _, c := range t.Calls {
		args := c.Arguments
		if args == nil {
			args = jsonv.RawMessage("{}")
		}
		if err := emit(loop.Delta{Call: &session.ToolCall{CallID: c.ID, Name: c.Name, Arguments: args}}); err != nil {
			return err
		}
	}
	if t.Usage != nil {
		u := *t.Usage
		if err := emit(loop.Delta{Usage: &u}); err != nil {
			return err
		}
	}
	if t.Hang {
		<-ctx.Done()
		return ctx.Err()
	}
	if t.Error != nil {
		return session.Errorf(t.Error.Kind, session.ErrModel, "%s", t.Error.Message)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// String describes the model for logs and the demo.
// ServesLanguage: a script is written in English (loop.Linguist).
func (s *Script) ServesLanguage(tag string) bool { return session.LanguageOf(tag) == "en" }

func (s *Script) String() string { return sfmt.Sprintf("scripted model (%d turns)", len(s.turns)) }
