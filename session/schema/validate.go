package schema

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks a decoded JSON instance (jsonv.Number for numbers; float64
// and Go integers are accepted too) and returns nil or a *ValidationError for
// the first violation found. The order is fixed, so the result is
// deterministic: type, enum, const, then the keywords of the instance's type
// (object properties in sorted key order, array items in index order), then
// $ref, allOf, anyOf, oneOf, not, if/then/else.
func (s *Schema) Validate(instance any) error {
	st := &state{}
	st.segs = st.buf[:0]
	if e := s.root.validate(instance, st, false); e != nil {
		return e
	}
	return nil
}

// ValidateJSON decodes raw JSON (keeping numbers exact) and validates it.
// Malformed JSON is reported as a *ValidationError at the root.
func (s *Schema) ValidateJSON(raw []byte) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return newValidationError("", "json", "the arguments are not valid JSON: "+err.Error())
	}
	return s.Validate(v)
}

// validate applies node n to value v at path p. In quiet mode (q) only
// success or failure matters and failures are errQuiet.
func (n *node) validate(v any, p *state, q bool) *ValidationError {
	if n.falseSchema {
		return fail(q, p, "false", "no value is allowed here (the schema is false)")
	}
	k := kindOf(v)
	if k == kInvalid {
		return fail(q, p, "type", "%T is not a JSON value", v)
	}
	if n.types != 0 && !n.matchesType(v, k) {
		return fail(q, p, "type", "expected %s, got %s", n.typeList(), kindNames[k])
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			if len(n.enum) == 1 {
				return fail(q, p, "enum", "%s is not the allowed value %s", render(v, 60), renderList(n.enum))
			}
			return fail(q, p, "enum", "%s is not one of %s", render(v, 60), renderList(n.enum))
		}
	}
	if n.hasConst && !equal(v, n.constVal) {
		return fail(q, p, "const", "%s is not the required constant %s", render(v, 60), render(n.constVal, 60))
	}
	var e *ValidationError
	switch k {
	case kObject:
		if n.hasObject {
			e = n.validateObject(v.(map[string]any), p, q)
		}
	case kArray:
		if n.hasArray {
			e = n.validateArray(v.([]any), p, q)
		}
	case kString:
		if n.hasString {
			e = n.validateString(v.(string), p, q)
		}
	case kNumber:
		if n.hasNumber {
			s, _ := numText(v)
			e = n.validateNumber(s, p, q)
		}
	}
	if e != nil {
		return e
	}
	if n.hasApplicator {
		return n.validateApplicators(v, p, q)
	}
	return nil
}

func (n *node) matchesType(v any, k kind) bool {
	switch k {
	case kNull:
		return n.types&tNull != 0
	case kBool:
		return n.types&tBoolean != 0
	case kString:
		return n.types&tString != 0
	case kArray:
		return n.types&tArray != 0
	case kObject:
		return n.types&tObject != 0
	case kNumber:
		if n.types&tNumber != 0 {
			return true
		}
		if n.types&tInteger != 0 {
			s, _ := numText(v)
			return isIntegerText(s)
		}
	}
	return false
}

func (n *node) typeList() string {
	var names []string
	for _, name := range typeOrder {
		if n.types&typeNames[name] != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, " or ")
}

func (n *node) validateNumber(s string, p *state, q bool) *ValidationError {
	f, err := strconv.ParseFloat(s, 64)
	fok := err == nil || f != 0 // a range error still yields a monotonic ±Inf or 0
	check := func(lim *number, bad func(int) bool, keyword, format string) *ValidationError {
		if lim == nil {
			return nil
		}
		c, ok := cmpNumber(s, f, fok, lim)
		if !ok {
			return fail(q, p, "type", "%q is not a valid number", s)
		}
		if bad(c) {
			return fail(q, p, keyword, format, s, lim.text)
		}
		return nil
	}
	if e := check(n.minimum, func(c int) bool { return c < 0 }, "minimum", "%s is less than the minimum %s"); e != nil {
		return e
	}
	if e := check(n.maximum, func(c int) bool { return c > 0 }, "maximum", "%s is greater than the maximum %s"); e != nil {
		return e
	}
	if e := check(n.exclMin, func(c int) bool { return c <= 0 }, "exclusiveMinimum", "%s is not greater than the exclusive minimum %s"); e != nil {
		return e
	}
	if e := check(n.exclMax, func(c int) bool { return c >= 0 }, "exclusiveMaximum", "%s is not less than the exclusive maximum %s"); e != nil {
		return e
	}
	if n.multipleOf != nil {
		d, ok := parseDecimal(s)
		if !ok {
			return fail(q, p, "type", "%q is not a valid number", s)
		}
		if !isMultiple(d, n.multipleOf.dec) {
			return fail(q, p, "multipleOf", "%s is not a multiple of %s", s, n.multipleOf.text)
		}
	}
	return nil
}

