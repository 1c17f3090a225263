package session

import (
	"errors"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/session/schema"
)

// Tool is a validated tool declaration. The engine never sees execute itself: HasExecute
// says whether the page gave one, and the tool runner calls it by name.
type Tool struct {
	Name        string
	Description string
	InputSchema jsonv.RawMessage // compact JSON, as the model receives it
	Schema      *schema.Schema   // compiled once at create(), used for every call
	HasExecute  bool
	Annotations Annotations
	// MCPResult says that execute returns an MCP CallToolResult as a JSON string, as
	// WebMCP's executeTool does: the loop's tool policy reads it (loop/policy.go).
	MCPResult bool
	// Source is where the tool comes from and the route its calls take. It travels with
	// the declaration, so that a call runs what was declared and approved, never what a
	// name means by the time it runs (loop/policy.go).
	Source Source
}

// The kinds of Source.
const (
	SourcePage   = "page"   // the page's tools option
	SourceWebMCP = "webmcp" // the page's WebMCP model context
	SourceMCP    = "mcp"    // a remote MCP server (mcpServers)
	// SourceBuiltin is the engine's own tool: tool search's search_tools (loop/toolsearch.go).
	SourceBuiltin = "builtin"
)

// Source is a tool's origin as approve sees it (kind; an MCP server's name and origin)
// and its route, which never leaves the engine: Fn is the page's execute (its stash id)
// for the page's and WebMCP's tools, the server's index for an MCP server's; Ref is the
// server's own name for the tool (the declaration's may be renamed).
type Source struct {
	Kind   string
	Server string // an MCP server's name (mcpServers[i].name)
	Origin string // an MCP server's origin
	Fn     int64
	Ref    string
}

// Same reports whether u is the same tool as t, by everything a decision about a call is
// made on: source and route, description, schema and annotations. The declared name may
// differ (a rename moves no route).
func (t *Tool) Same(u *Tool) bool {
	if t == nil || u == nil {
		return t == u
	}
	return t.same(u, true)
}

// SameDeclaration reports whether u declares what t declares, as approve was shown it:
// name, description, schema, annotations and source (kind, an MCP server's name and
// origin). The route is left out (the execute's stash id, a server's index and its own
// name for the tool, and how the result is read, which the kind fixes): a remembered
// approval (loop/approvals.go) outlives a reload, whose stash ids are new.
func (t *Tool) SameDeclaration(u *Tool) bool {
	return t.Name == u.Name && t.same(u, false)
}

// same is Same, with the route (Fn, Ref, HasExecute, MCPResult) compared or not.
func (t *Tool) same(u *Tool, route bool) bool {
	a, b, p, q := t.Annotations, u.Annotations, t.Source, u.Source
	if !route {
		p.Fn, p.Ref = q.Fn, q.Ref
	}
	return p == q && t.Description == u.Description && string(t.InputSchema) == string(u.InputSchema) &&
		(!route || t.HasExecute == u.HasExecute && t.MCPResult == u.MCPResult) && a.Title == b.Title &&
		hint(a.ReadOnlyHint) == hint(b.ReadOnlyHint) && hint(a.DestructiveHint) == hint(b.DestructiveHint) &&
		hint(a.IdempotentHint) == hint(b.IdempotentHint) && hint(a.OpenWorldHint) == hint(b.OpenWorldHint) &&
		hint(a.ConsequentialHint) == hint(b.ConsequentialHint) && hint(a.UntrustedContentHint) == hint(b.UntrustedContentHint)
}

// hint is a hint as three states: absent (0), false (1), true (2).
func hint(p *bool) int {
	switch {
	case p == nil:
		return 0
	case *p:
		return 2
	}
	return 1
}

// Annotations are MCP's tool annotations, with WebMCP's consequentialHint and
// untrustedContentHint; the engine passes them to events and UIs, and the loop's tool
// policy (loop/policy.go) reads the last two and destructiveHint.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`

	ConsequentialHint    *bool `json:"consequentialHint,omitempty"`
	UntrustedContentHint *bool `json:"untrustedContentHint,omitempty"`
}

