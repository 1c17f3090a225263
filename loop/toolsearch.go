package loop

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/session"
)

// Tool search (issue 30, docs/small-windows.md "Tool search"). A WebMCP page registers
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

// searchHits is how many tools one search returns at most.
const searchHits = 5

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
	InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what you want to do, in a few words"}},"required":["query"]}`),
	HasExecute:  true,
	Source:      session.Source{Kind: session.SourceBuiltin},
}

// searcher is a session's search state: the tools offered (active) and the index over
// all of them.
type searcher struct {
	budget int
	fixed  int // active[:fixed] are the pinned tools and the search tool: they never leave
	active activeSet
	index  []toolTerms // built at the first search, for s.opts.Tools as they are now
	df     map[string]int
}

// activeSet is the tools offered and their cost. Its slice is never written in place
// (a change makes a new one): a failed prompt restores the set it began with.
type activeSet struct {
	tools []session.Tool
	cost  int
}

// toolTerms is one tool's words, each with the weight of the field it came from.
type toolTerms struct {
	terms  []string
	weight []float64
}

// newSearcher returns the search state for tools, with the names in keep (the active
// set before the tools changed, then the pinned) active when they are still tools.
func newSearcher(tools []session.Tool, use ToolSearch, window int, keep []session.Tool) *searcher {
	q := &searcher{budget: use.budget(window)}
	set := []session.Tool{searchTool}
	for _, name := range use.Pinned {
		if t := find(tools, name); t != nil && find(set, name) == nil {
			set = append(set, *t)
		}
	}
	q.fixed = len(set)
	q.active = activeSet{set, session.ToolsCost(set)}
	for i := range keep {
		if t := find(tools, keep[i].Name); t != nil {
			q.add(*t)
		}
	}
	return q
}

// find returns the tool named name among tools, nil when none is.
func find(tools []session.Tool, name string) *session.Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// add makes t active, at the end of the set, leaving out the oldest found tools while
// the set would be over the budget. It reports whether t is active; false when even
// alone with the fixed tools it would not fit.
func (q *searcher) add(t session.Tool) bool {
	if t.Name == SearchToolName || find(q.active.tools, t.Name) != nil {
		return find(q.active.tools, t.Name) != nil
	}
	c := session.ToolsCost([]session.Tool{t})
	set, cost := q.active.tools, q.active.cost
	drop := q.fixed
	for cost+c > q.budget && drop < len(set) {
		cost -= session.ToolsCost(set[drop : drop+1])
		drop++
	}
	if cost+c > q.budget {
		return false
	}
	next := make([]session.Tool, 0, len(set)-(drop-q.fixed)+1)
	next = append(append(append(next, set[:q.fixed]...), set[drop:]...), t)
	q.active = activeSet{next, cost + c}
	return true
}

// reset makes the active set the fixed tools and then names (prompt's activeTools).
func (q *searcher) reset(tools []session.Tool, names []string) {
	q.active = activeSet{q.active.tools[:q.fixed:q.fixed], session.ToolsCost(q.active.tools[:q.fixed])}
	for _, name := range names {
		if t := find(tools, name); t != nil {
			q.add(*t)
		}
	}
}

// search returns the indexes in tools of the best matches for query, best first, at most
// searchHits, leaving out the tools already active.
func (q *searcher) search(tools []session.Tool, query string) []int {
	if q.index == nil {
		q.index = make([]toolTerms, len(tools))
		q.df = make(map[string]int)
		for i := range tools {
			q.index[i] = termsOf(&tools[i])
			for j, term := range q.index[i].terms {
				if indexOf(q.index[i].terms[:j], term) < 0 {
					q.df[term]++
				}
			}
		}
	}
	words := words(query, nil)
	type hit struct {
		i     int
		score float64
	}
	var hits []hit
	for i := range tools {
		if tools[i].Name == SearchToolName || find(q.active.tools, tools[i].Name) != nil {
			continue
		}
		score := 0.0
		for _, w := range words {
			score += q.match(i, w, len(tools))
		}
		if score <= 0 {
			continue
		}
		// Insertion into the few best, ties kept in the tools' order.
		k := len(hits)
		for k > 0 && hits[k-1].score < score {
			k--
		}
		if k < searchHits {
			hits = append(hits, hit{})
			copy(hits[k+1:], hits[k:])
			hits[k] = hit{i, score}
			if len(hits) > searchHits {
				hits = hits[:searchHits]
			}
		}
	}
	out := make([]int, len(hits))
	for k, h := range hits {
		out[k] = h.i
	}
	return out
}

// match scores one query word against tool i: the weight of the best field it occurs
// in, times its rarity among the tools (a word every tool has tells nothing). A word
// that shares its first five letters or more with a tool's word (forecast, forecasts)
// counts half.
func (q *searcher) match(i int, w string, n int) float64 {
	best := 0.0
	t := &q.index[i]
	for j, term := range t.terms {
		s := 0.0
		switch {
		case term == w:
			s = t.weight[j]
		case stem(term) == stem(w):
			s = t.weight[j] / 2
		}
		best = math.Max(best, s)
	}
	if best == 0 {
		return 0
	}
	return best * math.Log(1+float64(n)/float64(1+q.df[w]))
}

// stem is a word's first five letters: enough to match a word's forms in English,
// without a stemmer's tables.
func stem(w string) string {
	if len(w) < 5 {
		return w + "\x00" // a short word matches only itself
	}
	return w[:5]
}

func indexOf(s []string, w string) int {
	for i := range s {
		if s[i] == w {
			return i
		}
	}
	return -1
}

