package openai

import (
	"errors"
	"strings"

	"langmodel/loop"
	"langmodel/session"
)

// Engine runs one chat completion in an in-page engine that speaks the Chat Completions
// shape without HTTP (wllama's createChatCompletion, WebLLM's chat.completions.create):
// it takes the request body buildRequest wrote and passes each chunk the engine streams
// to chunk, as the chunk object's JSON text, in order. It returns when the engine's
// stream has ended, or ctx ends (the binding then stops the engine), or chunk fails.
//
// An error that is a *session.Error keeps its DOMException name; its message is the
// engine's own.
type Engine interface {
	Generate(ctx loop.Context, request []byte, chunk func(chunk []byte) error) error
}

// EngineModel is a loop.Model over an in-page engine: the request building, chunk
// assembly and usage are the server backend's own (buildRequest, chunkReader); only
// the call differs. There is no retry (an engine in the page has no 429) and no
// Authorization (Config's APIKey and Headers are not used). See RATIONALE.md "Why does an
// in-page engine cross the channel as a generate, and its chunks as objects?".
type EngineModel struct {
	cfg    Config
	engine Engine
}

// NewEngine returns a Model that runs its steps in e. cfg.Model may be "" (the engine's
// loaded model); cfg.TextTools is for the caller, which wraps the model in textproto.
func NewEngine(cfg Config, e Engine) *EngineModel { return &EngineModel{cfg: cfg, engine: e} }

// ContextWindow implements loop.Windowed.
func (m *EngineModel) ContextWindow() int { return m.cfg.ContextWindow }

// Step runs one streaming chat completion in the engine and relays its text, tool calls
// and usage. Tool calls are relayed once the stream has ended, as they are from a server:
// an engine that fails mid-stream has made no call.
func (m *EngineModel) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	body, err := buildRequest(m.cfg, req)
	if err != nil {
		return err
	}
	r := chunkReader{source: "the engine", emit: emit}
	var readErr error // the chunks' own failure (malformed, an error chunk, emit's)
	err = m.engine.Generate(ctx, body, func(chunk []byte) error {
		readErr = r.handle(chunk)
		return readErr
	})
	switch {
	case err == nil:
		return r.flush()
	case ctx.Err() != nil:
		return ctx.Err()
	case readErr != nil:
		return readErr
	}
	return engineError(err)
}

// engineError names an engine's failure (it threw, or its stream did): the DOMException
// name the binding gave it (OperationError for a plain exception) and a message that says
// the in-page engine failed, in the engine's own words.
func engineError(err error) error {
	kind, msg := session.KindOperation, err.Error()
	if se, ok := errors.AsType[*session.Error](err); ok {
		kind = se.Kind
		msg = strings.TrimPrefix(se.Msg, se.Rule.Error()+": ")
	}
	return session.Errorf(kind, session.ErrModel, "the in-page engine failed: %s", msg)
}
