package wasm

import (
	"bytes"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/internal/redact"
	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/loop/custom"
	"langmodel/loop/openai"
	"langmodel/loop/record"
	"langmodel/loop/scripted"
	"langmodel/loop/textproto"
	"langmodel/session"
)

// Backends (DESIGN.md §4). install({backend}) sets the page's default, which js/ sends
// with every create() that names none; create({backend}) overrides it. The kinds:
//
//	{kind: "scripted", turns | rules, window}         loop/scripted; the default
//	{kind: "openai", baseURL, model, apiKey?, headers?, secretHeaders?, nativeTools = true,
//	 contextWindow?}
//	                                                  loop/openai over the page's fetch
//	{kind: "custom", generate, nativeTools = false, contextWindow?}
//	                                                  loop/custom over the page's generate
//	{kind: "browser", nativeTools?, contextWindow?}   loop/custom over js/'s driver of the
//	                                                  native LanguageModel (generate is set
//	                                                  by js/ when the browser has one, and
//	                                                  nativeTools when it has tool use)
//	{kind: "engine", generate, model?, nativeTools = true, contextWindow?}
//	                                                  loop/openai over js/'s driver of the
//	                                                  page's engine object (js/engine.js)
//	{kind: "record", backend?}                        loop/record around backend (absent:
//	                                                  the default), each step sent to the
//	                                                  page as a modelstep event (recording)
//	{kind: "chain", backends}                         loop/chain over the members (chain.go)
//
// generate crosses as its stash id. Models without native tool calling (nativeTools
// false) get tool use through loop/textproto's text protocol (Wrap); models with it
// have the calls they write as text read all the same (textproto.Read: the runtime's
// parser for a family's syntax may miss, and leave the call in the content).
//
// A malformed config is a TypeError naming the field; a kind this module does not know,
// or a browser without a native model, is NotSupportedError. Messages never echo values:
// apiKey and headers may hold secrets. apiKey, the values of the credential headers
// (redact.IsSecretHeader: Authorization, Proxy-Authorization, Cookie, X-API-Key, api-key)
// and of the headers secretHeaders names, and baseURL's user-info and query values join
// the handler's redactor (Handler.red).

// newModel builds the model a backend option names. No backend means the offline demo
// model (scripted rules), which DESIGN.md §4 makes the default when nothing else is
// configured. Every create() gets its own model, so a script plays from its first turn
// for each session (and is shared with the session's clones).
func (h *Handler) newModel(raw jsonv.RawMessage) (loop.Model, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return &scripted.Rules{}, nil
	}
	v, err := session.DecodeJSON(raw)
	if err != nil {
		return nil, session.Wrap(session.KindType, errBadBackend, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, badBackend("the backend must be an object {kind, ...}")
	}
	c := config{obj: obj}
	kind := c.str("kind", false)
	if c.err != nil {
		return nil, c.err
	}
	switch kind {
	case "", "scripted":
		m, err := scripted.FromJSON(obj)
		if err != nil {
			return nil, session.Wrap(session.KindType, errBadBackend, err)
		}
		return m, nil
	case "openai", "engine":
		// An in-page engine is the openai backend with the call made by js/'s driver of
		// the page's engine object (js/engine.js), stashed as generate: the request is
		// the Chat Completions body, each piece one chunk, and generate-abort stops the
		// engine. model may be absent (the engine's loaded model).
		server := kind == "openai"
		cfg := openai.Config{
			BaseURL:       c.str("baseURL", server),
			Model:         c.str("model", server),
			APIKey:        c.str("apiKey", false),
			Headers:       c.strMap("headers"),
			SecretHeaders: c.names("secretHeaders"),
			TextTools:     !c.boolean("nativeTools", true),
			ContextWindow: c.window(),
		}
		opened := c.opensThink()
		fn := c.integer("generate")
		if c.err == nil && server && !(strings.HasPrefix(cfg.BaseURL, "http://") || strings.HasPrefix(cfg.BaseURL, "https://") || strings.HasPrefix(cfg.BaseURL, "/")) {
			c.fail("backend.baseURL must start with http://, https:// or /")
		}
		if c.err == nil && redact.HasUserInfo(cfg.BaseURL) { // fetch refuses it; its credential goes in headers
			c.fail("backend.baseURL must not hold credentials (user:password@ before the host); give them in apiKey or headers")
		}
		if c.err == nil && !server && fn <= 0 {
			c.fail("backend.engine is required") // js/ names a bad one
		}
		params := c.names("secretParams") // query parameters the page says are credentials
		if c.err != nil {
			return nil, c.err
		}
		h.secrets("backend", h.red.AddCredentials(cfg.APIKey, cfg.Headers, cfg.SecretHeaders, cfg.BaseURL, params...))
		var m loop.Model
		if server {
			m = openai.New(cfg, &pageFetch{h: h})
		} else {
			m = openai.NewEngine(cfg, &pageGenerator{h: h, fn: int64(fn)})
		}
		m = loop.Thinking(m, opened) // beneath the text protocol: no call is read in thinking
		if cfg.TextTools {
			return textproto.Wrap(m, textproto.Options{}), nil
		}
		return textproto.Read(m), nil
	case "record":
		inner, _ := jsonv.Marshal(obj["backend"]) // decoded JSON: it encodes
		m, err := h.newModel(inner)
		if err != nil {
			return nil, err
		}
		return record.Wrap(m), nil
	case "chain":
		return h.newChain(obj)
	case "custom", "browser":
		fn := c.integer("generate")
		// A page's generator, or the browser's model (js/ says whether it has native
		// tool use), handles tools itself only when it says so.
		native := c.boolean("nativeTools", false)
		window := c.window()
		opened := c.opensThink()
		if c.err != nil {
			return nil, c.err
		}
		if fn <= 0 {
			if kind == "browser" {
				return nil, session.Errorf(session.KindNotSupported, errBadBackend, "this browser has no built-in LanguageModel")
			}
			return nil, badBackend("backend.generate must be a function")
		}
		m := loop.Thinking(custom.New(&pageGenerator{h: h, fn: int64(fn)}, window), opened)
		if native {
			return textproto.Read(m), nil
		}
		return textproto.Wrap(m, textproto.Options{}), nil
	default:
		return nil, session.Errorf(session.KindNotSupported, errBadBackend, "unknown backend kind %q", kind)
	}
}

