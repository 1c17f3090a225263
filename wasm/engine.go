package wasm

import (
	"langmodel/loop"
	"langmodel/loop/openai"
	"langmodel/loop/textproto"
)

// newEngineModel builds the model of {kind: "engine"}: an in-page engine with the Chat
// Completions shape (a wllama instance, WebLLM's MLCEngine), which js/ wraps in a driver
// function (js/engine.js) and stashes as generate. The request building, chunk assembly
// and usage are loop/openai's; only the call crosses to the page, as a generate message
// whose request is the Chat Completions body and whose pieces are the engine's chunks
// (so a module in a Worker reaches the engine on the page as it reaches a custom
// generate). generate-abort stops the engine.
//
// model names the engine's model in the request (WebLLM with several loaded); absent,
// the engine uses the one it has. nativeTools false renders tools as text (loop/textproto)
// for a model whose chat template has none.
func (h *Handler) newEngineModel(c *config) (loop.Model, error) {
	fn := c.integer("generate")
	cfg := openai.Config{
		Model:         c.str("model", false),
		TextTools:     !c.boolean("nativeTools", true),
		ContextWindow: c.window(),
	}
	if c.err != nil {
		return nil, c.err
	}
	if fn <= 0 {
		return nil, badBackend("backend.engine must be an object with createChatCompletion() (wllama) or chat.completions.create() (WebLLM)")
	}
	var m loop.Model = openai.NewEngine(cfg, &pageGenerator{h: h, fn: int64(fn)})
	if cfg.TextTools {
		m = textproto.Wrap(m, textproto.Options{})
	}
	return m, nil
}