// ParseTools validates the tools option of create(), given as decoded JSON (the JS face
// replaces execute by hasExecute: true). One bad tool fails them all. expectsToolCalls
// says whether expectedOutputs holds {type: "tool-call"}: without it every tool needs
// execute, since there would be no way to hand a call back to the page.
func ParseTools(v any, expectsToolCalls bool) ([]Tool, error) {
	if v == nil {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, Errorf(KindType, ErrBadTool, "tools must be an array")
	}
	tools := make([]Tool, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	for i, raw := range arr {
		t, err := parseTool(i, raw)
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, Errorf(KindType, ErrBadTool, "tool %d: duplicate name %q", i, t.Name)
		}
		seen[t.Name] = true
		if !t.HasExecute && !expectsToolCalls {
			return nil, Errorf(KindType, ErrToolsNeedToolOutput, "tool %q has no execute", t.Name)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func parseTool(i int, raw any) (Tool, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return Tool{}, Errorf(KindType, ErrBadTool, "tool %d is not an object", i)
	}
	name, _ := obj["name"].(string)
	if name == "" {
		return Tool{}, Errorf(KindType, ErrBadTool, "tool %d: name must be a non-empty string", i)
	}
	desc, _ := obj["description"].(string)
	if desc == "" {
		return Tool{}, Errorf(KindType, ErrBadTool, "tool %q: description must be a non-empty string", name)
	}
	schemaDoc, ok := obj["inputSchema"].(map[string]any)
	if s, present := obj["inputSchema"]; !present || s == nil {
		// WebMCP: a tool without inputSchema takes no arguments.
		schemaDoc, ok = map[string]any{"type": "object", "properties": map[string]any{}}, true
	}
	if !ok {
		return Tool{}, Errorf(KindType, ErrBadTool, "tool %q: inputSchema must be a JSON Schema object", name)
	}
	if schemaDoc["type"] != "object" {
		return Tool{}, Errorf(KindType, ErrBadTool, `tool %q: inputSchema must have type: "object"`, name)
	}
	compiled, err := schema.Compile(schemaDoc)
	switch {
	case errors.Is(err, schema.ErrUnsupported):
		return Tool{}, Errorf(KindNotSupported, ErrUnsupportedSchema, "tool %q: %v", name, err)
	case err != nil:
		return Tool{}, Errorf(KindType, ErrBadTool, "tool %q: %v", name, err)
	}
	t := Tool{Name: name, Description: desc, InputSchema: mustJSON(schemaDoc), Schema: compiled}
	t.HasExecute, _ = obj["hasExecute"].(bool)
	t.MCPResult, _ = obj["mcpResult"].(bool)
	if src, ok := obj["source"].(map[string]any); ok {
		// A remembered approval's declaration (loop/approvals.go), as approve was shown it;
		// every other caller sets the Source itself.
		t.Source.Kind, _ = src["kind"].(string)
		t.Source.Server, _ = src["name"].(string)
		t.Source.Origin, _ = src["origin"].(string)
	}
	if a, present := obj["annotations"]; present && a != nil {
		if t.Annotations, err = parseAnnotations(name, a); err != nil {
			return Tool{}, err
		}
	}
	if title, _ := obj["title"].(string); t.Annotations.Title == "" {
		t.Annotations.Title = title // WebMCP's top-level title
	}
	return t, nil
}

func parseAnnotations(name string, v any) (Annotations, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Annotations{}, Errorf(KindType, ErrBadTool, "tool %q: annotations must be an object", name)
	}
	var a Annotations
	for _, k := range order.Keys(obj) {
		val := obj[k]
		var hint **bool
		switch k {
		case "title":
			s, ok := val.(string)
			if !ok {
				return Annotations{}, Errorf(KindType, ErrBadTool, "tool %q: annotations.title must be a string", name)
			}
			a.Title = s
			continue
		case "readOnlyHint":
			hint = &a.ReadOnlyHint
		case "destructiveHint":
			hint = &a.DestructiveHint
		case "idempotentHint":
			hint = &a.IdempotentHint
		case "openWorldHint":
			hint = &a.OpenWorldHint
		case "consequentialHint":
			hint = &a.ConsequentialHint
		case "untrustedContentHint":
			hint = &a.UntrustedContentHint
		default:
			continue // MCP allows more; they are the page's business
		}
		b, ok := val.(bool)
		if !ok {
			return Annotations{}, Errorf(KindType, ErrBadTool, "tool %q: annotations.%s must be a boolean", name, k)
		}
		*hint = &b
	}
	return a, nil
}

// ValidateArguments checks a call's arguments against the tool's schema and returns the
// violation as a sentence for the model, or "" when they are valid.
func (t *Tool) ValidateArguments(args jsonv.RawMessage) string {
	if t.Schema == nil {
		return ""
	}
	if err := t.Schema.ValidateJSON(args); err != nil {
		return "invalid arguments for tool " + t.Name + ": " + err.Error()
	}
	return ""
}
