package toolrank

import (
	"langmodel/internal/jsonv"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/session"
)

// builtin stands for the loop's search tool.
var builtin = tool("search_tools", "", "Find tools.", "")

func tool(name, title, desc, schema string) session.Tool {
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return session.Tool{Name: name, Description: desc, InputSchema: jsonv.RawMessage(schema), Annotations: session.Annotations{Title: title}}
}

func names(tools []session.Tool, idx []int) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, tools[i].Name)
	}
	return out
}

// TestWords: how names, titles and descriptions split into the words a search matches.
func TestWords(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"snake_case splits at underscores", "get_weather_forecast", []string{"get", "weather", "forecast"}},
		{"camelCase splits at its humps", "getWeatherForecast", []string{"get", "weather", "forecast"}},
		{"words are lower case", "Book a FLIGHT", []string{"book", "flight"}},
		{"common words and one letter are left out", "Add a note to the list of x items", []string{"add", "note", "list", "items"}},
		{"digits stay in their word", "tab2 close", []string{"tab2", "close"}},
		{"nothing in, nothing out", " -_ ", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, strings.Fields(string(AppendWords(nil, tt.text))))
		})
	}
}

// TestSearch_Scores: which tools a query finds, best first, and which it leaves out.
func TestSearch_Scores(t *testing.T) {
	tools := []session.Tool{
		tool("weather", "", "Current conditions for a city.", `{"type":"object","properties":{"city":{"type":"string"}}}`),
		tool("forecast_week", "Weather forecast", "The coming days' weather for a city.", `{"type":"object","properties":{"city":{"type":"string"}}}`),
		tool("book_flight", "", "Book a flight between two airports.", `{"type":"object","properties":{"from":{},"to":{},"date":{}}}`),
		tool("cart_add", "Add to cart", "Put a product in the shopping cart.", `{"type":"object","properties":{"productId":{},"quantity":{}}}`),
		tool("cart_remove", "Remove from cart", "Take a product out of the shopping cart.", `{"type":"object","properties":{"productId":{}}}`),
		tool("search_tools", "", "A page tool that has the built-in's name.", ""),
	}
	tests := []struct {
		name, query string
		active      []string
		want        []string
	}{
		{"a name's word ranks its tool first", "weather in Paris", nil, []string{"weather", "forecast_week"}},
		{"a title's word counts more than a description's", "forecast", nil, []string{"forecast_week"}},
		{"a word's other form matches by its stem", "forecasts", nil, []string{"forecast_week"}},
		{"a parameter's name matches", "quantity", nil, []string{"cart_add"}},
		{"a camelCase parameter matches by its words", "product", nil, []string{"cart_add", "cart_remove"}},
		{"rarer words decide between tools sharing one", "remove cart", nil, []string{"cart_remove", "cart_add"}},
		{"active tools are not found again", "weather", []string{"weather"}, []string{"forecast_week"}},
		{"a page tool named as the built-in is never found", "search tools", nil, []string{}},
		{"no word in common finds nothing", "zebra", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(tools, builtin, nil, 10000, nil)
			for _, n := range tt.active {
				require.True(t, q.Add(Find(tools, n)))
			}
			require.Equal(t, tt.want, names(tools, q.Search(tools, tt.query)))
		})
	}
}

// TestSearch_AtMostFiveHits: a query that matches many tools returns the best five.
func TestSearch_AtMostFiveHits(t *testing.T) {
	var tools []session.Tool
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		tools = append(tools, tool("note_"+n, "", "A note.", ""))
	}
	q := New(tools, builtin, nil, 10000, nil)
	require.Equal(t, []string{"note_a", "note_b", "note_c", "note_d", "note_e"}, names(tools, q.Search(tools, "note")))
}