func (n *node) validateString(s string, p *state, q bool) *ValidationError {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			return fail(q, p, "minLength", "the string is too short: %s, minimum %d", plural(l, "character", "characters"), n.minLength)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			return fail(q, p, "maxLength", "the string is too long: %s, maximum %d", plural(l, "character", "characters"), n.maxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return fail(q, p, "pattern", "%s does not match the pattern %q", render(s, 60), n.patternSrc)
	}
	return nil
}

func (n *node) validateObject(m map[string]any, p *state, q bool) *ValidationError {
	if len(n.required) > 0 {
		var missing []string
		for _, r := range n.required {
			if _, ok := m[r]; !ok {
				if q {
					return errQuiet
				}
				missing = append(missing, r)
			}
		}
		if len(missing) == 1 {
			return fail(q, p, "required", "missing required property %q", missing[0])
		}
		if len(missing) > 1 {
			return fail(q, p, "required", "missing required properties %s", quoteList(missing))
		}
	}
	if len(m) < n.minProps {
		return fail(q, p, "minProperties", "the object has %s, minimum %d", plural(len(m), "property", "properties"), n.minProps)
	}
	if n.maxProps >= 0 && len(m) > n.maxProps {
		return fail(q, p, "maxProperties", "the object has %s, maximum %d", plural(len(m), "property", "properties"), n.maxProps)
	}
	if len(n.depRequired) > 0 {
		for _, name := range sortedKeys(n.depRequired) {
			if _, ok := m[name]; !ok {
				continue
			}
			for _, r := range n.depRequired[name] {
				if _, ok := m[r]; !ok {
					return fail(q, p, "dependentRequired", "missing property %q, which is required when %q is present", r, name)
				}
			}
		}
	}
	if n.propertyNames != nil || n.patternProps != nil || n.additional != nil {
		// every instance key, sorted
		var buf [12]string
		for _, key := range sortKeysInto(buf[:0], m) {
			if e := n.validateMember(m, key, p, q); e != nil {
				return e
			}
		}
	} else {
		// only properties: walk its (sorted) names
		for _, key := range n.propNames {
			if v, ok := m[key]; ok {
				p.pushKey(key)
				e := n.properties[key].validate(v, p, q)
				p.pop()
				if e != nil {
					return e
				}
			}
		}
	}
	if len(n.depSchemas) > 0 {
		for _, name := range sortedKeys(n.depSchemas) {
			if _, ok := m[name]; ok {
				if e := n.depSchemas[name].validate(m, p, q); e != nil {
					return e
				}
			}
		}
	}
	return nil
}

// validateMember applies propertyNames, properties, patternProperties and
// additionalProperties to one member of an object.
func (n *node) validateMember(m map[string]any, key string, p *state, q bool) *ValidationError {
	if n.propertyNames != nil {
		if e := n.propertyNames.validate(key, p, q); e != nil {
			if q {
				return e
			}
			return newValidationError(p.pointer(), "propertyNames", "invalid property name "+strconv.Quote(key)+": "+e.detail)
		}
	}
	v := m[key]
	matched := false
	if s, ok := n.properties[key]; ok {
		matched = true
		if e := p.in(key, s, v, q); e != nil {
			return e
		}
	}
	for _, pp := range n.patternProps {
		if pp.re.MatchString(key) {
			matched = true
			if e := p.in(key, pp.n, v, q); e != nil {
				return e
			}
		}
	}
	if matched || n.additional == nil {
		return nil
	}
	if n.additional.falseSchema {
		if q {
			return errQuiet
		}
		msg := "unexpected property " + strconv.Quote(key)
		if len(n.patternProps) == 0 && len(n.propNames) > 0 && len(n.propNames) <= 30 {
			msg += "; the allowed properties are " + quoteList(n.propNames)
		} else if len(n.patternProps) == 0 && len(n.propNames) == 0 {
			msg += "; no properties are allowed"
		}
		return newValidationError(p.pointer(), "additionalProperties", msg)
	}
	return p.in(key, n.additional, v, q)
}