func badBackend(msg string) error {
	return session.Errorf(session.KindType, errBadBackend, "%s", msg)
}

// config reads a backend's fields, keeping the first problem.
type config struct {
	obj map[string]any
	err error
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = badBackend(sfmt.Sprintf(format, args...))
	}
}

func (c *config) str(name string, required bool) string {
	v, ok := c.obj[name]
	if !ok || v == nil {
		if required {
			c.fail("backend.%s is required", name)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok || (required && s == "") {
		c.fail("backend.%s must be a non-empty string", name)
	}
	return s
}

func (c *config) boolean(name string, def bool) bool {
	v, ok := c.obj[name]
	if !ok || v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		c.fail("backend.%s must be true or false", name)
	}
	return b
}

// opensThink reads templateOpensThink: the model's chat template opens the <think>
// block in the prompt (DeepSeek-R1's), so its reply starts inside it and has only the
// </think> (loop.Thinking, docs/reasoning.md). For a server or engine that does not
// detect that and send reasoning_content itself.
func (c *config) opensThink() bool { return c.boolean("templateOpensThink", false) }

func (c *config) integer(name string) int {
	v, ok := c.obj[name]
	if !ok || v == nil {
		return 0
	}
	n, ok := v.(jsonv.Number)
	i, err := n.Int64()
	if !ok || err != nil || i < 0 || i > 1<<31 {
		c.fail("backend.%s must be a non-negative integer", name)
		return 0
	}
	return int(i)
}

// names is a list of header names (secretHeaders): absent, or an array of non-empty
// strings.
func (c *config) names(name string) []string {
	v, ok := c.obj[name]
	if !ok || v == nil {
		return nil
	}
	out, err := headerNames(v)
	if err != nil {
		what := "header names"
		if name == "secretParams" {
			what = "query parameter names"
		}
		c.fail("backend.%s must be an array of "+what, name)
	}
	return out
}

// headerNames reads secretHeaders' value: an array of non-empty strings.
func headerNames(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, errBadBackend
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		if out[i], ok = e.(string); !ok || out[i] == "" {
			return nil, errBadBackend
		}
	}
	return out, nil
}

// window is contextWindow: absent, or a positive integer.
func (c *config) window() int {
	if v, ok := c.obj["contextWindow"]; ok && v != nil {
		if n := c.integer("contextWindow"); n == 0 && c.err == nil {
			c.fail("backend.contextWindow must be a positive integer")
		} else {
			return n
		}
	}
	return 0
}

func (c *config) strMap(name string) map[string]string {
	v, ok := c.obj[name]
	if !ok || v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		c.fail("backend.%s must be an object of strings", name)
		return nil
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		s, ok := v.(string)
		if !ok {
			c.fail("backend.%s[%q] must be a string", name, k)
			return nil
		}
		out[jsonv.LowerASCIIString(k)] = s
	}
	return out
}

// recording sends the steps of a record backend's model to the page, as modelstep
// events of the session key (js/record.js keeps them); other models are left alone.
func (h *Handler) recording(m loop.Model, key int64) {
	if r, ok := m.(*record.Model); ok {
		r.Clean = h.red.Parts // a secret split over two chunks (Handler.write sees them apart)
		r.Sink = func(step []byte) {
			defer func() { _ = recover() }() // a step lost is better than a dead module
			h.write(&Event{Type: "modelstep", Session: key, Detail: step})
		}
	}
}
