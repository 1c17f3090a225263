// Package openai is the backend for OpenAI-compatible Chat Completions servers: OpenAI,
// Ollama, llama.cpp's server, vLLM, LM Studio. It owns the protocol — request building from
// the canonical history, server-sent events, tool-call delta assembly, retries, error
// bodies — and nothing else: bytes leave through a Transport, which in the browser is the
// page's fetch over the module's channel, so the module never links net/http
// (DESIGN.md §2). Native tests plug a Go HTTP client into the same port. An in-page
// engine with the same API (wllama, WebLLM: engine.go) gets the same request and streams
// the same chunks back, as objects rather than server-sent events.
//
// The API key goes into the Authorization header and nowhere else: it is never part of a
// message, an error (server messages that echo it are redacted) or a log.
package openai

import (
	"errors"

	"langmodel/internal/clock"
	"langmodel/internal/redact"
	"langmodel/loop"
	"langmodel/loop/internal/fetchport"
	"langmodel/loop/internal/sse"
	"langmodel/session"
)

// Transport sends one HTTP request and returns the response with its body unread. It must
// stop, and close the body, when ctx ends. It is the port the MCP client shares
// (loop/internal/fetchport).
type Transport = fetchport.Transport

// Request is an HTTP request as the transport sends it.
type Request = fetchport.Request

// Response is an HTTP response; Header keys are lower case.
type Response = fetchport.Response

// Config is the backend's configuration as the page gives it (install({backend}) or
// create({backend})).
type Config struct {
	BaseURL string // e.g. "http://127.0.0.1:11434/v1"; "/chat/completions" is appended
	Model   string
	APIKey  string
	Headers map[string]string
	// SecretHeaders names the headers beyond the credential ones (redact.IsSecretHeader)
	// whose values are secrets (the page's secretHeaders).
	SecretHeaders []string
	// TextTools asks for the text tool-call protocol instead of native tools
	// (nativeTools: false in the page's config).
	TextTools bool
	// ToolNames has each "tool" message name its tool. Chat templates run in the page
	// need it (Hermes 2 Pro's raises without), so NewEngine sets it; OpenAI's API refuses
	// a name on a tool message, so a server gets none.
	ToolNames bool
	// MaxRetries bounds the retries of 429 and 5xx answers; 0 means DefaultMaxRetries.
	MaxRetries int
	// ContextWindow is reported to the loop; 0 leaves the loop's default.
	ContextWindow int
}

// DefaultMaxRetries is how many times a 429 or 5xx is retried.
const DefaultMaxRetries = 3

// Model is a loop.Model over an OpenAI-compatible server.
type Model struct {
	cfg       Config
	transport Transport
	engine    Engine          // an in-page engine instead of a server (NewEngine); nil for a server
	red       redact.Redactor // the key, credential headers, baseURL's user-info and query
	// Sleep waits between retries; tests replace it. It returns early with ctx's error.
	Sleep func(ctx loop.Context, d loop.Duration) error
}

// New returns a Model that sends its requests through t.
func New(cfg Config, t Transport) *Model {
	if cfg.MaxRetries <= 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	m := &Model{cfg: cfg, transport: t, Sleep: sleep}
	m.red.AddCredentials(cfg.APIKey, cfg.Headers, cfg.SecretHeaders, cfg.BaseURL)
	m.red.AddMasked(cfg.APIKey) // "sk-abc1****wxyz" in "incorrect API key" messages
	return m
}

// ContextWindow implements loop.Windowed.
func (m *Model) ContextWindow() int { return m.cfg.ContextWindow }

// Step sends one streaming chat completion and relays its text, tool calls and usage.
func (m *Model) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return m.clean(m.step(ctx, req, emit))
}

// clean redacts the secrets of the configuration from an error: a server's message, on
// any status and inside a 200 stream or body, may echo the key or a header.
func (m *Model) clean(err error) error {
	if e, ok := err.(*session.Error); ok && !m.red.Empty() {
		if msg := m.red.String(e.Msg); msg != e.Msg {
			c := *e
			c.Msg = msg
			return &c
		}
	}
	return err
}

func (m *Model) step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	if m.engine != nil && len(req.ResponseConstraint) > 0 && len(req.Tools) > 0 && req.ToolChoice.Mode != "none" {
		// An in-page engine (wllama, WebLLM) holds response_format by a grammar over the
		// whole reply, which would leave the model no way to call; a server mixes the two
		// (OpenAI, llama.cpp's generic handler). The loop checks this step's answer, and repairs
		// it in a step without tools (docs/small-windows.md, "Structured output with tools").
		r := *req
		r.ResponseConstraint = nil
		req = &r
	}
	body, err := buildRequest(m.cfg, req)
	if err != nil {
		return err
	}
	if m.engine != nil {
		return m.engineStep(ctx, body, req.Forming, emit)
	}
	resp, err := m.send(ctx, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r := chunkReader{source: "the server", emit: emit, forming: req.Forming}
	err = r.read(ctx, resp)
	if errors.Is(err, sse.ErrTooLarge) {
		return session.Errorf(session.KindNetwork, session.ErrModel, "the server at %s sent a message larger than 4 MB", fetchport.Where(endpoint(m.cfg.BaseURL)))
	}
	return err
}

// send posts body, retrying 429 and 5xx answers with backoff that honours Retry-After.
func (m *Model) send(ctx loop.Context, body []byte) (*Response, error) {
	hreq := &Request{Method: "POST", URL: endpoint(m.cfg.BaseURL), Header: m.headers(), Body: body}
	for attempt := 0; ; attempt++ {
		resp, err := m.transport.Do(ctx, hreq)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, session.Errorf(session.KindNetwork, session.ErrModel, "%s", m.red.String(err.Error()))
		}
		if resp.Status >= 200 && resp.Status < 300 {
			return resp, nil
		}
		failure := m.statusError(resp)
		resp.Body.Close()
		if !retryable(resp.Status) || attempt >= m.cfg.MaxRetries {
			return nil, failure
		}
		if err := m.Sleep(ctx, backoff(attempt, resp.Header["retry-after"], clock.Unix())); err != nil {
			return nil, err
		}
	}
}

func (m *Model) headers() map[string]string {
	h := map[string]string{"content-type": "application/json", "accept": "text/event-stream"}
	for k, v := range m.cfg.Headers {
		h[k] = v
	}
	if m.cfg.APIKey != "" {
		h["authorization"] = "Bearer " + m.cfg.APIKey
	}
	return h
}

func endpoint(base string) string {
	for len(base) > 0 && base[len(base)-1] == '/' {
		base = base[:len(base)-1]
	}
	return base + "/chat/completions"
}

// sleep waits d or until ctx ends, on the host's timers (internal/clock: the module links
// no package time).
func sleep(ctx loop.Context, d loop.Duration) error {
	elapsed := make(chan struct{})
	t := clock.AfterFunc(d, func() { close(elapsed) })
	defer t.Stop()
	select {
	case <-elapsed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
