// Package schema is a focused JSON Schema (draft 2020-12) validator for tool
// input schemas: the module checks a model's tool-call arguments against the
// tool's inputSchema before execute() runs, and the model gets the violation
// (ValidationError.Message) back as a tool error it can act on.
//
// Why not a library: the module ships as WebAssembly with one size budget (brotli,
// the Makefile's SIZE_BUDGET) for everything. santhosh-tekuri/jsonschema v6 alone makes a bare
// GOOS=js module 1.14 MB brotli and google/jsonschema-go 1.03 MB; this package
// adds about 41 KB (brotli). It imports only the standard library and the
// module's own reflection-free JSON reader (internal/jsonv), and avoids even
// math/big, reflect-based helpers (errors.As) and the generic sorts, which
// would each add tens of kilobytes to the module.
//
// Keyword policy (keywordTable in schema.go is the single source of truth):
//   - assertions and applicators of draft 2020-12 are implemented: type, enum,
//     const, the numeric, string, array and object keywords, allOf, anyOf,
//     oneOf, not, if/then/else, dependentRequired, dependentSchemas, and $ref
//     to anywhere in the same document ($defs, definitions, any JSON Pointer);
//   - a few earlier-draft spellings found in generated tool schemas are
//     accepted: items as an array (with additionalItems), dependencies, and
//     boolean exclusiveMinimum/exclusiveMaximum;
//   - annotations (title, description, default, examples, format, $comment,
//     deprecated, readOnly, writeOnly, content*) are accepted and ignored;
//     format is not asserted;
//   - keywords this package does not implement (unevaluatedProperties,
//     unevaluatedItems, $dynamicRef, $anchor, $id below the root, remote $ref,
//     a custom $schema meta-schema, a multipleOf with more than 19 significant
//     digits, a pattern the regular-expression engine cannot run) make
//     Compile fail with
//     ErrUnsupported, rather than being silently skipped;
//   - words that are not JSON Schema keywords at all ("x-foo", "nullable") are
//     ignored, as the specification requires.
//
// Numbers are compared exactly on their decimal text (1 == 1.0, multipleOf
// 0.01 is exact); string lengths count Unicode code points. Patterns are
// ECMA-262 regular expressions, matched in linear time by internal/relin in every
// build (pattern.go): the model's arguments can never make validation slow.
package schema

import (
	"errors"
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
)

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	root *node
}

// Compile checks a schema given as decoded JSON (map[string]any, []any,
// string, jsonv.Number, bool, nil; float64 and Go integers are accepted too)
// and compiles it. Boolean schemas are allowed. Errors wrap ErrUnsupported or
// ErrInvalid.
func Compile(doc any) (*Schema, error) {
	c := &compiler{root: doc, nodes: map[string]*node{}}
	if m, ok := doc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			c.rootID = strings.TrimSuffix(id, "#")
		}
	}
	root, err := c.compile(doc, "")
	if err != nil {
		return nil, err
	}
	if err := checkCycles(c.nodes); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// CompileJSON is Compile over raw JSON bytes.
func CompileJSON(raw []byte) (*Schema, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, invalid("not valid JSON: %v", err)
	}
	return Compile(doc)
}

// decodeJSON decodes exactly one JSON value, keeping numbers as jsonv.Number.
func decodeJSON(raw []byte) (any, error) {
	v, n, err := jsonv.DecodePrefix(raw)
	if err != nil {
		return nil, err
	}
	for _, c := range raw[n:] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, errTrailing
		}
	}
	return v, nil
}

type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBoolean
	tNumber
	tString
	tArray
	tObject
	tInteger
)

var typeNames = map[string]typeMask{
	"null": tNull, "boolean": tBoolean, "number": tNumber, "string": tString,
	"array": tArray, "object": tObject, "integer": tInteger,
}

// typeOrder lists type names in the order messages show them.
var typeOrder = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// node is one compiled schema object (or boolean schema).
type node struct {
	loc         string // JSON Pointer of this schema in the document
	falseSchema bool

	types    typeMask // 0: no "type"
	enum     []any
	hasEnum  bool
	constVal any
	hasConst bool

	minimum, maximum, exclMin, exclMax, multipleOf *number

	minLength, maxLength int // -1: absent
	pattern              Matcher
	patternSrc           string

	required      []string
	properties    map[string]*node
	propNames     []string // sorted keys of properties
	patternProps  []patternProp
	additional    *node
	propertyNames *node
	minProps      int
	maxProps      int // -1: absent
	depRequired   map[string][]string
	depSchemas    map[string]*node

	prefixItems  []*node
	items        *node // items after prefixItems
	contains     *node
	minContains  int
	maxContains  int // -1: absent
	minItems     int
	maxItems     int // -1: absent
	uniqueItems  bool
	ref          *node
	allOf, anyOf []*node
	oneOf        []*node
	not          *node
	ifS, thenS   *node
	elseS        *node

	// which groups of keywords are present, to skip whole sections
	hasNumber, hasString, hasObject, hasArray, hasApplicator bool
}

