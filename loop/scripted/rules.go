package scripted

import (
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// Rules is the offline demo model. It answers each step by these rules, in order:
//
//  1. If the conversation ends in tool results, it answers in text, one line per result:
//     "<tool>: <result text or JSON>" or "<tool> failed: <error>".
//  2. If the last user message is "/name {json}" (or "/name" alone) and name is an offered
//     tool, it calls that tool with those arguments: a way to drive any tool by hand.
//  3. Every Rule whose Match occurs in the last user message (case-insensitive), and whose
//     tool is offered, becomes a call, in rule order. In Arguments, the string "{{text}}"
//     is replaced by the user's text after the match, without the spaces and separators
//     (, ; :) at its start and the spaces and sentence punctuation (. ? ! , ; :) at its
//     end: "What is the time in Tokyo?" gives "Tokyo", "Remember: buy oat milk" gives
//     "buy oat milk".
//  4. Otherwise it answers "You said: <text>" and notes that it is the offline demo model.
//
// It is deterministic: the same history gives the same step.
type Rules struct {
	Rules  []Rule
	Window int
}

// Rule maps a keyword to a tool call.
type Rule struct {
	Match     string           `json:"match"`
	Tool      string           `json:"tool"`
	Arguments jsonv.RawMessage `json:"arguments,omitempty"`
}

// ContextWindow implements loop.Windowed.
func (m *Rules) ContextWindow() int { return m.Window }

// ServesLanguage: the rules read and answer English only (loop.Linguist).
func (m *Rules) ServesLanguage(tag string) bool { return session.LanguageOf(tag) == "en" }

// Step answers by the rules.
func (m *Rules) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	return play(ctx, m.turn(req), emit)
}

func (m *Rules) turn(req *loop.Request) Turn {
	msgs := req.Messages
	var results []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == session.RoleToolResult; i-- {
		results = append([]string{describe(msgs[i].Result())}, results...)
	}
	if len(results) > 0 {
		return Turn{Text: strings.Join(results, "\n")}
	}
	text := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			text = msgs[i].Text()
			break
		}
	}
	offered := make(map[string]bool, len(req.Tools))
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	if call, ok := slashCall(text, offered); ok {
		return Turn{Calls: []Call{call}}
	}
	var calls []Call
	for _, r := range m.Rules {
		i := indexFold(text, r.Match)
		if r.Match == "" || i < 0 || !offered[r.Tool] {
			continue
		}
		rest := text[i+len(r.Match):]
		for rest != "" && strings.IndexByte(separator, rest[0]) >= 0 { // not TrimLeft: 0.5 KB brotli of code
			rest = rest[1:]
		}
		for rest != "" && strings.IndexByte(sentenceEnd, rest[len(rest)-1]) >= 0 { // nor TrimRight
			rest = rest[:len(rest)-1]
		}
		calls = append(calls, Call{Name: r.Tool, Arguments: fill(r.Arguments, rest)})
	}
	if len(calls) > 0 {
		return Turn{Calls: calls}
	}
	return Turn{Text: "You said: " + text + "\n\n(This is the offline demo model: it follows fixed rules, it does not understand language.)"}
}

// indexFold is the offset of the first part of s equal to sub under Unicode case folding,
// or -1. (An offset found in strings.ToLower(s) is not one in s where a letter's lower case
// has another length: "Ⱥ" is two bytes, "ⱥ" three.)
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// sentenceEnd is what a rule's {{text}} loses at its end: a question's "?" is not part of
// the city it names.
const sentenceEnd = " \t\r\n.?!,;:"

// separator is what a rule's {{text}} loses at its start: the colon of "Remember: buy
// oat milk" is not part of the note.
const separator = " \t\r\n,;:"

func slashCall(text string, offered map[string]bool) (Call, bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return Call{}, false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	if !offered[name] {
		return Call{}, false
	}
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	return Call{Name: name, Arguments: jsonv.RawMessage(args)}, true
}

// fill replaces "{{text}}" string values in args with text.
func fill(args jsonv.RawMessage, text string) jsonv.RawMessage {
	if len(args) == 0 {
		return jsonv.RawMessage("{}")
	}
	return jsonv.RawMessage(strings.ReplaceAll(string(args), `"{{text}}"`, string(jsonv.AppendString(nil, text))))
}

func describe(r *session.ToolResult) string {
	if r.Failed {
		return r.Name + " failed: " + r.Error
	}
	var parts []string
	for _, p := range r.Parts {
		switch p.Type {
		case "text":
			parts = append(parts, p.Text)
		case "object":
			parts = append(parts, string(p.Value))
		default:
			parts = append(parts, "["+p.Type+"]")
		}
	}
	return r.Name + ": " + strings.Join(parts, " ")
}
