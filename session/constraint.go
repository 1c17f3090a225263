package session

import (
	"errors"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/session/schema"
)

// ErrConstraint is the rule a constrained answer breaks: prompt() rejects with a
// SyntaxError, as the explainer says for "a response that is compliant with the schema"
// (or "matches the RegExp") the user agent could not produce.
var ErrConstraint = errors.New("the model's answer does not match the responseConstraint")

// ErrBadConstraint is the rule a responseConstraint that cannot be used breaks.
var ErrBadConstraint = errors.New("invalid responseConstraint")

// Constraint is a prompt's responseConstraint, compiled once per prompt: a JSON Schema
// the answer, read as JSON, must match, or a regular expression the answer must match
// (RegExp.prototype.test: anywhere in it, as the page's own RegExp would).
type Constraint struct {
	schema  *schema.Schema
	re      schema.Matcher
	pattern string           // the regular expression's source
	raw     jsonv.RawMessage // the schema as the page gave it
}

// ConstraintPattern reports whether raw is a RegExp constraint and returns its source. A
// RegExp crosses the channel as {"pattern": source}, an object with that one member
// (wasm/protocol.go); any other object is a JSON Schema.
func ConstraintPattern(raw jsonv.RawMessage) (string, bool) {
	t := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(t, `{`) || !strings.Contains(t, `"pattern"`) {
		return "", false // most constraints: no decoding needed
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return "", false
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	src, ok := m["pattern"].(string)
	return src, ok
}

// CompileConstraint compiles a responseConstraint given as JSON. A schema using a
// feature the validator does not implement is a NotSupportedError (the explainer's rule
// for unsupported JSON Schema features), a malformed one a TypeError.
func CompileConstraint(raw jsonv.RawMessage) (*Constraint, error) {
	if src, ok := ConstraintPattern(raw); ok {
		if schema.Patterns == nil {
			return nil, Errorf(KindNotSupported, ErrBadConstraint, "no regular-expression engine is installed for /%s/", src)
		}
		m, err := schema.Patterns(src)
		if err != nil {
			if pe, ok := errors.AsType[*schema.PatternError](err); ok && pe.Invalid {
				return nil, Errorf(KindSyntax, ErrBadConstraint, "/%s/ is not a valid regular expression (%s)", src, pe.Reason)
			}
			return nil, Errorf(KindNotSupported, ErrBadConstraint, "/%s/: %v", src, err)
		}
		return &Constraint{re: m, pattern: src}, nil
	}
	doc, err := DecodeJSON(raw)
	if err != nil {
		return nil, Errorf(KindType, ErrBadConstraint, "not JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		if _, ok := doc.(bool); !ok {
			return nil, Errorf(KindType, ErrBadConstraint, "a JSON Schema or a RegExp, not %s", jsonType(doc))
		}
	}
	s, err := schema.Compile(doc)
	switch {
	case err == nil:
		return &Constraint{schema: s, raw: raw}, nil
	case errors.Is(err, schema.ErrUnsupported):
		return nil, Wrap(KindNotSupported, ErrBadConstraint, err)
	default:
		return nil, Wrap(KindType, ErrBadConstraint, err)
	}
}

// Check returns nil when answer satisfies the constraint, else a SyntaxError whose
// message says what is wrong, in words a model can act on (the repair round sends it).
func (c *Constraint) Check(answer string) error {
	if c.re != nil {
		if c.re.MatchString(answer) {
			return nil
		}
		return Errorf(KindSyntax, ErrConstraint, "it does not match the regular expression /%s/", c.pattern)
	}
	v, n, err := jsonv.DecodePrefix([]byte(answer))
	if err == nil && strings.TrimSpace(answer[n:]) != "" {
		err = errors.New("trailing text after the JSON value")
	}
	if err != nil {
		return Errorf(KindSyntax, ErrConstraint, "it is not JSON (%v)", err)
	}
	if err := c.schema.Validate(v); err != nil {
		if ve, ok := errors.AsType[*schema.ValidationError](err); ok {
			return Errorf(KindSyntax, ErrConstraint, "it does not match the JSON Schema at %s", ve.Message)
		}
		return Wrap(KindSyntax, ErrConstraint, err)
	}
	return nil
}

// RepairPrompt is the user message of the one repair round a failed answer gets: what was
// wrong (Check's detail) and what the answer must be, for a model that could not be
// constrained while decoding (or was, and still missed).
func (c *Constraint) RepairPrompt(failure error) string {
	detail := failure.Error()
	if e, ok := failure.(*Error); ok && e.Rule == ErrConstraint {
		detail = strings.TrimPrefix(e.Msg, ErrConstraint.Error()+": ")
	}
	want := "matching the regular expression /" + c.pattern + "/"
	if c.re == nil {
		want = "as JSON matching this JSON Schema: " + string(c.raw)
	}
	return "Your previous answer does not have the required format: " + detail +
		". Answer again with only the answer, " + want + "."
}
