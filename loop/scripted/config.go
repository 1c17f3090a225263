package scripted

import (
	"langmodel/internal/jsonv"
	"langmodel/internal/sfmt"
	"langmodel/loop"
	"langmodel/session"
)

// FromJSON builds the model that a page's backend option {kind: "scripted", turns,
// rules, window, strict, version} describes (a recording is one: docs/recordings.md),
// given as decoded JSON (session.DecodeJSON): a Script that plays turns, when turns is
// there and rules is not; otherwise Rules, with the rules given. The field names are the
// json tags of Turn, Call, StepError and Rule; a turn's request is kept as decoded.
//
// It reads the decoded value by hand rather than with encoding/json, whose reflection
// would cost the browser module startup time. Keys match exactly (encoding/json also
// took other cases); arguments are re-encoded compactly with sorted keys.
func FromJSON(obj map[string]any) (loop.Model, error) {
	r := reader{}
	window := r.integer(obj["window"], "window")
	rules, hasRules := obj["rules"]
	turns, hasTurns := obj["turns"]
	if hasRules && rules != nil || !hasTurns || turns == nil {
		m := &Rules{Window: window}
		for i, v := range r.list(rules, "rules") {
			o := r.object(v, sfmt.Sprintf("rules[%d]", i))
			m.Rules = append(m.Rules, Rule{
				Match:     r.str(o["match"], "match"),
				Tool:      r.str(o["tool"], "tool"),
				Arguments: r.raw(o["arguments"]),
			})
		}
		return m, r.err
	}
	var ts []Turn
	for i, v := range r.list(turns, "turns") {
		ts = append(ts, r.turn(r.object(v, sfmt.Sprintf("turns[%d]", i))))
	}
	if r.err != nil {
		return nil, r.err
	}
	s := New(ts...)
	s.Window = window
	s.Strict = r.boolean(obj["strict"], "strict")
	if v := obj["version"]; v != nil && r.integer(v, "version") != 1 {
		r.fail("version", "1 (a recording this module reads)")
	}
	return s, r.err
}

// reader reads decoded JSON into the script's types, keeping the first problem; an
// absent or null field is its zero value.
type reader struct{ err error }

func (r *reader) fail(what, want string) {
	if r.err == nil {
		r.err = sfmt.Errorf("scripted backend: %s must be %s", what, want)
	}
}

func (r *reader) turn(o map[string]any) Turn {
	t := Turn{Text: r.str(o["text"], "text"), Hang: r.boolean(o["hang"], "hang")}
	for _, c := range r.list(o["chunks"], "chunks") {
		t.Chunks = append(t.Chunks, r.str(c, "chunks[]"))
	}
	for _, v := range r.list(o["calls"], "calls") {
		c := r.object(v, "calls[]")
		t.Calls = append(t.Calls, Call{ID: r.str(c["callID"], "callID"), Name: r.str(c["name"], "name"), Arguments: r.raw(c["arguments"])})
	}
	if u := r.object(o["usage"], "usage"); u != nil {
		t.Usage = &loop.Usage{InputTokens: r.integer(u["inputTokens"], "usage.inputTokens"), OutputTokens: r.integer(u["outputTokens"], "usage.outputTokens"),
			CachedTokens: r.integer(u["cachedTokens"], "usage.cachedTokens"), Cached: u["cachedTokens"] != nil}
	}
	t.Request = o["request"]
	if e := r.object(o["error"], "error"); e != nil {
		t.Error = &StepError{Kind: session.Kind(r.str(e["name"], "error.name")), Message: r.str(e["message"], "error.message")}
	}
	return t
}

func (r *reader) object(v any, what string) map[string]any {
	o, ok := v.(map[string]any)
	if !ok && v != nil {
		r.fail(what, "an object")
	}
	return o
}

func (r *reader) list(v any, what string) []any {
	a, ok := v.([]any)
	if !ok && v != nil {
		r.fail(what, "an array")
	}
	return a
}

func (r *reader) str(v any, what string) string {
	s, ok := v.(string)
	if !ok && v != nil {
		r.fail(what, "a string")
	}
	return s
}

func (r *reader) boolean(v any, what string) bool {
	b, ok := v.(bool)
	if !ok && v != nil {
		r.fail(what, "true or false")
	}
	return b
}

func (r *reader) integer(v any, what string) int {
	if v == nil {
		return 0
	}
	n, ok := v.(jsonv.Number)
	i, err := n.Int64()
	if !ok || err != nil || i < -1<<31 || i > 1<<31-1 {
		r.fail(what, "an integer")
		return 0
	}
	return int(i)
}

// raw re-encodes a decoded value; absent or null is no value.
func (r *reader) raw(v any) jsonv.RawMessage {
	if v == nil {
		return nil
	}
	b, err := jsonv.Marshal(v)
	if err != nil && r.err == nil {
		r.err = sfmt.Errorf("scripted backend: %w", err)
	}
	return b
}
