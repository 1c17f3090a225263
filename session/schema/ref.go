package schema

import (
	"strconv"
	"strings"
)

// $ref resolves within the document only: "#", "#/json/pointer" (with ~0, ~1
// and percent-encoding), and absolute or relative URIs that name the
// document itself through its root $id. Anything else (another document, an
// $anchor name) is unsupported.

func cRef(k *kwCtx) error {
	ref, ok := k.v.(string)
	if !ok {
		return k.invalid("a string")
	}
	loc, target, err := k.c.resolve(ref, k.n.loc)
	if err != nil {
		return err
	}
	t, err := k.c.compile(target, loc)
	if err != nil {
		return err
	}
	k.n.ref, k.n.hasApplicator = t, true
	return nil
}

// cDefs compiles every definition, so that a malformed or unsupported one is
// reported even when nothing refers to it.
func cDefs(k *kwCtx) error {
	m, ok := k.v.(map[string]any)
	if !ok {
		return k.invalid("an object whose values are schemas")
	}
	for _, name := range sortedKeys(m) {
		if _, err := k.sub(m[name], name); err != nil {
			return err
		}
	}
	return nil
}

// resolve turns a $ref (found in the schema at from) into the canonical JSON
// Pointer of its target and the target value.
func (c *compiler) resolve(ref, from string) (string, any, error) {
	base, frag, _ := strings.Cut(ref, "#")
	if base != "" && !c.isThisDocument(base) {
		return "", nil, unsupported("remote $ref", "remote reference %q in \"$ref\" at %s (only references within the schema are supported)", ref, where(from))
	}
	frag, ok := percentDecode(frag)
	if !ok {
		return "", nil, invalid("\"$ref\" at %s: %q has a malformed percent-encoding", where(from), ref)
	}
	if frag == "" {
		return "", c.root, nil
	}
	if frag[0] != '/' {
		return "", nil, unsupported("$ref to an $anchor", "reference %q in \"$ref\" at %s: $anchor names are not supported", ref, where(from))
	}
	cur := c.root
	var loc strings.Builder
	for rest, more := frag[1:], true; more; {
		var tok string
		tok, rest, more = strings.Cut(rest, "/")
		tok, ok := unescapeToken(tok)
		if !ok {
			return "", nil, invalid("\"$ref\" at %s: %q is not a valid JSON Pointer", where(from), ref)
		}
		switch x := cur.(type) {
		case map[string]any:
			cur, ok = x[tok]
		case []any:
			var i int
			i, ok = arrayIndex(tok, len(x))
			if ok {
				cur = x[i]
			}
		default:
			ok = false
		}
		if !ok {
			return "", nil, invalid("\"$ref\" at %s: %q does not resolve to anything in the schema", where(from), ref)
		}
		loc.WriteByte('/')
		loc.WriteString(escapeToken(tok))
	}
	return loc.String(), cur, nil
}

// isThisDocument reports whether a $ref's URI part (before '#') names the
// document itself: its root $id, directly or relative to it.
func (c *compiler) isThisDocument(base string) bool {
	if c.rootID == "" {
		return false
	}
	if base == c.rootID {
		return true
	}
	if strings.Contains(base, ":") || strings.HasPrefix(base, "/") {
		return false
	}
	dir := c.rootID[:strings.LastIndexByte(c.rootID, '/')+1]
	return dir != "" && dir+base == c.rootID
}

func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

func escapeToken(s string) string {
	i := 0
	for i < len(s) && s[i] != '~' && s[i] != '/' {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		switch s[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func unescapeToken(s string) (string, bool) {
	if !strings.Contains(s, "~") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return "", false
		}
		if s[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

// inPlace lists the subschemas a node applies to the same instance location.
// A cycle among them (necessarily through a $ref) would recurse forever
// without consuming any of the instance.
func (n *node) inPlace() []*node {
	var out []*node
	if n.ref != nil {
		out = append(out, n.ref)
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, s := range []*node{n.not, n.ifS, n.thenS, n.elseS} {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, name := range sortedKeys(n.depSchemas) {
		out = append(out, n.depSchemas[name])
	}
	return out
}

// checkCycles rejects schemas whose in-place applicators form a cycle.
func checkCycles(nodes map[string]*node) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]uint8{}
	var stack []*node
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case active:
			var locs []string
			for i := len(stack) - 1; i >= 0; i-- {
				locs = append([]string{where(stack[i].loc)}, locs...)
				if stack[i] == n {
					break
				}
			}
			locs = append(locs, where(n.loc))
			return invalid("\"$ref\" cycle %s never reaches a keyword that descends into the instance, so validation would loop forever", strings.Join(locs, " → "))
		case done:
			return nil
		}
		state[n] = active
		stack = append(stack, n)
		for _, s := range n.inPlace() {
			if err := visit(s); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	for _, loc := range sortedKeys(nodes) {
		if err := visit(nodes[loc]); err != nil {
			return err
		}
	}
	return nil
}
