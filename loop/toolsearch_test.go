package loop_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/scripted"
	"langmodel/loop/textproto"
	"langmodel/session"
)

const currencySchema = `{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["amount","from","to"]}`

// manyTools is 300 small tools, as a WebMCP page registers them, one of which converts
// currencies (execute: whether they have execute).
func manyTools(execute bool) []any {
	verbs := []string{"open", "close", "list", "add", "remove", "rename", "archive", "share", "print", "sort"}
	nouns := []string{"note", "tab", "file", "folder", "photo", "album", "contact", "event", "task", "reminder",
		"playlist", "song", "video", "comment", "post", "draft", "label", "filter", "bookmark", "cart",
		"order", "invoice", "ticket", "report", "chart", "slide", "sheet", "form", "survey", "coupon"}
	var out []any
	for _, n := range nouns {
		for _, v := range verbs {
			d := decl(v+"_"+n, execute, `{"type":"object","properties":{"id":{"type":"string","description":"which `+n+`"}}}`)
			d.(map[string]any)["description"] = strings.ToUpper(v[:1]) + v[1:] + " a " + n + " on this page."
			out = append(out, d)
		}
	}
	d := decl("convert_currency", execute, currencySchema)
	d.(map[string]any)["description"] = "Convert an amount of money from one currency to another."
	out[137] = d
	return out
}

func search(query string) scripted.Call {
	return call(loop.SearchToolName, `{"query":"`+query+`"}`)
}