// termsOf is a tool's words: its name's (weight 3), its title's and its parameters'
// names (2), its description's (1); each word once, with its best weight.
func termsOf(t *session.Tool) toolTerms {
	var tt toolTerms
	put := func(ws []string, weight float64) {
		for _, w := range ws {
			if k := indexOf(tt.terms, w); k >= 0 {
				tt.weight[k] = math.Max(tt.weight[k], weight)
				continue
			}
			tt.terms = append(tt.terms, w)
			tt.weight = append(tt.weight, weight)
		}
	}
	put(words(t.Name, nil), 3)
	put(words(t.Annotations.Title, nil), 2)
	put(words(strings.Join(paramNames(t.InputSchema), " "), nil), 2)
	put(words(t.Description, nil), 1)
	return tt
}

// paramNames are the names of the top-level properties of an input schema.
func paramNames(schema json.RawMessage) []string {
	v, err := jsonv.Decode(schema)
	if err != nil {
		return nil
	}
	obj, _ := v.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	return order.Keys(props)
}

// words splits text into lower-case words at anything not a letter or digit and at
// camelCase humps (getWeather: get, weather), leaving out one-letter words and the
// commonest English ones.
func words(text string, out []string) []string {
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start > 1 {
			w := strings.ToLower(text[start:end])
			if !strings.Contains(" the and for with from that this you your are can its into use a an to of in on or by is it be as at ", " "+w+" ") {
				out = append(out, w)
			}
		}
		start = -1
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		lower, upper, digit := c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
		switch {
		case !lower && !upper && !digit && c < 0x80:
			flush(i)
		case upper && i > 0 && text[i-1] >= 'a' && text[i-1] <= 'z':
			flush(i)
			start = i
		case start < 0:
			start = i
		}
	}
	flush(len(text))
	return out
}

// offer returns the declarations a step offers in search mode: the active set, with the
// tool choice names made active first (a page may name any of its tools).
func (s *Session) offer(choice ToolChoice) []session.Tool {
	q := s.search
	if choice.Mode == "tool" && choice.Name != SearchToolName {
		if t := s.tools[choice.Name]; t != nil && q.add(*t) {
			s.hist.SetBase(q.active.cost)
		}
	}
	return q.active.tools
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
		keep = s.search.active.tools
	}
	s.search = newSearcher(s.opts.Tools, use, window, keep)
	s.hist.SetBase(s.search.active.cost)
}

// searches answers a step's calls of the search tool and returns the others. The
// searches count against the prompt's limits as any call does (admit); what they find
// joins the active set for the next step. refused reports a call refused by a limit
// under onLimit "answer" (the next step is then the final answer, without tools).
func (r *run) searches(calls []session.ToolCall, used *int) (rest []session.ToolCall, refused bool, err error) {
	s := r.s
	var mine []session.ToolCall
	for _, c := range calls {
		if c.Name == SearchToolName {
			mine = append(mine, c)
		} else {
			rest = append(rest, c)
		}
	}
	if mine == nil {
		return calls, false, nil
	}
	run, out, reasons, err := r.admit(mine, *used)
	if err != nil {
		return nil, false, err
	}
	*used += len(run)
	results := make([]session.ToolResult, 0, len(mine))
	for i := range run {
		c := &run[i]
		s.emit(Event{Type: EventToolCall, Call: c, Tool: &searchTool})
		t0 := s.clock()
		res := r.search(*c)
		s.emit(Event{Type: EventToolResult, Call: c, Tool: &searchTool, Result: &res, Duration: s.clock() - t0})
		results = append(results, res)
	}
	for i := range out {
		res := session.ErrorResult(out[i], reasons[i])
		s.emit(Event{Type: EventToolCall, Call: &out[i], Tool: &searchTool})
		s.emit(Event{Type: EventToolResult, Call: &out[i], Tool: &searchTool, Result: &res})
		results = append(results, res)
	}
	s.hist.SetBase(s.search.active.cost)
	if err := r.keepResults(results); err != nil {
		return nil, false, err
	}
	return rest, len(out) > 0, nil
}

// search runs one search call: the tools found join the active set, and the result
// names them, with their parameters and descriptions, for the model to choose from. The
// declarations themselves come with the next step's tools (not twice in the window).
func (r *run) search(c session.ToolCall) session.ToolResult {
	s, q := r.s, r.s.search
	v, _ := jsonv.Decode(c.Arguments)
	obj, _ := v.(map[string]any)
	query, _ := obj["query"].(string)
	if _, bad := r.malformed[c.CallID]; bad || strings.TrimSpace(query) == "" {
		return session.ErrorResult(c, SearchToolName+` needs {"query": "<what you want to do, in a few words>"}`)
	}
	var b strings.Builder
	n := 0
	for _, i := range q.search(s.opts.Tools, query) {
		t := &s.opts.Tools[i]
		if !q.add(*t) {
			continue // too big for the share even alone: never offered
		}
		n++
		b.WriteString("\n- " + t.Name + "(" + strings.Join(paramNames(t.InputSchema), ", ") + "): " + t.Description)
	}
	if n == 0 {
		return session.ToolResult{CallID: c.CallID, Name: c.Name, Parts: []session.ResultPart{{Type: "text",
			Text: "No tool matched " + strconv.Quote(query) + ". Search again with other words, or answer without a tool."}}}
	}
	return session.ToolResult{CallID: c.CallID, Name: c.Name, Parts: []session.ResultPart{{Type: "text",
		Text: "Tools found, which you can call from your next reply on:" + b.String()}}}
}

// offered reports whether the step offered the model a tool named name (search mode).
func (r *run) offered(name string) bool {
	return find(r.tools, name) != nil
}