// TestActiveSet_Growth: the active set starts with the search tool and the pinned, grows
// at its end, never reorders, and leaves its oldest found tools out to stay within its
// budget.
func TestActiveSet_Growth(t *testing.T) {
	big := tool("big", "", string(make([]byte, 400)), "")
	tools := []session.Tool{tool("a", "", "", ""), tool("b", "", "", ""), tool("c", "", "", ""), tool("pin", "", "", ""), big}
	each := session.ToolsCost(tools[:1])      // a, b, c and pin cost the same
	base := session.ToolCost(&builtin) + each // the search tool and pin
	active := func(q *Searcher) []string {
		var out []string
		for _, t := range q.Active.Tools {
			out = append(out, t.Name)
		}
		return out
	}
	tests := []struct {
		name   string
		budget int
		pinned []string
		keep   []string
		add    []string
		want   []string
		added  []bool
	}{
		{"the search tool and the pinned come first", base, []string{"pin", "nope"}, nil, nil, []string{"search_tools", "pin"}, nil},
		{"found tools join at the end, in the order found", base + 3*each, []string{"pin"}, nil, []string{"b", "a"}, []string{"search_tools", "pin", "b", "a"}, []bool{true, true}},
		{"a tool already active stays where it is", base + 3*each, []string{"pin"}, nil, []string{"a", "b", "a"}, []string{"search_tools", "pin", "a", "b"}, []bool{true, true, true}},
		{"over the budget the oldest found tool leaves first", base + 2*each, []string{"pin"}, nil, []string{"a", "b", "c"}, []string{"search_tools", "pin", "b", "c"}, []bool{true, true, true}},
		{"a pinned tool never leaves", base + each, []string{"pin"}, nil, []string{"a", "b"}, []string{"search_tools", "pin", "b"}, []bool{true, true}},
		{"a tool too big for the budget alone is not added, and nothing leaves for it", base + 2*each, []string{"pin"}, nil, []string{"a", "big"}, []string{"search_tools", "pin", "a"}, []bool{true, false}},
		{"the tools kept from a set before come back in their order", base + 3*each, []string{"pin"}, []string{"search_tools", "pin", "c", "gone", "a"}, nil, []string{"search_tools", "pin", "c", "a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keep []session.Tool
			for _, n := range tt.keep {
				keep = append(keep, tool(n, "", "", ""))
			}
			q := New(tools, builtin, tt.pinned, tt.budget, keep)
			before := q.Active.Tools
			var added []bool
			for _, n := range tt.add {
				added = append(added, q.Add(Find(tools, n)))
			}
			require.Equal(t, tt.want, active(q))
			require.Equal(t, tt.added, added)
			require.Equal(t, session.ToolsCost(q.Active.Tools), q.Active.Cost)
			require.LessOrEqual(t, q.Active.Cost-base, tt.budget-base, "within the budget")
			require.Equal(t, "search_tools", before[0].Name, "the set before is unchanged")
		})
	}
}

// BenchmarkSearch_300Tools: one search over 300 tools, the index built already (the
// first search builds it: BenchmarkSearch_300ToolsFirst).
func BenchmarkSearch_300Tools(b *testing.B) {
	tools := manyTools()
	q := New(tools, builtin, nil, 1000, nil)
	q.Search(tools, "warm")
	b.ReportAllocs()
	for b.Loop() {
		q.Search(tools, "convert money to euros")
	}
}

func BenchmarkSearch_300ToolsFirst(b *testing.B) {
	tools := manyTools()
	b.ReportAllocs()
	for b.Loop() {
		New(tools, builtin, nil, 1000, nil).Search(tools, "convert money to euros")
	}
}

func manyTools() []session.Tool {
	var tools []session.Tool
	for i := range 300 {
		n := strconv.Itoa(i)
		tools = append(tools, tool("page_action_"+n, "", "Runs action "+n+" of this page.", `{"type":"object","properties":{"target":{"type":"string"}}}`))
	}
	tools[150] = tool("convert_currency", "", "Convert an amount of money from one currency to another.", `{"type":"object","properties":{"amount":{},"from":{},"to":{}}}`)
	return tools
}
