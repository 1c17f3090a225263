package textproto

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParser checks that the parser never panics, never lets a call delimiter into the
// text, and gives the same result however the stream is split into chunks.
func FuzzParser(f *testing.F) {
	for _, s := range []string{
		"Hello", "```tool_call\n" + weather + "\n```", "a ```json\n" + weather + "\n``` b", "```json\n{\"a\":\"<tool_call>\"}\n```",
		"<tool_call>" + weather + "</tool_call>", "<function=f>{}</function>", " " + weather + " ", "```py\nx\n```\n<tool_call>",
		"```tool_call\n{\"name\":\"a\",\"arguments\":{\"s\":\"```\\\"\"}}\n```", "``` `` ` <tool_ </tool_call> <function=x y>", "é\xff\xc3",
	} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, s string, seed uint64) {
		whole := parse(t, []string{s})
		for _, line := range whole {
			if strings.HasPrefix(line, "T:") {
				require.False(t, hasDelimiter(line[2:]), "delimiter in text %q", line)
			}
		}
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		require.Equal(t, whole, parse(t, chunk(s, rng, 1+rng.IntN(24))))
		if len(s) < 512 {
			bytewise := make([]string, len(s))
			for i := 0; i < len(s); i++ {
				bytewise[i] = s[i : i+1]
			}
			require.Equal(t, whole, parse(t, bytewise))
		}
	})
}

// FuzzParser_Families: the family syntaxes, in both modes, never panic and read the same
// however the stream is split.
func FuzzParser_Families(f *testing.F) {
	for _, s := range []string{
		`[TOOL_CALLS][{"name":"a","arguments":{}}]`, `[TOOL_CALLS]a[ARGS]{"x":1}[TOOL_CALLS]b[ARG`, `<|tool_call|>[{"name":"a"}]<|/tool_call|>`,
		`<|python_tag|>{"name":"a","parameters":{}}; {"name":"b"}`, ds + "function<｜tool▁sep｜>a\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		`<|tool_call_start|>[a(x='y\'', n=[1,(2,)], d={'k': None})]<|tool_call_end|>`, ` [a(b="c")] `, `[a(b="c")] text`, `[Link](x)`,
		`<|tool_call>call:a{k:<|"|>v<|"|>,n:{m:[1]}}<tool_call|>`, "<tool_call>\n<function=a>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>",
		"```\n<tool_call>{}</tool_call>\n```", `[{"name":"a","arguments":{}}]`,
	} {
		f.Add(s, uint64(1), false)
		f.Add(s, uint64(2), true)
	}
	f.Fuzz(func(t *testing.T, s string, seed uint64, strict bool) {
		whole := parseMode(t, []string{s}, strict)
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		require.Equal(t, whole, parseMode(t, chunk(s, rng, 1+rng.IntN(24)), strict))
		if len(s) < 512 {
			bytewise := make([]string, len(s))
			for i := 0; i < len(s); i++ {
				bytewise[i] = s[i : i+1]
			}
			require.Equal(t, whole, parseMode(t, bytewise, strict))
		}
	})
}
