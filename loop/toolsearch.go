package loop

import (
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/loop/internal/toolrank"
	"langmodel/session"
)

// Tool search (docs/small-windows.md "Tool search"). A WebMCP page registers
// dozens to hundreds of tools, and every declaration is sent at every step: on a small
// model's 2K–8K window they leave no room for the conversation, or do not fit at all.
// When the declarations would take more than a share of the window (a quarter by
// default), the model is offered a small active set instead (the pinned tools and the
// built-in search_tools) and finds the others by searching: a lexical score over each
// tool's name, title, description and parameter names, in Go (no embeddings, no
// network). What a search finds joins the active set from the next step on, appended
// after what was already offered, so that an engine's prompt-prefix cache keeps what it
// has processed; the oldest found tools leave first when the share would be exceeded.
//
// The search is the loop's own: its call and result are in the history and the events
// under the built-in's name (the events mark it builtin), approve never sees it, and the
// limits count it as a call. A session whose tools fit does none of this: s.search is
// nil and no step looks further.

// SearchToolName is the built-in search tool's name. In search mode a session tool of
// that name is neither offered nor found: the built-in has the name.
const SearchToolName = "search_tools"

// DefaultToolShare is toolSearch.share when the page gives none: the declarations may
// take a quarter of the window before search takes over.
const DefaultToolShare = 0.25

// ToolSearch is toolUseConfig.toolSearch. The zero value is the default: search when
// the declarations take more than DefaultToolShare of the window, nothing pinned.
type ToolSearch struct {
	Off    bool    // toolSearch: false: every tool is always offered, as without search
	Share  float64 // of the context window the declarations may take, in (0, 1]; 0: the default
	Pinned []string
}

// budget is the share of window the offered declarations may take, in tokens.
func (t ToolSearch) budget(window int) int {
	share := t.Share
	if share <= 0 {
		share = DefaultToolShare
	}
	return int(share * float64(window))
}

// searchTool is the built-in's declaration. Its text never changes: it sits among the
// first tools of every step, and the engine's cached prefix holds it.
var searchTool = session.Tool{
	Name:        SearchToolName,
	Description: "Find tools by what you want to do. Only some of the tools are shown to you; this searches all of them. The tools it finds can be called from your next reply on.",
	InputSchema: jsonv.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what you want to do, in a few words"}},"required":["query"]}`),
	HasExecute:  true,
	Source:      session.Source{Kind: session.SourceBuiltin},
}

// newSearcher is the search state for tools under use and window (toolrank.New).
func newSearcher(tools []session.Tool, use ToolSearch, window int, keep []session.Tool) *toolrank.Searcher {
	return toolrank.New(tools, searchTool, use.Pinned, use.budget(window), keep)
}

// offer returns the declarations a step offers in search mode: the active set, with the
// tool choice names made active first (a page may name any of its tools).
func (s *Session) offer(choice ToolChoice) []session.Tool {
	q := s.search
	if choice.Mode == "tool" && choice.Name != SearchToolName {
		s.toolsMu.Lock() // Listed may be reading the active set
		added := false
		if t := s.tools[choice.Name]; t != nil {
			added = q.Add(t)
		}
		s.toolsMu.Unlock()
		if added {
			s.hist.SetBase(q.Active.Cost)
		}
	}
	return q.Active.Tools
}

// retool decides, when the session's tools have changed (SetTools), whether the step
// searches: it does when the declarations would take more than the share, or when it did
// already (the active set then keeps the tools still there, in their order, so that the
// prefix sent stays the same).
func (s *Session) retool() {
	use := s.opts.ToolUse.Search
	if use.Off {
		return
	}
	window := s.hist.Window()
	full := session.ToolsCost(s.opts.Tools)
	if full <= use.budget(window) {
		if s.search != nil {
			s.search = nil
			s.hist.SetBase(full)
		}
		return
	}
	var keep []session.Tool
	if s.search != nil {
		keep = s.search.Active.Tools
	}
	s.search = newSearcher(s.opts.Tools, use, window, keep)
	s.tools[SearchToolName] = &searchTool // takeTools made the map: no clone shares it
	s.hist.SetBase(s.search.Active.Cost)
}

// search runs one search call: the tools found join the active set, and the result
// names them, with their parameters and descriptions, for the model to choose from. The
// declarations themselves come with the next step's tools (not twice in the window).
func (r *run) search(c session.ToolCall) session.ToolResult {
	s, q := r.s, r.s.search
	s.toolsMu.Lock() // a step's searches may run side by side (runTools)
	defer s.toolsMu.Unlock()
	v, _ := jsonv.Decode(c.Arguments)
	obj, _ := v.(map[string]any)
	query, _ := obj["query"].(string)
	if query == "" {
		return session.ErrorResult(c, SearchToolName+` needs {"query": "<what you want to do, in a few words>"}`)
	}
	text := "No tool matched " + quote(query) + ". Search again with other words, or answer without a tool."
	found := "Tools found, which you can call from your next reply on:"
	for _, i := range q.Search(s.opts.Tools, query) {
		if t := &s.opts.Tools[i]; q.Add(t) { // a tool too big for the share is never offered
			found += "\n- " + t.Name + "(" + strings.Join(toolrank.ParamNames(t.InputSchema), ", ") + "): " + t.Description
			text = found
		}
	}
	return session.ToolResult{CallID: c.CallID, Name: c.Name, Parts: []session.ResultPart{{Type: "text", Text: text}}}
}

// ActiveTools names the tools of the active set, in order (the search tool, the pinned,
// then those found or named by activeTools), as of the last completed change; nil when
// the session does not search. A snapshot keeps them (Saved.Active).
func (s *Session) ActiveTools() []string {
	active := s.view.Load().active
	if active == nil {
		return nil
	}
	names := make([]string, len(active))
	for i := range active {
		names[i] = active[i].Name
	}
	return names
}

// offered reports whether the step offered the model a tool named name (search mode).
func (r *run) offered(name string) bool {
	return toolrank.Find(r.tools, name) != nil
}

// Listed returns the tools the session's next step will have (a set SetTools left
// included) and, in search mode, those of them the model is offered now: nil when it is
// offered every one. It is the page's listing of a session's tools (session.listTools(),
// wasm/toollist.go); a step under way may add to the active set as soon as it returns.
// Both are read-only (the active set's slice is never written in place).
func (s *Session) Listed() (tools, active []session.Tool) {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	tools = s.opts.Tools
	if s.nextTools != nil {
		tools = *s.nextTools
	}
	if s.search != nil {
		active = s.search.Active.Tools
	}
	return tools, active
}
