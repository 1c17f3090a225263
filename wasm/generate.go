package wasm

import (
	"errors"
	"io"

	"langmodel/loop"
	"langmodel/session"
)

// pageGenerator is custom.Generator over the channel: each step becomes a generate
// message naming the page's generate function by its stash id (the page's own for
// {kind: "custom"}, js/'s built-in driver of the native LanguageModel for {kind:
// "browser"}); the page sends each piece it produces as one generate-piece, then
// generate-end.
type pageGenerator struct {
	h  *Handler
	fn int64 // stash id of generate
}

// Generate implements custom.Generator. When ctx ends, or emit wants no more, the page
// is told (generate-abort) and aborts the signal it gave generate.
func (g *pageGenerator) Generate(ctx loop.Context, request []byte, emit func(piece []byte) error) error {
	return g.generate(ctx, request, false, emit)
}

// GenerateLive implements openai.LiveEngine: the generate message says live, and the
// engine's driver (js/engine.js) passes a tool call's fragments on as they come, for
// the toolcalldelta events.
func (g *pageGenerator) GenerateLive(ctx loop.Context, request []byte, emit func(piece []byte) error) error {
	return g.generate(ctx, request, true, emit)
}

func (g *pageGenerator) generate(ctx loop.Context, request []byte, live bool, emit func(piece []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := newStream()
	id, _ := g.h.openCall(TypeGenerate, nil, s)
	stop := loop.AfterFunc(ctx, func() {
		g.h.abortCall(id, TypeGenerateAbort)
		s.end(ctx.Err())
	})
	defer stop()
	g.h.write(&PageCall{Type: TypeGenerate, ID: id, Fn: g.fn, Request: request, Live: live})
	for {
		items, err := s.next()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, it := range items {
			if err := emit(it); err != nil {
				g.h.abortCall(id, TypeGenerateAbort)
				return err
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return generateError(err)
		}
	}
}

// generateError is a generate that threw. The exception's name is kept when it is one
// the page may expect from a model (NotSupportedError for a language the native model
// lacks, NetworkError from a remote one…); anything else is an OperationError.
func generateError(err error) error {
	pe, ok := errors.AsType[*pageError](err)
	if !ok {
		return err
	}
	kind := session.KindOperation
	switch k := session.Kind(pe.name); k {
	case session.KindNotSupported, session.KindNotAllowed, session.KindNetwork, session.KindData, session.KindInvalidState, session.KindSyntax:
		kind = k
	}
	msg := pe.message
	if msg == "" {
		msg = "generate failed"
	}
	return session.Errorf(kind, session.ErrModel, "%s", msg)
}
