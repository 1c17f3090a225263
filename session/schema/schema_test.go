package schema

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

const weatherSchema = `{
	"type": "object",
	"properties": {
		"location": {"type": "string", "minLength": 1},
		"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
		"count": {"type": "integer", "minimum": 1, "maximum": 5},
		"items": {
			"type": "array",
			"items": {
				"type": "object",
				"properties": {"name": {"type": "string"}, "qty": {"type": "number", "exclusiveMinimum": 0}},
				"required": ["name"],
				"additionalProperties": false
			}
		}
	},
	"required": ["location"],
	"additionalProperties": false
}`

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		schema   string
		instance string
		want     string // Error(); "" means valid
		path     string
		keyword  string
	}{
		{"valid arguments pass", weatherSchema, `{"location": "Paris", "unit": "celsius", "count": 3, "items": [{"name": "a", "qty": 1.5}]}`, "", "", ""},
		{"type mismatch names expected and actual type", weatherSchema, `{"location": 5}`, "at /location: expected string, got number", "/location", "type"},
		{"missing required property at the root", weatherSchema, `{"unit": "celsius"}`, `at /: missing required property "location"`, "", "required"},
		{"several missing required properties are listed together", `{"required": ["a", "b", "c"]}`, `{"b": 1}`, `at /: missing required properties "a", "c"`, "", "required"},
		{"additionalProperties false names the property and the allowed ones", weatherSchema, `{"location": "x", "colour": "red"}`, `at /: unexpected property "colour"; the allowed properties are "count", "items", "location", "unit"`, "", "additionalProperties"},
		{"additionalProperties false with no properties", `{"additionalProperties": false}`, `{"a": 1}`, `at /: unexpected property "a"; no properties are allowed`, "", "additionalProperties"},
		{"additionalProperties schema applies to the extra member", `{"properties": {"a": {}}, "additionalProperties": {"type": "boolean"}}`, `{"a": 1, "b": 2}`, "at /b: expected boolean, got number", "/b", "type"},
		{"enum lists the allowed values", weatherSchema, `{"location": "x", "unit": "kelvin"}`, `at /unit: "kelvin" is not one of "celsius", "fahrenheit"`, "/unit", "enum"},
		{"maximum", weatherSchema, `{"location": "x", "count": 7}`, "at /count: 7 is greater than the maximum 5", "/count", "maximum"},
		{"minimum", weatherSchema, `{"location": "x", "count": 0}`, "at /count: 0 is less than the minimum 1", "/count", "minimum"},
		{"exclusiveMinimum", weatherSchema, `{"location": "x", "items": [{"name": "a", "qty": 0}]}`, "at /items/0/qty: 0 is not greater than the exclusive minimum 0", "/items/0/qty", "exclusiveMinimum"},
		{"nested path into array of objects", weatherSchema, `{"location": "x", "items": [{"name": 1}]}`, "at /items/0/name: expected string, got number", "/items/0/name", "type"},
		{"nested required names the object path", weatherSchema, `{"location": "x", "items": [{"name": "a"}, {}]}`, `at /items/1: missing required property "name"`, "/items/1", "required"},
		{"minLength counts code points", weatherSchema, `{"location": ""}`, "at /location: the string is too short: 0 characters, minimum 1", "/location", "minLength"},
		{"maxLength counts code points, not bytes", `{"maxLength": 2}`, `"日本"`, "", "", ""},
		{"integer accepts 1.0", `{"type": "integer"}`, `1.0`, "", "", ""},
		{"integer accepts 1e2", `{"type": "integer"}`, `1e2`, "", "", ""},
		{"integer rejects 1.5", `{"type": "integer"}`, `1.5`, "at /: expected integer, got number", "", "type"},
		{"type list", `{"type": ["string", "null"]}`, `true`, "at /: expected string or null, got boolean", "", "type"},
		{"const compares numbers by value", `{"const": 1}`, `1.0`, "", "", ""},
		{"const mismatch", `{"const": "on"}`, `"off"`, `at /: "off" is not the required constant "on"`, "", "const"},
		{"multipleOf is exact for decimals", `{"multipleOf": 0.1}`, `0.3`, "", "", ""},
		{"multipleOf violation", `{"multipleOf": 2}`, `7`, "at /: 7 is not a multiple of 2", "", "multipleOf"},
		{"pattern", `{"pattern": "^[a-z]+$"}`, `"abc1"`, `at /: "abc1" does not match the pattern "^[a-z]+$"`, "", "pattern"},
		{"a pattern a backtracking engine needs 2^n steps for answers at once", `{"pattern": "^(a+)+$"}`, `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"`, `at /: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa… does not match the pattern "^(a+)+$"`, "", "pattern"},
		{"pattern: \\s is ECMA's (takes U+00A0)", `{"pattern": "^\\s$"}`, `"\u00a0"`, "", "", ""},
		{"pattern with ECMA \\u escape", `{"pattern": "^\\u00e9+$"}`, `"éé"`, "", "", ""},
		{"anyOf explains every alternative", `{"properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}}}`, `{"x": 3}`, "at /x: does not match any of the allowed alternatives (anyOf): option 1: expected string, got number; option 2: 3 is less than the minimum 10", "/x", "anyOf"},
		{"oneOf with two matches", `{"oneOf": [{"type": "integer"}, {"minimum": 0}]}`, `3`, "at /: matches both alternatives 1 and 2 of oneOf, but must match exactly one", "", "oneOf"},
		{"not", `{"not": {"type": "null"}}`, `null`, `at /: matches the schema in "not", which it must not`, "", "not"},
		{"if/then reports the then violation", `{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["a"]}}`, `{"kind": "a"}`, `at /: missing required property "a"`, "", "required"},
		{"dependentRequired", `{"dependentRequired": {"card": ["cvv"]}}`, `{"card": "1"}`, `at /: missing property "cvv", which is required when "card" is present`, "", "dependentRequired"},
		{"uniqueItems compares by value", `{"uniqueItems": true}`, `[1, 2, 1.0]`, "at /: items 0 and 2 are equal, but the items must be unique", "", "uniqueItems"},
		{"items false after prefixItems", `{"prefixItems": [{}], "items": false}`, `[1, 2]`, "at /: the array has 2 items, but at most 1 allowed", "", "items"},
		{"contains", `{"contains": {"type": "string"}}`, `[1, 2]`, `at /: no item matches the "contains" schema (at least 1 must)`, "", "contains"},
		{"propertyNames", `{"propertyNames": {"pattern": "^[a-z]+$"}}`, `{"ok": 1, "Bad": 2}`, `at /: invalid property name "Bad": "Bad" does not match the pattern "^[a-z]+$"`, "", "propertyNames"},
		{"false schema", `false`, `{}`, "at /: no value is allowed here (the schema is false)", "", "false"},
		{"recursive $ref", `{"type": "object", "properties": {"child": {"$ref": "#"}, "n": {"type": "integer"}}}`, `{"child": {"child": {"n": "x"}}}`, "at /child/child/n: expected integer, got string", "", ""},
		{"$ref into $defs with escaped pointer", `{"$defs": {"a/b": {"type": "string"}}, "$ref": "#/$defs/a~1b"}`, `1`, "at /: expected string, got number", "", "type"},
		{"unknown keywords are ignored", `{"x-foo": {"type": "string"}, "nullable": true, "type": "integer"}`, `1`, "", "", ""},
		{"format is an annotation", `{"format": "email"}`, `"not an email"`, "", "", ""},
		{"pointer escapes in instance paths", `{"additionalProperties": {"type": "string"}}`, `{"a/b~c": 1}`, "at /a~1b~0c: expected string, got number", "/a~1b~0c", "type"},
		{"uniqueItems on a long array compares by value", `{"uniqueItems": true}`, `[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, {"a": 1, "b": [2]}, {"b": [2.0], "a": 1e0}]`, "at /: items 17 and 18 are equal, but the items must be unique", "", "uniqueItems"},
		{"oneOf with no match explains every alternative", `{"oneOf": [{"type": "string"}, {"required": ["a"]}]}`, `{}`, `at /: does not match any of the alternatives (oneOf): option 1: expected string, got object; option 2: missing required property "a"`, "", "oneOf"},
		{"$ref to a false definition", `{"properties": {"old": {"$ref": "#/$defs/never"}}, "$defs": {"never": false}}`, `{"old": 1}`, "at /old: no value is allowed here (the schema is false)", "/old", "false"},
		{"maximum is exact beyond float64 precision", `{"maximum": 9007199254740992}`, `9007199254740993`, "at /: 9007199254740993 is greater than the maximum 9007199254740992", "", "maximum"},
		{"minimum beyond the float64 range", `{"minimum": 1e400}`, `1e399`, "at /: 1e399 is less than the minimum 1e400", "", "minimum"},
		{"draft-04 boolean exclusiveMaximum", `{"maximum": 5, "exclusiveMaximum": true}`, `5`, "at /: 5 is not less than the exclusive maximum 5", "", "exclusiveMaximum"},
		{"draft-07 tuple items and additionalItems", `{"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}`, `["a", "b"]`, "at /1: expected integer, got string", "/1", "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompileJSON([]byte(tc.schema))
			require.NoError(t, err)
			err = s.ValidateJSON([]byte(tc.instance))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			if tc.keyword != "" {
				require.Equal(t, tc.keyword, ve.Keyword)
				require.Equal(t, tc.path, ve.InstancePath)
				require.Equal(t, tc.want, "at "+ve.Message)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		is     error
		want   string
	}{
		{"unevaluatedProperties is unsupported, with its location", `{"properties": {"a": {"unevaluatedProperties": false}}}`, ErrUnsupported, `schema: unsupported keyword "unevaluatedProperties" at /properties/a`},
		{"$dynamicRef at the root", `{"$dynamicRef": "#x"}`, ErrUnsupported, `schema: unsupported keyword "$dynamicRef" at the root`},
		{"$id below the root", `{"$defs": {"a": {"$id": "a.json"}}}`, ErrUnsupported, `schema: unsupported keyword "$id" at /$defs/a (it is supported at the root only)`},
		{"remote $ref", `{"$ref": "https://example.com/s.json"}`, ErrUnsupported, `schema: unsupported remote reference "https://example.com/s.json" in "$ref" at the root (only references within the schema are supported)`},
		{"$ref to an anchor name", `{"$ref": "#foo"}`, ErrUnsupported, `schema: unsupported reference "#foo" in "$ref" at the root: $anchor names are not supported`},
		{"lookahead pattern", `{"pattern": "^(?=a)"}`, ErrUnsupported, `schema: unsupported pattern "^(?=a)" in "pattern" at the root: lookahead (?= is not supported (it cannot be matched in linear time) at offset 1`},
		{"backreference in patternProperties", `{"properties": {"a": {"patternProperties": {"(x)\\1": true}}}}`, ErrUnsupported, `schema: unsupported pattern "(x)\\1" in "patternProperties" at /properties/a: the backreference \1 is not supported (it cannot be matched in linear time) at offset 3`},
		{"custom meta-schema", `{"$schema": "https://example.com/meta"}`, ErrUnsupported, `schema: unsupported meta-schema "https://example.com/meta" in "$schema" at the root (only the standard JSON Schema dialects are supported)`},
		{"minimum must be a number", `{"properties": {"n": {"minimum": "5"}}}`, ErrInvalid, `schema: "minimum" at /properties/n must be a number`},
		{"required must be an array of strings", `{"required": "a"}`, ErrInvalid, `schema: "required" at the root must be an array of strings`},
		{"unknown type name", `{"type": "text"}`, ErrInvalid, `schema: "type" at the root must be a type name or an array of type names ("null", "boolean", "object", "array", "number", "string", "integer")`},
		{"negative maxLength", `{"maxLength": -1}`, ErrInvalid, `schema: "maxLength" at the root must be a non-negative integer`},
		{"empty anyOf", `{"anyOf": []}`, ErrInvalid, `schema: "anyOf" at the root must be a non-empty array of schemas`},
		{"non-object schema", `{"properties": {"a": 5}}`, ErrInvalid, `schema: the schema at /properties/a must be an object or a boolean, not number`},
		{"non-object root", `"string"`, ErrInvalid, `schema: the schema at the root must be an object or a boolean, not string`},
		{"unresolvable $ref", `{"$ref": "#/$defs/missing"}`, ErrInvalid, `schema: "$ref" at the root: "#/$defs/missing" does not resolve to anything in the schema`},
		{"$ref cycle", `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, ErrInvalid, `schema: "$ref" cycle /$defs/a → /$defs/b → /$defs/a never reaches a keyword that descends into the instance, so validation would loop forever`},
		{"self $ref through allOf", `{"allOf": [{"$ref": "#"}]}`, ErrInvalid, `schema: "$ref" cycle the root → /allOf/0 → the root never reaches a keyword that descends into the instance, so validation would loop forever`},
		{"malformed pattern", `{"pattern": "a("}`, ErrInvalid, `schema: "pattern" at the root: pattern "a(" is not a valid regular expression (unterminated group at offset 1)`},
		{"malformed JSON", `{"type": `, ErrInvalid, "schema: not valid JSON: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompileJSON([]byte(tc.schema))
			require.Nil(t, s)
			require.ErrorIs(t, err, tc.is)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestCompileAccepts(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"true", `true`},
		{"empty", `{}`},
		{"root $id and $ref through it", `{"$id": "urn:example:x", "properties": {"a": {"$ref": "urn:example:x#/$defs/s"}}, "$defs": {"s": {}}}`},
		{"relative $ref naming the document", `{"$id": "https://example.com/tool.json", "$defs": {"s": {}}, "$ref": "tool.json#/$defs/s"}`},
		{"recursive tree", `{"$defs": {"node": {"properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}`},
		{"draft-07 $schema, definitions and dependencies", `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {}}, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}`},
		{"annotations", `{"title": "t", "description": "d", "default": 1, "examples": [1], "deprecated": true, "readOnly": true, "writeOnly": false, "$comment": "c", "contentMediaType": "text/plain", "contentEncoding": "base64", "contentSchema": {"type": "string"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileJSON([]byte(tc.schema))
			require.NoError(t, err)
		})
	}
}

func TestValidateGoValues(t *testing.T) {
	s, err := CompileJSON([]byte(`{"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}, "f": {"multipleOf": 0.5}}}`))
	require.NoError(t, err)
	require.NoError(t, s.Validate(map[string]any{"n": 3, "f": 1.5}))
	require.NoError(t, s.Validate(map[string]any{"n": 3.0}))
	require.EqualError(t, s.Validate(map[string]any{"n": int64(6)}), "at /n: 6 is greater than the maximum 5")
	require.EqualError(t, s.Validate(map[string]any{"n": jsonv.Number("2.5")}), "at /n: expected integer, got number")
	require.EqualError(t, s.Validate(map[string]any{"n": struct{}{}}), "at /n: struct {} is not a JSON value")
	require.Nil(t, s.Validate(map[string]any{}))
}

func TestCompileGoValues(t *testing.T) {
	s, err := Compile(map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"maximum": 2.5}}})
	require.NoError(t, err)
	require.NoError(t, s.Validate(map[string]any{"n": 2.5}))
	require.EqualError(t, s.Validate(map[string]any{"n": jsonv.Number("2.50001")}), "at /n: 2.50001 is greater than the maximum 2.5")
}

func TestValidateJSONMalformed(t *testing.T) {
	s, err := CompileJSON([]byte(`{}`))
	require.NoError(t, err)
	err = s.ValidateJSON([]byte(`{"a": `))
	require.EqualError(t, err, "at /: the arguments are not valid JSON: unexpected end of JSON input")
	err = s.ValidateJSON([]byte(`{} {}`))
	require.EqualError(t, err, "at /: the arguments are not valid JSON: unexpected data after the JSON value")
}

func TestErrorsAreDeterministic(t *testing.T) {
	s, err := CompileJSON([]byte(`{"additionalProperties": {"type": "string"}}`))
	require.NoError(t, err)
	for range 20 {
		require.EqualError(t, s.ValidateJSON([]byte(`{"z": 1, "m": 2, "a": 3, "q": 4}`)), "at /a: expected string, got number")
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(weatherSchema, `{"location": "Paris", "count": 9, "items": [{"name": 1}]}`)
	f.Add(`{"type": "integer", "multipleOf": 0.01, "exclusiveMaximum": 1e308}`, `1e400`)
	f.Add(`{"$defs": {"t": {"items": {"$ref": "#/$defs/t"}, "uniqueItems": true}}, "$ref": "#/$defs/t"}`, `[[1], [[2]], [1.0]]`)
	f.Add(`{"anyOf": [{"pattern": "^\\u00e9"}, {"const": {"a": [1]}}], "not": {"enum": [null]}}`, `{"a": [1.0]}`)
	f.Add(`{"oneOf": [{"contains": {"type": "string"}, "minContains": 2}, {"propertyNames": {"maxLength": 1}}], "if": {"minProperties": 1}, "then": {"dependentSchemas": {"a": false}}}`, `{"a": 1}`)
	f.Fuzz(func(t *testing.T, schemaJSON, instanceJSON string) {
		s, err := CompileJSON([]byte(schemaJSON))
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Compile error wraps neither ErrInvalid nor ErrUnsupported: %v", err)
			}
			return
		}
		e1 := s.ValidateJSON([]byte(instanceJSON))
		e2 := s.ValidateJSON([]byte(instanceJSON))
		if (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
			t.Fatalf("not deterministic: %v vs %v", e1, e2)
		}
		if e1 != nil {
			var ve *ValidationError
			if !errors.As(e1, &ve) || ve == errQuiet {
				t.Fatalf("unexpected error value %#v", e1)
			}
		}
	})
}

const benchInstance = `{"location": "Paris, France", "unit": "celsius", "count": 3,
	"items": [{"name": "umbrella", "qty": 1}, {"name": "coat", "qty": 2.5}, {"name": "boots"}]}`

func BenchmarkValidate(b *testing.B) {
	s, err := CompileJSON([]byte(weatherSchema))
	require.NoError(b, err)
	v, err := decodeJSON([]byte(benchInstance))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateJSON(b *testing.B) {
	s, err := CompileJSON([]byte(weatherSchema))
	require.NoError(b, err)
	raw := []byte(benchInstance)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.ValidateJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIsMultipleMatchesBigRat checks the uint64 multipleOf arithmetic against
// exact rational division.
func TestIsMultipleMatchesBigRat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randDec := func(maxDigits int) string {
		n := 1 + rng.IntN(maxDigits)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return string(b) + "e" + strconv.Itoa(rng.IntN(30)-15)
	}
	for range 20000 {
		as, bs := randDec(30), randDec(19)
		if rng.IntN(4) == 0 { // make exact multiples common
			as = bs[:strings.IndexByte(bs, 'e')] + strconv.Itoa(rng.IntN(1000)) + bs[strings.IndexByte(bs, 'e'):]
		}
		a, ok1 := parseDecimal(as)
		b, ok2 := parseDecimal(bs)
		require.True(t, ok1 && ok2)
		if b.digits == "" {
			continue
		}
		ra, _ := new(big.Rat).SetString(as)
		rb, _ := new(big.Rat).SetString(bs)
		want := new(big.Rat).Quo(ra, rb).IsInt()
		require.Equal(t, want, isMultiple(a, b), "%s multipleOf %s", as, bs)
	}
}
