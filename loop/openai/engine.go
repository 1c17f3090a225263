package openai

import (
	"langmodel/loop"
)

// Engine runs one chat completion in an in-page engine that speaks the Chat Completions
// shape without HTTP (wllama's createChatCompletion, WebLLM's chat.completions.create):
// it takes the request body buildRequest wrote and passes each chunk the engine streams
// to chunk, as the chunk object's JSON text, in order. It returns when the engine's
// stream has ended, or ctx ends (the binding then stops the engine), or chunk fails.
//
// Its errors are the step's: a failure of the engine itself is a *session.Error with the
// DOMException name the page should see.
type Engine interface {
	Generate(ctx loop.Context, request []byte, chunk func(chunk []byte) error) error
}

// LiveEngine is an Engine that can be asked to pass a tool call's fragments on as they
// come rather than joined at the end of the stream (js/engine.js holds them by default,
// since nothing reads them before then): the loop wants calls as they form
// (loop.Request.Forming).
type LiveEngine interface {
	GenerateLive(ctx loop.Context, request []byte, chunk func(chunk []byte) error) error
}

// NewEngine returns a Model that runs its steps in e rather than on a server: the request
// building, chunk assembly and usage are the server backend's own (buildRequest,
// chunkReader); only the call differs. There is no retry (an engine in the page has no
// 429) and no Authorization (cfg's APIKey and Headers are not used); cfg.Model may be ""
// (the engine's loaded model), and cfg.TextTools is for the caller, which wraps the model
// in textproto. See RATIONALE.md "Why does an in-page engine cross the channel as a
// generate, and its chunks as objects?".
func NewEngine(cfg Config, e Engine) *Model {
	cfg.ToolNames = true
	m := &Model{cfg: cfg, engine: e}
	m.red.AddCredentials(cfg.APIKey, cfg.Headers, cfg.SecretHeaders, cfg.BaseURL)
	m.red.AddMasked(cfg.APIKey) // "sk-abc1****wxyz" in "incorrect API key" messages
	return m
}

// engineStep runs one streaming chat completion in the engine and relays its text, tool
// calls and usage. Tool calls are relayed once the stream has ended, as they are from a
// server: an engine that fails mid-stream has made no call. The engine's own failure is
// as the binding named it (js/engine.js words it).
func (m *Model) engineStep(ctx loop.Context, body []byte, forming bool, emit func(loop.Delta) error) error {
	r := chunkReader{source: "the engine", emit: emit, forming: forming}
	var err error
	if le, ok := m.engine.(LiveEngine); ok && forming {
		err = le.GenerateLive(ctx, body, r.handle)
	} else {
		err = m.engine.Generate(ctx, body, r.handle)
	}
	if err != nil {
		return err
	}
	return r.flush()
}
