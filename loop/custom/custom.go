// Package custom is the backend for models the page supplies: `{kind: "custom",
// generate(request, {signal})}` (WebLLM, transformers.js, a remote API of the page's own…)
// and, through the same port, the browser's native LanguageModel, which js/ drives as a
// built-in generate function.
//
// The engine renders each step as a plain-data request (the history in the draft-PR form
// that session.history exports, the tool declarations, toolChoice, responseConstraint) and
// reads back what the page's generator produced, piece by piece: a string is text; an
// object is {type: "text", value}, {type: "reasoning", value} (what the model thinks: never
// the answer), {type: "tool-call", value: {callID?, name, arguments}} or {type: "usage",
// value: {inputTokens, outputTokens, cachedTokens?}}. The Generator port carries both
// directions as JSON; the binding in wasm/ implements it over the module's channel.
package custom

import (
	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// Generator runs the page's generate(request, {signal}) and passes each piece it yields to
// emit, in order. It returns when the page's generator is done, or ctx ends (the binding
// then aborts the signal it gave the page).
type Generator interface {
	Generate(ctx loop.Context, request []byte, emit func(piece []byte) error) error
}

// Model is a loop.Model over a Generator.
type Model struct {
	gen    Generator
	window int
}

// New returns a Model that asks gen for each step. window is the context window the page
// declared (0: the loop's default).
func New(gen Generator, window int) *Model { return &Model{gen: gen, window: window} }

// ContextWindow implements loop.Windowed.
func (m *Model) ContextWindow() int { return m.window }

// Step renders the request, runs the generator and relays its pieces.
func (m *Model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return m.gen.Generate(ctx, RenderRequest(req), func(piece []byte) error {
		d, err := ParsePiece(piece)
		if err != nil {
			return err
		}
		return emit(d)
	})
}

// RenderRequest is the request the page's generate receives, as JSON
// (loop.Request.AppendJSON).
func RenderRequest(req *loop.Request) []byte { return req.AppendJSON(nil) }

// ParsePiece reads one piece the page's generator yielded.
func ParsePiece(piece []byte) (loop.Delta, error) {
	v, err := session.DecodeJSON(piece)
	if err != nil {
		return loop.Delta{}, bad("a piece is not JSON")
	}
	switch p := v.(type) {
	case string:
		return loop.Delta{Text: p}, nil
	case map[string]any:
		typ, _ := p["type"].(string)
		switch typ {
		case "text", "reasoning":
			s, ok := p["value"].(string)
			if !ok {
				return loop.Delta{}, bad(`a {type: "` + typ + `"} piece needs a string value`)
			}
			if typ == "text" {
				return loop.Delta{Text: s}, nil
			}
			return loop.Delta{Reasoning: s}, nil
		case "tool-call":
			c, ok := p["value"].(map[string]any)
			if !ok {
				return loop.Delta{}, bad(`a {type: "tool-call"} piece needs a value {name, arguments}`)
			}
			name, _ := c["name"].(string)
			if name == "" {
				return loop.Delta{}, bad("a tool call needs a name")
			}
			id, _ := c["callID"].(string)
			if id == "" {
				id, _ = c["callId"].(string)
			}
			args := jsonv.RawMessage("{}")
			switch a := c["arguments"].(type) {
			case nil:
			case string: // some generators hand over the model's JSON text
				args = jsonv.RawMessage(a)
			default:
				// Decoded values always encode, as encoding/json's Marshal wrote them.
				args, _ = jsonv.Marshal(a)
			}
			return loop.Delta{Call: &session.ToolCall{CallID: id, Name: name, Arguments: args}}, nil
		case "usage":
			u, _ := p["value"].(map[string]any)
			_, cached := u["cachedTokens"].(jsonv.Number)
			return loop.Delta{Usage: &loop.Usage{InputTokens: intOf(u["inputTokens"]), OutputTokens: intOf(u["outputTokens"]),
				CachedTokens: intOf(u["cachedTokens"]), Cached: cached}}, nil
		}
	}
	return loop.Delta{}, bad("a piece must be a string or {type: \"text\" | \"reasoning\" | \"tool-call\" | \"usage\", value}")
}

func intOf(v any) int {
	n, ok := v.(jsonv.Number)
	if !ok {
		return 0
	}
	i, err := n.Int64()
	if err != nil {
		return 0
	}
	return int(i)
}

func bad(msg string) error {
	return session.Errorf(session.KindType, session.ErrModel, "the page's generate yielded a bad piece: %s", msg)
}