// TestToolSearch: a session whose tools do not fit their share of the window offers the
// search tool and a small active set; what a search finds joins the set at its end from
// the next step on, and is called; approve never sees the search; each step's
// declarations stay within the share.
func TestToolSearch(t *testing.T) {
	convert := call("convert_currency", `{"amount":100,"from":"USD","to":"EUR"}`)
	converted := func(ctx loop.Context, args map[string]any, _ func(jsonv.RawMessage)) (any, error) {
		return "92 EUR", nil
	}
	tests := []struct {
		name    string
		use     loop.ToolUse
		turns   []scripted.Turn
		prompts []loop.PromptOptions // one prompt per entry; nil: one with no options
		want    string
		offered [][]string // the tools each step offered
		history []string
		ran     []string
	}{
		{
			name:  "the model searches, the found tool joins the next step's tools and is called",
			turns: calls("100 USD is 92 EUR.", search("convert money to euros"), convert),
			want:  "100 USD is 92 EUR.",
			offered: [][]string{{"search_tools"},
				{"search_tools", "convert_currency"}, {"search_tools", "convert_currency"}},
			history: []string{
				"user: How much is 100 USD in euros?",
				`call call_1 search_tools{"query":"convert money to euros"}`,
				`result call_1 search_tools [{"type":"text","value":"Tools found, which you can call from your next reply on:\n- convert_currency(amount, from, to): Convert an amount of money from one currency to another."}]`,
				`call call_2 convert_currency{"amount":100,"from":"USD","to":"EUR"}`,
				`result call_2 convert_currency [{"type":"text","value":"92 EUR"}]`,
				"assistant: 100 USD is 92 EUR.",
			},
			ran: []string{`convert_currency{"amount":100,"from":"USD","to":"EUR"}`},
		},
		{
			name:    "a call to a tool not offered is a tool error that points to the search",
			turns:   calls("I cannot.", convert),
			want:    "I cannot.",
			offered: [][]string{{"search_tools"}, {"search_tools"}},
			history: []string{
				"user: How much is 100 USD in euros?",
				`call call_1 convert_currency{"amount":100,"from":"USD","to":"EUR"}`,
				`error call_1 convert_currency: tool "convert_currency" is not among the tools you were given; call search_tools to find the tool you need`,
				"assistant: I cannot.",
			},
		},
		{
			name:    "pinned tools are offered from the first step, after the search tool",
			use:     loop.ToolUse{Search: loop.ToolSearch{Pinned: []string{"convert_currency", "no_such_tool"}}},
			turns:   calls("92 EUR.", convert),
			want:    "92 EUR.",
			offered: [][]string{{"search_tools", "convert_currency"}, {"search_tools", "convert_currency"}},
			ran:     []string{`convert_currency{"amount":100,"from":"USD","to":"EUR"}`},
		},
		{
			name:    "activeTools sets a prompt's tools, and the next prompt keeps them",
			turns:   []scripted.Turn{{Text: "One."}, {Text: "Two."}},
			prompts: []loop.PromptOptions{{ActiveTools: []string{"open_note", "convert_currency", "nope"}}, {}},
			want:    "Two.",
			offered: [][]string{{"search_tools", "open_note", "convert_currency"}, {"search_tools", "open_note", "convert_currency"}},
		},
		{
			name:    "a failed prompt forgets the tools its searches found",
			turns:   []scripted.Turn{{Calls: []scripted.Call{search("currency")}}, {Error: &scripted.StepError{Kind: session.KindOperation, Message: "down"}}, {Text: "Again."}},
			prompts: []loop.PromptOptions{{}, {}},
			want:    "Again.",
			offered: [][]string{{"search_tools"}, {"search_tools", "convert_currency"}, {"search_tools"}},
		},
		{
			name:    "a named toolChoice makes its tool active",
			turns:   []scripted.Turn{{Calls: []scripted.Call{convert}}, {Text: "Done."}},
			prompts: []loop.PromptOptions{{ToolChoice: &loop.ToolChoice{Mode: "tool", Name: "convert_currency"}}},
			want:    "Done.",
			offered: [][]string{{"search_tools", "convert_currency"}, {"search_tools", "convert_currency"}},
			ran:     []string{`convert_currency{"amount":100,"from":"USD","to":"EUR"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var approved []string
			tt.use.Approve = func(_ loop.Context, c session.ToolCall, tool *session.Tool) (bool, string, error) {
				mu.Lock()
				defer mu.Unlock()
				approved = append(approved, c.Name)
				return true, "", nil
			}
			funcs := map[string]toolFunc{"convert_currency": converted}
			f := newFixture(t, setup{turns: tt.turns, tools: manyTools(true), funcs: funcs, use: tt.use, window: 4096})
			require.NoError(t, f.create)
			require.Less(t, f.s.ContextUsage(), 1024, "the declarations at creation are the active set's")
			prompts := tt.prompts
			if prompts == nil {
				prompts = []loop.PromptOptions{{}}
			}
			var r loop.Result
			var err error
			for _, po := range prompts {
				r, err = f.s.Prompt(loop.Background(), "How much is 100 USD in euros?", po)
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, r.Text)
			var offered [][]string
			for _, req := range f.model.Requests() {
				offered = append(offered, req.Tools)
				var decls []session.Tool
				for _, n := range req.Tools {
					for i := range f.tools {
						if f.tools[i].Name == n {
							decls = append(decls, f.tools[i])
						}
					}
				}
				require.LessOrEqual(t, session.ToolsCost(decls)+120, 4096/4, "each step's declarations stay within the share")
			}
			require.Equal(t, tt.offered, offered)
			if tt.history != nil {
				require.Equal(t, tt.history, history(f.s))
			}
			require.Equal(t, tt.ran, f.page.Ran())
			var ran []string
			for _, c := range tt.ran {
				ran = append(ran, c[:strings.IndexByte(c, '{')])
			}
			require.Equal(t, ran, approved, "approve sees every call that ran, never the search")
		})
	}
}

// TestToolSearch_Events: a search is a toolcall and a toolresult of the built-in tool,
// whose source says so.
func TestToolSearch_Events(t *testing.T) {
	f := newFixture(t, setup{turns: calls("None.", search("zebra")), tools: manyTools(true), window: 4096})
	require.NoError(t, f.create)
	_, err := f.s.Prompt(loop.Background(), "Find a zebra tool.", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"toolcall:search_tools", "toolresult:search_tools"}, f.page.eventTypes())
	for _, e := range f.page.events {
		require.Equal(t, session.SourceBuiltin, e.Tool.Source.Kind)
	}
	require.Equal(t, `result call_1 search_tools [{"type":"text","value":"No tool matched \"zebra\". Search again with other words, or answer without a tool."}]`, history(f.s)[2])
}

// TestToolSearch_When: search takes over only when the declarations exceed the share,
// and toolSearch: false keeps every tool (and the window's limit).
func TestToolSearch_When(t *testing.T) {
	tests := []struct {
		name    string
		tools   []any
		use     loop.ToolUse
		window  int
		offered int    // how many tools the first step offered
		search  bool   // the first of them is the search tool
		err     string // create's error
	}{
		{"tools that fit their share are all offered, without the search tool", manyTools(true)[:20], loop.ToolUse{}, 4096, 20, false, ""},
		{"a larger share lets more tools be offered whole", manyTools(true)[:40], loop.ToolUse{Search: loop.ToolSearch{Share: 0.9}}, 4096, 40, false, ""},
		{"a smaller share turns search on sooner", manyTools(true)[:20], loop.ToolUse{Search: loop.ToolSearch{Share: 0.1}}, 4096, 1, true, ""},
		{"tools over the share are searched", manyTools(true), loop.ToolUse{}, 4096, 1, true, ""},
		{"toolSearch off keeps every tool, and 300 do not fit the window", manyTools(true), loop.ToolUse{Search: loop.ToolSearch{Off: true}}, 4096, 0, false,
			"the input does not fit in the context window: the tool declarations need more than the context window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, setup{turns: []scripted.Turn{{Text: "Hi."}}, tools: tt.tools, use: tt.use, window: tt.window})
			if tt.err != "" {
				require.EqualError(t, f.create, tt.err)
				return
			}
			require.NoError(t, f.create)
			_, err := f.s.Prompt(loop.Background(), "Hello.", loop.PromptOptions{})
			require.NoError(t, err)
			offered := f.model.Requests()[0].Tools
			require.Len(t, offered, tt.offered)
			require.Equal(t, tt.search, offered[0] == loop.SearchToolName)
		})
	}
}

// TestToolSearch_Open: in a session whose tools have no execute, the loop answers the
// search itself and hands back the call of the tool found.
func TestToolSearch_Open(t *testing.T) {
	convert := call("convert_currency", `{"amount":1,"from":"USD","to":"EUR"}`)
	f := newFixture(t, setup{turns: calls("", search("currency"), convert), tools: manyTools(false), window: 4096})
	require.NoError(t, f.create)
	r, err := f.s.Prompt(loop.Background(), "1 USD in EUR?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Len(t, r.Calls, 1)
	require.Equal(t, "convert_currency", r.Calls[0].Name)
	require.Equal(t, []string{"search_tools", "convert_currency"}, f.model.Requests()[1].Tools)
}

// TestToolSearch_TextProtocol: through the text protocol the search tool is rendered and
// called as any tool, and the found tool is in the next step's prompt.
func TestToolSearch_TextProtocol(t *testing.T) {
	block := func(name, args string) string {
		return "```tool_call\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n```"
	}
	inner := scripted.New(
		scripted.Turn{Text: block("search_tools", `{"query":"convert currency"}`)},
		scripted.Turn{Text: block("convert_currency", `{"amount":1,"from":"USD","to":"EUR"}`)},
		scripted.Turn{Text: "0.92 EUR."},
	)
	p := &page{funcs: map[string]toolFunc{"convert_currency": func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { return "0.92 EUR", nil }}}
	tools, err := session.ParseTools(manyTools(true), false)
	require.NoError(t, err)
	rec := &prompts{Script: inner}
	s, err := loop.New(loop.Options{Model: textproto.Wrap(rec, textproto.Options{}), Runner: p, Tools: tools, ContextWindow: 4096})
	require.NoError(t, err)
	defer s.Destroy()
	r, err := s.Prompt(loop.Background(), "1 USD in EUR?", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "0.92 EUR.", r.Text)
	require.Equal(t, []string{`convert_currency{"amount":1,"from":"USD","to":"EUR"}`}, p.Ran())
	require.Len(t, rec.seen, 3)
	require.Contains(t, rec.seen[0], "### search_tools\n")
	require.NotContains(t, rec.seen[0], "### convert_currency\n")
	require.True(t, strings.HasPrefix(rec.seen[1], rec.seen[0]), "the second step's prompt starts with the whole of the first's")
	// The tool found is declared after the search's result, as the tools list declares
	// its tools, and nowhere else.
	found := "```\n\n## Available tools found by search_tools\n\n### convert_currency\nConvert an amount of money from one currency to another.\nInput schema: {\"properties\":{\"amount\""
	require.Equal(t, 1, strings.Count(rec.seen[1], "### convert_currency\n"))
	require.Contains(t, rec.seen[1], found)
	require.Greater(t, strings.Index(rec.seen[1], found), strings.Index(rec.seen[1], "```tool_result"))
	require.True(t, strings.HasPrefix(rec.seen[2], rec.seen[1]), "the third step's prompt starts with the whole of the second's")
}

// TestToolSearch_PrefixStable: the prompt-prefix cache's view of a 20-step loop with tool
// search on, through the text protocol: the tools list atop the system prompt stays the
// one the loop started with, and the tools a search finds are declared after its result,
// so each step's prompt starts with the whole of the previous step's, after a search
// that found a tool too. Logged: the share of each step's prompt that the previous one
// had already sent (what an engine would find cached), at least 90 % overall.
func TestToolSearch_PrefixStable(t *testing.T) {
	block := func(name, args string) scripted.Turn {
		return scripted.Turn{Text: "```tool_call\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n```"}
	}
	var turns []scripted.Turn
	for i, q := range []string{"convert currency", "archive photo", "share playlist"} {
		turns = append(turns, block("search_tools", `{"query":"`+q+`"}`))
		name := []string{"convert_currency", "archive_photo", "share_playlist"}[i]
		for k := 0; k < 5; k++ {
			turns = append(turns, block(name, `{"amount":`+string(rune('1'+k))+`,"from":"USD","to":"EUR","id":"x"}`))
		}
	}
	turns = append(turns, block("search_tools", `{"query":"zebra"}`)) // finds nothing: the tools stay
	turns = append(turns, scripted.Turn{Text: "Done."})
	require.Len(t, turns, 20)
	inner := scripted.New(turns...)
	rec := &prompts{Script: inner}
	tools, err := session.ParseTools(manyTools(true), false)
	require.NoError(t, err)
	p := &page{funcs: map[string]toolFunc{}}
	for _, n := range []string{"convert_currency", "archive_photo", "share_playlist"} {
		p.funcs[n] = func(loop.Context, map[string]any, func(jsonv.RawMessage)) (any, error) { return "ok", nil }
	}
	s, err := loop.New(loop.Options{Model: textproto.Wrap(rec, textproto.Options{}), Runner: p, Tools: tools, ContextWindow: 8192,
		ToolUse: loop.ToolUse{MaxToolCalls: 30, MaxRepeatedCalls: -1}})
	require.NoError(t, err)
	defer s.Destroy()
	r, err := s.Prompt(loop.Background(), "Do the three things.", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, "Done.", r.Text)
	require.Len(t, rec.seen, 20)
	cached, total := 0, 0
	var shares []string
	for i := 1; i < len(rec.seen); i++ {
		prev, cur := rec.seen[i-1], rec.seen[i]
		n := 0
		for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
			n++
		}
		cached, total = cached+n, total+len(cur)
		shares = append(shares, strconv.Itoa(100*n/len(cur))+"%")
		require.Equal(t, len(prev), n, "step %d starts with the whole of step %d's prompt", i+1, i)
	}
	require.Equal(t, 1, strings.Count(rec.seen[19], "### search_tools\n"))
	require.Equal(t, 3, strings.Count(rec.seen[19], "## Available tools found by search_tools\n"), "each search that found a tool declares it after its result")
	t.Logf("20 steps, tool search on: the share of each step's prompt (bytes) the step before had sent: %v; overall %d%%", shares, 100*cached/total)
	require.GreaterOrEqual(t, 100*cached/total, 90)
}

// prompts records the whole prompt of each step of a Script, its messages' text in order.
type prompts struct {
	*scripted.Script
	seen []string
}

func (m *prompts) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	var b strings.Builder
	for _, msg := range req.Messages {
		b.WriteString(string(msg.Role) + ": " + msg.Text() + "\n")
	}
	m.seen = append(m.seen, b.String())
	return m.Script.Step(ctx, req, emit)
}

// TestToolSearch_Restore: the active set survives a snapshot (Saved.Active): a restored
// session offers the tools the original had found from its first step on; one restored
// without them (a snapshot from before version 4) offers the search tool alone.
func TestToolSearch_Restore(t *testing.T) {
	convert := call("convert_currency", `{"amount":100,"from":"USD","to":"EUR"}`)
	f := newFixture(t, setup{turns: calls("Found.", search("convert money to euros")), tools: manyTools(true), window: 4096,
		funcs: map[string]toolFunc{"convert_currency": echo}})
	require.NoError(t, f.create)
	_, err := f.s.Prompt(loop.Background(), "Find the currency tool.", loop.PromptOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"search_tools", "convert_currency"}, f.s.ActiveTools())
	for _, tc := range []struct {
		name    string
		active  []string
		offered []string
	}{
		{"with the active set saved", f.s.ActiveTools(), []string{"search_tools", "convert_currency"}},
		{"a snapshot without it", nil, []string{"search_tools"}},
		{"names that are no tools are skipped", []string{"search_tools", "gone", "convert_currency"}, []string{"search_tools", "convert_currency"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := scripted.New(scripted.Turn{Calls: []scripted.Call{convert}}, scripted.Turn{Text: "92 EUR."})
			r, err := loop.Restore(loop.Options{Model: m, Runner: f.page, Tools: f.tools, ContextWindow: 4096},
				loop.Saved{Messages: jsonv.RawMessage(f.s.History()), Active: tc.active})
			require.NoError(t, err)
			defer r.Destroy()
			require.Equal(t, tc.offered, r.ActiveTools())
			_, err = r.Prompt(loop.Background(), "100 USD in EUR?", loop.PromptOptions{})
			require.NoError(t, err)
			require.Equal(t, tc.offered, m.Requests()[0].Tools, "the first step's tools")
		})
	}
	n, err := loop.New(loop.Options{Model: scripted.New(), Runner: f.page, Tools: f.tools[:1], ContextWindow: 4096})
	require.NoError(t, err)
	defer n.Destroy()
	require.Nil(t, n.ActiveTools(), "the tools fit: no active set")
}
