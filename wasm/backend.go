package wasm

import (
	"bytes"
	"encoding/json"

	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/session"
)

// backendConfig is create()'s backend option: {kind, ...}. Only the scripted model is
// wired so far; the others arrive with issue 4 (see wasm/README.md).
type backendConfig struct {
	Kind   string           `json:"kind"`
	Turns  []scripted.Turn  `json:"turns"`
	Rules  *[]scripted.Rule `json:"rules"`
	Window int              `json:"window"`
}

// newModel builds the model a backend option names. No backend means the offline demo
// model (scripted rules), which DESIGN.md §4 makes the default when nothing else is
// configured. Every create() gets its own model, so a script plays from its first turn
// for each session (and is shared with the session's clones).
func newModel(raw json.RawMessage) (loop.Model, error) {
	var cfg backendConfig
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, session.Wrap(session.KindType, errBadBackend, err)
		}
	}
	switch cfg.Kind {
	case "", "scripted":
		if cfg.Rules != nil || cfg.Turns == nil {
			var rules []scripted.Rule
			if cfg.Rules != nil {
				rules = *cfg.Rules
			}
			return &scripted.Rules{Rules: rules, Window: cfg.Window}, nil
		}
		m := scripted.New(cfg.Turns...)
		m.Window = cfg.Window
		return m, nil
	case "openai", "browser", "custom":
		return nil, session.Errorf(session.KindNotSupported, errBadBackend, "backend %q arrives with issue 4", cfg.Kind)
	default:
		return nil, session.Errorf(session.KindNotSupported, errBadBackend, "unknown backend kind %q", cfg.Kind)
	}
}