func (n *node) validateArray(a []any, p *state, q bool) *ValidationError {
	if len(a) < n.minItems {
		return fail(q, p, "minItems", "the array has %s, minimum %d", plural(len(a), "item", "items"), n.minItems)
	}
	if n.maxItems >= 0 && len(a) > n.maxItems {
		return fail(q, p, "maxItems", "the array has %s, maximum %d", plural(len(a), "item", "items"), n.maxItems)
	}
	if n.uniqueItems {
		if i, j := firstDuplicate(a); j >= 0 {
			return fail(q, p, "uniqueItems", "items %d and %d are equal, but the items must be unique", i, j)
		}
	}
	for i, s := range n.prefixItems {
		if i >= len(a) {
			break
		}
		if e := p.at(i, s, a[i], q); e != nil {
			return e
		}
	}
	if n.items != nil && len(a) > len(n.prefixItems) {
		if n.items.falseSchema {
			return fail(q, p, "items", "the array has %s, but at most %d allowed", plural(len(a), "item", "items"), len(n.prefixItems))
		}
		for i := len(n.prefixItems); i < len(a); i++ {
			if e := p.at(i, n.items, a[i], q); e != nil {
				return e
			}
		}
	}
	if n.contains != nil {
		count := 0
		for i, v := range a {
			if p.at(i, n.contains, v, true) == nil {
				count++
				if count >= n.minContains && n.maxContains < 0 {
					break
				}
			}
		}
		if count < n.minContains {
			if count == 0 {
				return fail(q, p, "contains", "no item matches the \"contains\" schema (at least %d must)", n.minContains)
			}
			return fail(q, p, "minContains", "only %s the \"contains\" schema, minimum %d", plural(count, "item matches", "items match"), n.minContains)
		}
		if n.maxContains >= 0 && count > n.maxContains {
			return fail(q, p, "maxContains", "%s the \"contains\" schema, maximum %d", plural(count, "item matches", "items match"), n.maxContains)
		}
	}
	return nil
}

func (n *node) validateApplicators(v any, p *state, q bool) *ValidationError {
	if n.ref != nil {
		if e := n.ref.validate(v, p, q); e != nil {
			return e
		}
	}
	for _, s := range n.allOf {
		if e := s.validate(v, p, q); e != nil {
			return e
		}
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, s := range n.anyOf {
			if s.validate(v, p, true) == nil {
				ok = true
				break
			}
		}
		if !ok {
			if q {
				return errQuiet
			}
			return newValidationError(p.pointer(), "anyOf", "does not match any of the allowed alternatives (anyOf): "+explain(n.anyOf, v, p))
		}
	}
	if len(n.oneOf) > 0 {
		var matched []int
		for i, s := range n.oneOf {
			if s.validate(v, p, true) == nil {
				matched = append(matched, i)
				if len(matched) == 2 {
					break
				}
			}
		}
		switch {
		case len(matched) == 0:
			if q {
				return errQuiet
			}
			return newValidationError(p.pointer(), "oneOf", "does not match any of the alternatives (oneOf): "+explain(n.oneOf, v, p))
		case len(matched) > 1:
			return fail(q, p, "oneOf", "matches both alternatives %d and %d of oneOf, but must match exactly one", matched[0]+1, matched[1]+1)
		}
	}
	if n.not != nil && n.not.validate(v, p, true) == nil {
		return fail(q, p, "not", "matches the schema in \"not\", which it must not")
	}
	if n.ifS != nil {
		if n.ifS.validate(v, p, true) == nil {
			if n.thenS != nil {
				return n.thenS.validate(v, p, q)
			}
		} else if n.elseS != nil {
			return n.elseS.validate(v, p, q)
		}
	}
	return nil
}

// explain lists why each alternative failed, for anyOf/oneOf messages.
func explain(alts []*node, v any, p *state) string {
	var b strings.Builder
	here := p.pointer()
	for i, s := range alts {
		e := s.validate(v, p, false)
		if e == nil {
			continue // cannot happen; kept for safety
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("option " + strconv.Itoa(i+1) + ": ")
		msg := e.detail
		if e.InstancePath != here {
			msg = e.Message
		}
		b.WriteString(truncate(msg, 200))
	}
	return b.String()
}

// in validates member key of the current object with schema s.
func (st *state) in(key string, s *node, v any, q bool) *ValidationError {
	st.pushKey(key)
	e := s.validate(v, st, q)
	st.pop()
	return e
}

// at validates item i of the current array with schema s.
func (st *state) at(i int, s *node, v any, q bool) *ValidationError {
	st.pushIdx(i)
	e := s.validate(v, st, q)
	st.pop()
	return e
}