type patternProp struct {
	src string
	re  Matcher
	n   *node
}

type compiler struct {
	root   any
	rootID string
	nodes  map[string]*node // by canonical JSON Pointer
}

// compile compiles the schema v found at JSON Pointer loc. Nodes are cached
// by location before their keywords are compiled, so recursive $refs close
// into cycles instead of recursing forever.
func (c *compiler) compile(v any, loc string) (*node, error) {
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	n := newNode(loc)
	c.nodes[loc] = n
	switch s := v.(type) {
	case bool:
		n.falseSchema = !s
		return n, nil
	case map[string]any:
		for _, k := range sortedKeys(s) {
			kw, known := keywords[k]
			if !known {
				continue // not a JSON Schema keyword: an annotation
			}
			switch kw.kind {
			case kwAnnotation:
				continue
			case kwRootOnly:
				if loc != "" {
					return nil, unsupported(k+" below the root", "keyword %q at %s (it is supported at the root only)", k, where(loc))
				}
				continue
			case kwUnsupported:
				return nil, unsupported(k, "keyword %q at %s", k, where(loc))
			}
			kc := &kwCtx{c: c, n: n, m: s, kw: k, v: s[k]}
			if err := kw.compile(kc); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, invalid("the schema at %s must be an object or a boolean, not %s", where(loc), kindNames[kindOf(v)])
}

type kwKind uint8

const (
	kwImplemented kwKind = iota // implemented: compile validates and stores it
	kwAnnotation                // accepted and ignored
	kwRootOnly                  // accepted and ignored at the root, unsupported below it
	kwUnsupported               // Compile fails with ErrUnsupported
)

type keyword struct {
	name    string
	kind    kwKind
	compile func(*kwCtx) error
}

// keywordTable is the keyword policy: every JSON Schema keyword this package
// knows, and what it does with it. Words not listed are not JSON Schema
// keywords and are ignored (as annotations). It is static data; compile
// reads it through the keywords map built by init.
var keywordTable = [...]keyword{
	// any instance
	{"type", kwImplemented, cType},
	{"enum", kwImplemented, cEnum},
	{"const", kwImplemented, cConst},
	// numbers
	{"minimum", kwImplemented, cNumber},
	{"maximum", kwImplemented, cNumber},
	{"exclusiveMinimum", kwImplemented, cNumber}, // a boolean (draft-04 form) modifies minimum
	{"exclusiveMaximum", kwImplemented, cNumber}, // likewise for maximum
	{"multipleOf", kwImplemented, cNumber},
	// strings
	{"minLength", kwImplemented, cCount},
	{"maxLength", kwImplemented, cCount},
	{"pattern", kwImplemented, cPattern},
	// objects
	{"properties", kwImplemented, cSchemaMap},
	{"patternProperties", kwImplemented, cPatternProperties},
	{"additionalProperties", kwImplemented, cSchema},
	{"propertyNames", kwImplemented, cSchema},
	{"required", kwImplemented, cRequired},
	{"minProperties", kwImplemented, cCount},
	{"maxProperties", kwImplemented, cCount},
	{"dependentRequired", kwImplemented, cDependentRequired},
	{"dependentSchemas", kwImplemented, cSchemaMap},
	{"dependencies", kwImplemented, cDependencies}, // draft-07: both of the above
	// arrays
	{"prefixItems", kwImplemented, cSchemaList},
	{"items", kwImplemented, cItems},                     // an array (draft-07 form) means prefixItems
	{"additionalItems", kwImplemented, cAdditionalItems}, // draft-07; only after an items array
	{"contains", kwImplemented, cSchema},
	{"minContains", kwImplemented, cCount},
	{"maxContains", kwImplemented, cCount},
	{"minItems", kwImplemented, cCount},
	{"maxItems", kwImplemented, cCount},
	{"uniqueItems", kwImplemented, cUniqueItems},
	// in-place applicators
	{"allOf", kwImplemented, cSchemaList},
	{"anyOf", kwImplemented, cSchemaList},
	{"oneOf", kwImplemented, cSchemaList},
	{"not", kwImplemented, cSchema},
	{"if", kwImplemented, cSchema},
	{"then", kwImplemented, cSchema},
	{"else", kwImplemented, cSchema},
	// references (ref.go)
	{"$ref", kwImplemented, cRef},
	{"$defs", kwImplemented, cDefs},
	{"definitions", kwImplemented, cDefs},
	{"$schema", kwImplemented, cDialect},
	{"$id", kwRootOnly, nil},
	{"$vocabulary", kwRootOnly, nil},
	// annotations
	{"title", kwAnnotation, nil},
	{"description", kwAnnotation, nil},
	{"default", kwAnnotation, nil},
	{"examples", kwAnnotation, nil},
	{"deprecated", kwAnnotation, nil},
	{"readOnly", kwAnnotation, nil},
	{"writeOnly", kwAnnotation, nil},
	{"format", kwAnnotation, nil}, // format-annotation vocabulary: not asserted
	{"$comment", kwAnnotation, nil},
	{"contentMediaType", kwAnnotation, nil},
	{"contentEncoding", kwAnnotation, nil},
	{"contentSchema", kwAnnotation, nil},
	// known keywords this package does not implement
	{"unevaluatedProperties", kwUnsupported, nil},
	{"unevaluatedItems", kwUnsupported, nil},
	{"$anchor", kwUnsupported, nil},
	{"$dynamicRef", kwUnsupported, nil},
	{"$dynamicAnchor", kwUnsupported, nil},
	{"$recursiveRef", kwUnsupported, nil},
	{"$recursiveAnchor", kwUnsupported, nil},
}

var keywords map[string]*keyword

func init() {
	keywords = make(map[string]*keyword, len(keywordTable))
	for i := range keywordTable {
		keywords[keywordTable[i].name] = &keywordTable[i]
	}
}

// kwCtx is one keyword being compiled: its name and value, the schema
// object it sits in, and the node being built.
type kwCtx struct {
	c  *compiler
	n  *node
	m  map[string]any
	kw string
	v  any
}

func (k *kwCtx) invalid(what string) error {
	return invalid("%q at %s must be %s", k.kw, where(k.n.loc), what)
}

// sub compiles a subschema found under this keyword at the given suffix
// tokens (unescaped).
func (k *kwCtx) sub(v any, tokens ...string) (*node, error) {
	loc := k.n.loc + "/" + escapeToken(k.kw)
	for _, t := range tokens {
		loc += "/" + escapeToken(t)
	}
	return k.c.compile(v, loc)
}

func cType(k *kwCtx) error {
	const what = `a type name or an array of type names ("null", "boolean", "object", "array", "number", "string", "integer")`
	var names []any
	switch x := k.v.(type) {
	case string:
		names = []any{x}
	case []any:
		names = x
	default:
		return k.invalid(what)
	}
	for _, nm := range names {
		s, _ := nm.(string)
		t, ok := typeNames[s]
		if !ok {
			return k.invalid(what)
		}
		k.n.types |= t
	}
	if k.n.types == 0 {
		return k.invalid(what)
	}
	return nil
}

func cEnum(k *kwCtx) error {
	arr, ok := k.v.([]any)
	if !ok {
		return k.invalid("an array")
	}
	k.n.enum, k.n.hasEnum = arr, true
	return nil
}

func cConst(k *kwCtx) error {
	k.n.constVal, k.n.hasConst = k.v, true
	return nil
}

func cNumber(k *kwCtx) error {
	n := k.n
	if _, ok := k.v.(bool); ok && (k.kw == "exclusiveMinimum" || k.kw == "exclusiveMaximum") {
		return nil // draft-04 form, applied by minimum/maximum
	}
	num, ok := newNumber(k.v)
	if !ok {
		return k.invalid("a number")
	}
	n.hasNumber = true
	switch k.kw {
	case "minimum":
		if k.m["exclusiveMinimum"] == true {
			n.exclMin = maxOf(n.exclMin, num)
		} else {
			n.minimum = num
		}
	case "maximum":
		if k.m["exclusiveMaximum"] == true {
			n.exclMax = minOf(n.exclMax, num)
		} else {
			n.maximum = num
		}
	case "exclusiveMinimum":
		n.exclMin = maxOf(n.exclMin, num)
	case "exclusiveMaximum":
		n.exclMax = minOf(n.exclMax, num)
	case "multipleOf":
		if num.dec.digits == "" || num.dec.neg {
			return k.invalid("a number greater than 0")
		}
		if len(num.dec.digits) > maxMultipleDigits {
			return unsupported("long multipleOf", "\"multipleOf\" %s at %s: more than %d significant digits", num.text, where(n.loc), maxMultipleDigits)
		}
		n.multipleOf = num
	}
	return nil
}

func maxOf(a, b *number) *number {
	if a == nil || cmpDecimal(b.dec, a.dec) > 0 {
		return b
	}
	return a
}

func minOf(a, b *number) *number {
	if a == nil || cmpDecimal(b.dec, a.dec) < 0 {
		return b
	}
	return a
}

// cCount handles the keywords whose value is a non-negative integer.
func cCount(k *kwCtx) error {
	num, ok := newNumber(k.v)
	if !ok || num.dec.neg || !num.dec.isInteger() {
		return k.invalid("a non-negative integer")
	}
	c := int(min(num.f, 1<<53)) // larger limits behave the same
	n := k.n
	switch k.kw {
	case "minLength":
		n.minLength, n.hasString = c, true
	case "maxLength":
		n.maxLength, n.hasString = c, true
	case "minProperties":
		n.minProps, n.hasObject = c, true
	case "maxProperties":
		n.maxProps, n.hasObject = c, true
	case "minItems":
		n.minItems, n.hasArray = c, true
	case "maxItems":
		n.maxItems, n.hasArray = c, true
	case "minContains":
		n.minContains = c // used only with contains
	case "maxContains":
		n.maxContains = c
	}
	return nil
}

func cPattern(k *kwCtx) error {
	s, ok := k.v.(string)
	if !ok {
		return k.invalid("a string")
	}
	re, err := compilePattern(k.kw, s, k.n.loc)
	if err != nil {
		return err
	}
	k.n.pattern, k.n.patternSrc, k.n.hasString = re, s, true
	return nil
}

// cSchema handles keywords whose value is one schema.
func cSchema(k *kwCtx) error {
	s, err := k.sub(k.v)
	if err != nil {
		return err
	}
	n := k.n
	switch k.kw {
	case "additionalProperties":
		n.additional, n.hasObject = s, true
	case "propertyNames":
		n.propertyNames, n.hasObject = s, true
	case "contains":
		n.contains, n.hasArray = s, true
	case "not":
		n.not, n.hasApplicator = s, true
	case "if":
		n.ifS, n.hasApplicator = s, true
	case "then":
		n.thenS = s
	case "else":
		n.elseS = s
	}
	return nil
}

// cSchemaMap handles keywords whose value maps names to schemas.
func cSchemaMap(k *kwCtx) error {
	m, ok := k.v.(map[string]any)
	if !ok {
		return k.invalid("an object whose values are schemas")
	}
	out := make(map[string]*node, len(m))
	for _, name := range sortedKeys(m) {
		s, err := k.sub(m[name], name)
		if err != nil {
			return err
		}
		out[name] = s
	}
	n := k.n
	n.hasObject = true
	if k.kw == "properties" {
		n.properties, n.propNames = out, sortedKeys(out)
		return nil
	}
	if n.depSchemas == nil {
		n.depSchemas = out
	} else {
		for name, s := range out { // dependencies and dependentSchemas together
			if prev, ok := n.depSchemas[name]; ok {
				both := newNode(s.loc)
				both.allOf, both.hasApplicator = []*node{prev, s}, true
				s = both
			}
			n.depSchemas[name] = s
		}
	}
	return nil
}

// cSchemaList handles keywords whose value is a non-empty array of schemas.
func cSchemaList(k *kwCtx) error {
	arr, ok := k.v.([]any)
	if !ok || len(arr) == 0 {
		return k.invalid("a non-empty array of schemas")
	}
	list, err := k.subList(arr)
	if err != nil {
		return err
	}
	n := k.n
	switch k.kw {
	case "prefixItems":
		n.prefixItems, n.hasArray = list, true
	case "allOf":
		n.allOf, n.hasApplicator = list, true
	case "anyOf":
		n.anyOf, n.hasApplicator = list, true
	case "oneOf":
		n.oneOf, n.hasApplicator = list, true
	}
	return nil
}

func (k *kwCtx) subList(arr []any) ([]*node, error) {
	list := make([]*node, len(arr))
	for i, v := range arr {
		s, err := k.sub(v, strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		list[i] = s
	}
	return list, nil
}

func cPatternProperties(k *kwCtx) error {
	m, ok := k.v.(map[string]any)
	if !ok {
		return k.invalid("an object whose values are schemas")
	}
	for _, src := range sortedKeys(m) {
		re, err := compilePattern(k.kw, src, k.n.loc)
		if err != nil {
			return err
		}
		s, err := k.sub(m[src], src)
		if err != nil {
			return err
		}
		k.n.patternProps = append(k.n.patternProps, patternProp{src: src, re: re, n: s})
	}
	k.n.hasObject = true
	return nil
}

func cRequired(k *kwCtx) error {
	names, ok := stringList(k.v)
	if !ok {
		return k.invalid("an array of strings")
	}
	k.n.required, k.n.hasObject = names, true
	return nil
}

func stringList(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func cDependentRequired(k *kwCtx) error {
	m, ok := k.v.(map[string]any)
	if !ok {
		return k.invalid("an object whose values are arrays of strings")
	}
	for name, v := range m {
		names, ok := stringList(v)
		if !ok {
			return k.invalid("an object whose values are arrays of strings")
		}
		k.addDepRequired(name, names)
	}
	return nil
}

func (k *kwCtx) addDepRequired(name string, names []string) {
	if k.n.depRequired == nil {
		k.n.depRequired = map[string][]string{}
	}
	k.n.depRequired[name] = append(k.n.depRequired[name], names...)
	k.n.hasObject = true
}

// cDependencies splits draft-07 dependencies into dependentRequired (array
// values) and dependentSchemas (schema values).
func cDependencies(k *kwCtx) error {
	m, ok := k.v.(map[string]any)
	if !ok {
		return k.invalid("an object whose values are arrays of strings or schemas")
	}
	schemas := map[string]any{}
	for name, v := range m {
		if _, isArr := v.([]any); isArr {
			names, ok := stringList(v)
			if !ok {
				return k.invalid("an object whose values are arrays of strings or schemas")
			}
			k.addDepRequired(name, names)
			continue
		}
		schemas[name] = v
	}
	if len(schemas) == 0 {
		return nil
	}
	return cSchemaMap(&kwCtx{c: k.c, n: k.n, m: k.m, kw: k.kw, v: schemas})
}

func cItems(k *kwCtx) error {
	if arr, ok := k.v.([]any); ok { // draft-07 tuple form
		if _, both := k.m["prefixItems"]; both {
			return k.invalid("a schema when prefixItems is present")
		}
		list, err := k.subList(arr)
		if err != nil {
			return err
		}
		k.n.prefixItems, k.n.hasArray = list, true
		return nil
	}
	s, err := k.sub(k.v)
	if err != nil {
		return err
	}
	k.n.items, k.n.hasArray = s, true
	return nil
}

// cAdditionalItems applies only after a draft-07 items array; otherwise it is
// ignored, as in the drafts that defined it.
func cAdditionalItems(k *kwCtx) error {
	if _, ok := k.m["items"].([]any); !ok {
		return nil
	}
	s, err := k.sub(k.v)
	if err != nil {
		return err
	}
	k.n.items, k.n.hasArray = s, true
	return nil
}

func cUniqueItems(k *kwCtx) error {
	b, ok := k.v.(bool)
	if !ok {
		return k.invalid("a boolean")
	}
	k.n.uniqueItems = b
	k.n.hasArray = k.n.hasArray || b
	return nil
}

// cDialect accepts the standard meta-schemas of the JSON Schema drafts (this
// package applies 2020-12 semantics to all) and rejects custom ones, whose
// vocabularies it cannot know.
func cDialect(k *kwCtx) error {
	s, ok := k.v.(string)
	if !ok {
		return k.invalid("a string")
	}
	u := strings.TrimSuffix(s, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2019-09/schema",
		"json-schema.org/draft-07/schema", "json-schema.org/draft-06/schema",
		"json-schema.org/draft-04/schema", "json-schema.org/schema":
		return nil
	}
	return unsupported("custom $schema", "meta-schema %q in \"$schema\" at %s (only the standard JSON Schema dialects are supported)", s, where(k.n.loc))
}

var errTrailing = errors.New("unexpected data after the JSON value")

func newNode(loc string) *node {
	return &node{loc: loc, minLength: -1, maxLength: -1, maxProps: -1, maxItems: -1, minContains: 1, maxContains: -1}
}
