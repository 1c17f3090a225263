package textproto

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parse feeds chunks to a new Parser and returns its output as lines: "T:" + text (runs
// merged), "C:" + name + " " + arguments per call, "E:" + format + ": " + error per
// unreadable block. It fails t if any text delta holds a delimiter.
func parse(t testing.TB, chunks []string) []string {
	t.Helper()
	var p Parser
	var out []string
	var text strings.Builder
	add := func(ps []Piece) {
		for _, pc := range ps {
			if pc.Block == nil {
				if hasDelimiter(pc.Text) {
					t.Fatalf("delimiter in text delta %q", pc.Text)
				}
				text.WriteString(pc.Text)
				continue
			}
			if text.Len() > 0 {
				out = append(out, "T:"+text.String())
				text.Reset()
			}
			b := pc.Block
			if b.Err != nil {
				if len(b.Calls) > 0 {
					t.Fatalf("calls in an unreadable block: %v", b.Calls)
				}
				out = append(out, "E:"+b.Format.String()+": "+b.Err.Error())
				continue
			}
			for _, c := range b.Calls {
				out = append(out, "C:"+c.Name+" "+string(c.Arguments))
			}
		}
	}
	for _, c := range chunks {
		add(p.Feed(c))
	}
	add(p.Close())
	if text.Len() > 0 {
		out = append(out, "T:"+text.String())
	}
	return out
}

func hasDelimiter(s string) bool {
	return strings.Contains(s, "```tool_call") || strings.Contains(s, "<tool_call>") || strings.Contains(s, "</tool_call>")
}

// splits returns ways to cut s into chunks: whole, at every single point, byte by byte,
// at every pair of points (inputs up to 160 bytes, 64 with -short), and a few random
// cuttings.
func splits(s string) [][]string {
	pairs := 160
	if testing.Short() {
		pairs = 64
	}
	out := [][]string{{s}}
	for i := 1; i < len(s); i++ {
		out = append(out, []string{s[:i], s[i:]})
	}
	bytewise := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		bytewise[i] = s[i : i+1]
	}
	out = append(out, bytewise)
	if len(s) <= pairs {
		for i := 1; i < len(s); i++ {
			for j := i + 1; j < len(s); j++ {
				out = append(out, []string{s[:i], s[i:j], s[j:]})
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		out = append(out, chunk(s, rng, 8))
	}
	return out
}

func chunk(s string, rng *rand.Rand, max int) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+rng.IntN(max), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

const (
	weather = `{"name":"get_weather","arguments":{"city":"Paris"}}`
	callW   = `C:get_weather {"city":"Paris"}`
)

func TestParser(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain text", "Hello, world.", []string{"T:Hello, world."}},
		{"empty stream", "", nil},
		{"canonical block", "```tool_call\n" + weather + "\n```", []string{callW}},
		{"text before and after a block", "Let me check.\n```tool_call\n" + weather + "\n```\nDone.",
			[]string{"T:Let me check.\n", callW, "T:\nDone."}},
		{"parallel blocks", "```tool_call\n" + weather + "\n```\n```tool_call\n{\"name\":\"get_time\",\"arguments\":{}}\n```",
			[]string{callW, "T:\n", "C:get_time {}"}},
		{"array of calls in one block", "```tool_call\n[" + weather + ",{\"name\":\"get_time\",\"arguments\":{}}]\n```",
			[]string{callW, "C:get_time {}"}},
		{"objects one after another in one block", "```tool_call\n" + weather + "\n{\"name\":\"get_time\",\"arguments\":{}}\n```",
			[]string{callW, "C:get_time {}"}},
		{"block without newlines", "```tool_call" + weather + "```", []string{callW}},
		{"info word after tool_call is skipped", "```tool_calls\n" + weather + "\n```", []string{callW}},
		{"four-backtick fence", "````tool_call\n" + weather + "\n````", []string{callW}},
		{"arguments pretty-printed are compacted", "```tool_call\n{\n  \"name\": \"get_weather\",\n  \"arguments\": {\"city\": \"Paris\"}\n}\n```",
			[]string{callW}},
		{"parameters for arguments", "```tool_call\n{\"name\":\"get_weather\",\"parameters\":{\"city\":\"Paris\"}}\n```", []string{callW}},
		{"arguments as a string holding JSON", "```tool_call\n{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\"}\n```", []string{callW}},
		{"arguments as a string holding no JSON stay a string", "```tool_call\n{\"name\":\"get_weather\",\"arguments\":\"Paris\"}\n```",
			[]string{`C:get_weather "Paris"`}},
		{"missing arguments are {}", "```tool_call\n{\"name\":\"get_time\"}\n```", []string{"C:get_time {}"}},
		{"null arguments are {}", "```tool_call\n{\"name\":\"get_time\",\"arguments\":null}\n```", []string{"C:get_time {}"}},
		{"OpenAI function form", "```tool_call\n{\"type\":\"function\",\"function\":" + weather + "}\n```", []string{callW}},
		{"backtick fences inside a JSON string", "```tool_call\n{\"name\":\"run\",\"arguments\":{\"code\":\"```py\\nprint(1)\\n```\"}}\n```",
			[]string{"C:run {\"code\":\"```py\\nprint(1)\\n```\"}"}},
		{"tags inside a JSON string", "```tool_call\n{\"name\":\"echo\",\"arguments\":{\"s\":\"<tool_call></tool_call> <function=x>\"}}\n```",
			[]string{`C:echo {"s":"<tool_call></tool_call> <function=x>"}`}},
		{"escaped quotes and backslashes in strings", "```tool_call\n{\"name\":\"echo\",\"arguments\":{\"s\":\"a\\\\\\\"```\"}}\n```",
			[]string{`C:echo {"s":"a\\\"` + "```" + `"}`}},
		{"unicode text and arguments", "Voilà 日本 🌦️\n```tool_call\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Zürich 東京 🏙\"}}\n```\nFertig ✓",
			[]string{"T:Voilà 日本 🌦️\n", `C:get_weather {"city":"Zürich 東京 🏙"}`, "T:\nFertig ✓"}},

		{"json fence holding a call", "Sure:\n```json\n" + weather + "\n```", []string{"T:Sure:\n", callW}},
		{"json fence holding an array of calls", "```json\n[" + weather + "]\n```", []string{callW}},
		{"json fence holding another object is text", "Here:\n```json\n{\"a\": [1, \"```\"]}\n```\nok",
			[]string{"T:Here:\n```json\n{\"a\": [1, \"```\"]}\n```\nok"}},
		{"json fence holding a call then another object is text", "```json\n" + weather + "\n{\"a\":1}\n```",
			[]string{"T:```json\n" + weather + "\n{\"a\":1}\n```"}},
		{"json fence holding no JSON is text", "```json\nnot json\n```\n", []string{"T:```json\nnot json\n```\n"}},
		{"json fence with a scalar is text", "```json\n42\n```", []string{"T:```json\n42\n```"}},
		{"json fence left open with a call is a call", "```json\n" + weather, []string{callW}},
		{"json fence left open without a call is text", "```json\n{\"a\":", []string{"T:```json\n{\"a\":"}},
		{"jsonc fence is an ordinary code block", "```jsonc\n" + weather + "\n```", []string{"T:```jsonc\n" + weather + "\n```"}},
		{"ordinary code block, then a call", "```python\nprint(\"<b>\")\n```\n```tool_call\n" + weather + "\n```",
			[]string{"T:```python\nprint(\"<b>\")\n```\n", callW}},
		{"bare fence holding a call is an ordinary code block", "```\n" + weather + "\n```", []string{"T:```\n" + weather + "\n```"}},
		{"closing fence of a code block does not open one", "```\ncode\n```\n```json\n" + weather + "\n```",
			[]string{"T:```\ncode\n```\n", callW}},
		{"a call block inside a code block is still a call", "```text\n```tool_call\n" + weather + "\n```",
			[]string{"T:```text\n", callW}},
		{"a tag inside a code block is still a call", "```xml\n<tool_call>" + weather + "</tool_call>\n```",
			[]string{"T:```xml\n", callW, "T:\n```"}},

		{"tag", "<tool_call>\n" + weather + "\n</tool_call>", []string{callW}},
		{"tags, parallel", "<tool_call>" + weather + "</tool_call>\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>",
			[]string{callW, "T:\n", "C:get_time {}"}},
		{"tag left open (server stopped at the closer)", "Checking.\n<tool_call>\n" + weather + "\n", []string{"T:Checking.\n", callW}},
		{"tag opened again before closing", "<tool_call>" + weather + "\n<tool_call>" + weather + "</tool_call>", []string{callW, callW}},
		{"tag wrapping a json fence", "<tool_call>\n```json\n" + weather + "\n```\n</tool_call>", []string{callW}},
		{"fence wrapping a tag", "```tool_call\n<tool_call>" + weather + "</tool_call>\n```", []string{callW}},
		{"stray closing tag is dropped", "Done.</tool_call> Bye", []string{"T:Done. Bye"}},
		{"function tag", "<function=get_weather>{\"city\": \"Paris\"}</function>", []string{callW}},
		{"function tag with an empty body", "<function=get_time></function>", []string{"C:get_time {}"}},
		{"function tag left open", "<function=get_weather>{\"city\":\"Paris\"}", []string{callW}},
		{"function tag with a bad name is text", "x <function=a b>{}</function>", []string{"T:x <function=a b>{}</function>"}},
		{"function tag with bad JSON", "<function=get_weather>{city: Paris}</function>",
			[]string{"E:<function=…> tag: the block is not valid JSON: invalid character 'c' looking for beginning of object key string"}},

		{"bare call", weather, []string{callW}},
		{"bare call with whitespace around", "\n  " + weather + "\n\n", []string{callW}},
		{"bare call followed by text is text", weather + " and more", []string{"T:" + weather + " and more"}},
		{"bare object that is no call is text", "{\"answer\": 42}", []string{"T:{\"answer\": 42}"}},
		{"bare call left open is text", "{\"name\":\"get_weather\",\"arguments\":{", []string{"T:{\"name\":\"get_weather\",\"arguments\":{"}},
		{"call object after text is text", "Use " + weather, []string{"T:Use " + weather}},
		{"leading whitespace alone is text", "  \n", []string{"T:  \n"}},

		{"inline code and angle brackets are text", "Use `x` or ``y`` when a < b and c<d, <b>bold</b>.",
			[]string{"T:Use `x` or ``y`` when a < b and c<d, <b>bold</b>."}},
		{"partial delimiter at the end is text", "see <tool_", []string{"T:see <tool_"}},
		{"partial fence at the end is text", "see ```tool", []string{"T:see ```tool"}},
		{"backticks at the end are text", "x ``", []string{"T:x ``"}},

		{"bad JSON", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {city: \"Paris\"}}\n```\nafter",
			[]string{"E:tool_call fence: the block is not valid JSON: invalid character 'c' looking for beginning of object key string", "T:\nafter"}},
		{"no name", "```tool_call\n{\"arguments\":{}}\n```", []string{"E:tool_call fence: " + ErrNotCall.Error()}},
		{"empty block", "```tool_call\n```", []string{"E:tool_call fence: the block is empty"}},
		{"block left open with complete JSON is a call", "```tool_call\n" + weather, []string{callW}},
		{"block left open with incomplete JSON", "```tool_call\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Pa",
			[]string{"E:tool_call fence: the block was not closed, and the block is not valid JSON: unexpected EOF"}},
		{"raw newline in a string ends the string", "```tool_call\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Pa\n```\nafter",
			[]string{"E:tool_call fence: the block is not valid JSON: unexpected EOF", "T:\nafter"}},
		{"block opened again before closing", "```tool_call\n" + weather + "\n```tool_call\n" + weather + "\n```", []string{callW, callW}},
		{"prose mentioning the tag opens a block", "I use <tool_call> tags.",
			[]string{"T:I use ", "E:<tool_call> tag: the block was not closed, and the block is not valid JSON: invalid character 'a' in literal true (expecting 'r')"}},
		{"a tag in a released json fence still opens a block", "```json\n{\"a\":\"<tool_call>\"}\n```",
			[]string{"T:```json\n{\"a\":\"", "E:<tool_call> tag: the block was not closed, and the block is not valid JSON: invalid character '\\n' in string literal"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunks := range splits(tc.in) {
				require.Equal(t, tc.want, parse(t, chunks), "chunks %q", chunks)
			}
		})
	}
}

// TestParser_HoldBack checks that text streams at once, except what may still begin a
// delimiter.
func TestParser_HoldBack(t *testing.T) {
	tests := []struct {
		name, chunk, now string
	}{
		{"plain text", "Hello wor", "Hello wor"},
		{"an HTML tag", "Hello <b>", "Hello <b>"},
		{"a less-than sign", "a < b", "a < b"},
		{"the start of <tool_call>", "Hello <tool", "Hello "},
		{"the start of </tool_call>", "Hello </tool_c", "Hello "},
		{"the start of <function=", "Hello <func", "Hello "},
		{"a function name not yet closed", "Hi <function=get_weather", "Hi "},
		{"a lone '<' at the end", "Hello <", "Hello "},
		{"backticks at the end", "Hello ``", "Hello "},
		{"inline code", "Use `x` now", "Use `x` now"},
		{"the start of a tool_call fence", "code ```to", "code "},
		{"the start of a json fence", "code ```js", "code "},
		{"a json fence waiting for the byte after json", "code ```json", "code "},
		{"an ordinary code block", "code ```pyth", "code ```pyth"},
		{"leading whitespace", "  \n", ""},
		{"a bare object", " {\"name\": \"x\"", ""},
		{"an incomplete UTF-8 sequence", "caf\xc3", "caf"},
		{"a complete UTF-8 sequence", "café", "café"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Parser
			var got strings.Builder
			for _, pc := range p.Feed(tc.chunk) {
				require.Nil(t, pc.Block)
				got.WriteString(pc.Text)
			}
			require.Equal(t, tc.now, got.String())
		})
	}
}

func TestParser_BlockFields(t *testing.T) {
	var p Parser
	ps := p.Feed("Hi\n```tool_call\n" + weather + "\n```\n")
	require.Len(t, ps, 3)
	require.Equal(t, "Hi\n", ps[0].Text)
	require.Equal(t, "\n", ps[2].Text)
	require.Equal(t, &Block{Format: FormatFence, Raw: "```tool_call\n" + weather + "\n```", Body: "\n" + weather + "\n",
		Calls: []Call{{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}}}, ps[1].Block)
}

func TestParser_NoBareJSON(t *testing.T) {
	p := Parser{NoBareJSON: true}
	got := append([]Piece(nil), p.Feed(" "+weather)...)
	got = append(got, p.Close()...)
	require.Equal(t, []Piece{{Text: " " + weather}}, got)
	require.True(t, p.NoBareJSON, "kept after Close")
}

func TestParser_ReusableAfterClose(t *testing.T) {
	var p Parser
	p.Feed("Hello ```tool_call\n{")
	p.Close()
	var got []Piece
	got = append(got, p.Feed(" "+weather)...)
	got = append(got, p.Close()...)
	require.Len(t, got, 1)
	require.Equal(t, FormatBare, got[0].Block.Format)
}

func TestParser_Errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		is   []error
	}{
		{"bad JSON", "<tool_call>{x}</tool_call>", []error{ErrBadJSON}},
		{"not a call", "<tool_call>[1]</tool_call>", []error{ErrNotCall}},
		{"empty", "<tool_call></tool_call>", []error{ErrEmptyBlock}},
		{"not closed and bad JSON", "<tool_call>{", []error{ErrNotClosed, ErrBadJSON}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Parser
			ps := append(append([]Piece(nil), p.Feed(tc.in)...), p.Close()...)
			require.Len(t, ps, 1)
			for _, e := range tc.is {
				require.ErrorIs(t, ps[0].Block.Err, e)
			}
		})
	}
}
