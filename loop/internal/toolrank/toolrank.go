// Package toolrank is tool search's state (loop/toolsearch.go says why the loop searches):
// the active set, the tools a model is offered, grown at its end within a budget, and a
// lexical index of all the tools that a query ranks. It is built without inlining (the
// Makefile's NOINLINE): nothing here is on a step's path, and its size counts.
package toolrank

import (
	"strings"

	"langmodel/internal/jsonv"
	"langmodel/internal/order"
	"langmodel/session"
)

// Hits is how many tools one search returns at most.
const Hits = 5

// Searcher is a session's search state: the tools offered (active) and the index over
// all of them. Not safe for concurrent use. A copy (a cloned session's) shares the
// active set, whose slice is never written in place, and the index.
type Searcher struct {
	budget int
	fixed  int // active.Tools[:fixed] are the search tool and the pinned: they never leave
	Active ActiveSet
	// index holds, for each of s.opts.Tools as they are now (built at the first search),
	// its words: " name words | title and parameter words | description words ".
	index []string
}

// ActiveSet is the tools offered and their cost. Its slice is never written in place
// (a change makes a new one): a failed prompt restores the set it began with.
type ActiveSet struct {
	Tools []session.Tool
	Cost  int
}

// New returns the search state for tools: the built-in tool and the pinned tools
// always active, budget what the active set may cost; with the names in keep (the active
// set before the tools changed) active again when they are still tools.
func New(tools []session.Tool, builtin session.Tool, pinned []string, budget int, keep []session.Tool) *Searcher {
	q := &Searcher{budget: budget}
	set := []session.Tool{builtin}
	for _, name := range pinned {
		if t := Find(tools, name); t != nil && Find(set, name) == nil {
			set = append(set, *t)
		}
	}
	q.fixed = len(set)
	q.Active = ActiveSet{set, session.ToolsCost(set)}
	for i := range keep {
		q.AddNamed(tools, keep[i].Name)
	}
	return q
}

// Find returns the tool named name among tools, nil when none is. Not marked go:noinline:
// the package is built without inlining (the Makefile's NOINLINE); with the mark, the
// module was the same, byte for byte.
func Find(tools []session.Tool, name string) *session.Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// AddNamed makes the tool named name active, when it is one of tools (add).
func (q *Searcher) AddNamed(tools []session.Tool, name string) bool {
	t := Find(tools, name)
	return t != nil && q.Add(t)
}

// add makes t active, at the end of the set, leaving out the oldest found tools while
// the set would be over the budget. It reports whether t is active; false when even
// alone with the fixed tools it would not fit (nothing leaves for it then).
func (q *Searcher) Add(t *session.Tool) bool {
	set, cost := q.Active.Tools, q.Active.Cost
	if t.Name == q.Active.Tools[0].Name || Find(set, t.Name) != nil {
		return true
	}
	c, drop := session.ToolCost(t), q.fixed
	for cost+c > q.budget && drop < len(set) {
		cost -= session.ToolCost(&set[drop])
		drop++
	}
	if cost+c > q.budget {
		return false
	}
	q.Active = ActiveSet{append(append(set[:q.fixed:q.fixed], set[drop:]...), *t), cost + c}
	return true
}

// reset makes the active set the fixed tools and then names (prompt's activeTools).
func (q *Searcher) Reset(tools []session.Tool, names []string) {
	fixed := q.Active.Tools[:q.fixed:q.fixed]
	q.Active = ActiveSet{fixed, session.ToolsCost(fixed)}
	for _, name := range names {
		q.AddNamed(tools, name)
	}
}

// search returns the indexes in tools of the best matches for query, best first, at most
// Hits, leaving out the tools already active. Each word of the query scores the
// weight of the first field it is found in (name 3, title or parameters 2, description
// 1; half that for a word of the same stem), times its rarity among the tools (a word
// every tool has tells nothing).
func (q *Searcher) Search(tools []session.Tool, query string) []int {
	if q.index == nil {
		q.index = make([]string, len(tools))
		for i := range tools {
			t := &tools[i]
			b := AppendWords(nil, t.Name)
			b = AppendWords(append(b, " |"...), t.Annotations.Title+" "+strings.Join(ParamNames(t.InputSchema), " "))
			q.index[i] = string(AppendWords(append(b, " |"...), t.Description)) + " "
		}
	}
	score := make([]int, len(tools))
	for ws := string(AppendWords(nil, query)); ws != ""; {
		n := strings.IndexByte(ws[1:], ' ') + 1 // ws is " word word…"
		if n == 0 {
			n = len(ws)
		}
		w := ws[:n] + " " // " word "
		ws = ws[n:]
		df := 0
		for _, x := range q.index {
			if strings.Contains(x, w) {
				df++
			}
		}
		for i, x := range q.index {
			at, weight := strings.Index(x, w), 2
			if at < 0 {
				at, weight = strings.Index(x, stem(w)), 1
			}
			if at >= 0 {
				score[i] += weight * (3 - strings.Count(x[:at], "|")) * 1024 / (1 + df)
			}
		}
	}
	for i := range tools {
		if Find(q.Active.Tools, tools[i].Name) != nil {
			score[i] = 0
		}
	}
	// The best few, ties in the tools' order.
	var hits []int
	for len(hits) < Hits {
		best := -1
		for i, n := range score {
			if n > 0 && (best < 0 || n > score[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		hits = append(hits, best)
		score[best] = 0
	}
	return hits
}

// stem is a word's first five letters, with the space before it (w is " word "):
// enough to match a word's forms in English, without a stemmer's tables. A shorter word
// is its own stem, and whole.
func stem(w string) string {
	if len(w) < 8 {
		return w
	}
	return w[:6]
}

// ParamNames are the names of the top-level properties of an input schema.
func ParamNames(schema jsonv.RawMessage) []string {
	v, _ := jsonv.Decode(schema)
	obj, _ := v.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	return order.Keys(props)
}

// AppendWords appends to b each word of text, with a space before it: lower case, split
// at anything not a letter or digit and at camelCase humps (getWeather: get, weather),
// leaving out one-letter words and the commonest English ones. Lower case is ASCII's:
// strings.ToLower's Unicode tables are 9 KB of the module's code.
func AppendWords(b []byte, text string) []byte {
	start := len(b)
	for i := 0; i <= len(text); i++ {
		c := byte(' ')
		if i < len(text) {
			c = text[i]
		}
		up := c >= 'A' && c <= 'Z'
		word := up || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
		if !word || up && i > 0 && text[i-1] >= 'a' && text[i-1] <= 'z' {
			// A word ends here: drop it if it is too short or too common.
			if w := string(b[start:]); len(w) < 3 || strings.Contains(stopWords, w+" ") {
				b = b[:start]
			}
			start = len(b)
		}
		if word {
			if len(b) == start {
				b = append(b, ' ')
			}
			if up {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return b
}

// stopWords are the words a search skips, each with a space before and after.
const stopWords = " the and for with from that this you your are can its into use an to of in on or by is it be as at "
