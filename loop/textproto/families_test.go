package textproto

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parseMode is parse with the Parser in the given mode (Strict: content of a native
// backend), checking that no family's delimiter reaches the text.
func parseMode(t testing.TB, chunks []string, strict bool) []string {
	t.Helper()
	p := Parser{Strict: strict}
	var out []string
	var text strings.Builder
	add := func(ps []Piece) {
		for _, pc := range ps {
			if pc.Block == nil {
				text.WriteString(pc.Text)
				continue
			}
			if text.Len() > 0 {
				out = append(out, "T:"+text.String())
				text.Reset()
			}
			b := pc.Block
			if b.Err != nil {
				out = append(out, "E:"+b.Format.String()+": "+b.Raw)
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

const ds = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"

// Each family's call syntax reads as the same call, in both modes, however the stream is
// cut (every point, byte by byte, pairs of points, random cuttings).
func TestParser_FamilySyntaxes(t *testing.T) {
	two := []string{callW, `C:get_time {"tz":"UTC"}`}
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"Hermes/Qwen tag, name first", `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, []string{callW}},
		{"Hermes tag, arguments first", "<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}, \"name\": \"get_weather\"}\n</tool_call>", []string{callW}},
		{"a tag with parameters", `<tool_call>{"name":"get_weather","parameters":{"city":"Paris"}}</tool_call>`, []string{callW}},
		{"Phi-4-mini tag", `<|tool_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}<|/tool_call|>`, []string{callW}},
		{"Phi-4-mini tag holding a list", `<|tool_call|>[{"name":"get_weather","arguments":{"city":"Paris"}},{"name":"get_time","arguments":{"tz":"UTC"}}]<|/tool_call|>`, two},
		{"Phi-4-mini's JSON with its tokens stripped", `{"name": "get_weather", "arguments": {"city": "Paris"}}`, []string{callW}},
		{"a bare list of call objects", ` [{"name":"get_weather","arguments":{"city":"Paris"}}, {"name":"get_time","arguments":{"tz":"UTC"}}] `, two},
		{"Mistral's JSON list", `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]`, []string{callW}},
		{"Mistral's list after text", "Let me check. [TOOL_CALLS][" + weather + "]", []string{"T:Let me check. ", callW}},
		{"Mistral's name[ARGS]", `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, []string{callW}},
		{"Mistral's name[ARGS], repeated", `[TOOL_CALLS]get_weather[ARGS]{"city":"Paris"}[TOOL_CALLS]get_time[ARGS]{"tz":"UTC"}`, two},
		{"Llama 3.x bare JSON with parameters", `{"name": "get_weather", "parameters": {"city": "Paris"}}`, []string{callW}},
		{"Llama 3.x python_tag", `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}`, []string{callW}},
		{"Llama 3.x python_tag, calls separated by ;", `<|python_tag|>{"name":"get_weather","parameters":{"city":"Paris"}}; {"name":"get_time","parameters":{"tz":"UTC"}}`, two},
		{"Llama 3.x python_tag closed by <|eom_id|>", `<|python_tag|>{"name":"get_weather","parameters":{"city":"Paris"}}<|eom_id|>`, []string{callW}},
		{"DeepSeek R1", ds + "function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", []string{callW}},
		{"DeepSeek R1, two calls", ds + "function<｜tool▁sep｜>get_weather\n```json\n{\"city\":\"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"tz\":\"UTC\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", two},
		{"DeepSeek V3.1", ds + "get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", []string{callW}},
		{"LFM2's tagged Python list", `<|tool_call_start|>[get_weather(city="Paris"), get_time(tz='UTC')]<|tool_call_end|>`, two},
		{"LFM2's Python literals", `<|tool_call_start|>[f(a=1, b=True, c=None, d=[1, 'x'], e={'k': -2.5}, g="q\"uote")]<|tool_call_end|>`,
			[]string{`C:f {"a":1,"b":true,"c":null,"d":[1,"x"],"e":{"k":-2.5},"g":"q\"uote"}`}},
		{"a bare Python list as the whole content", "\n[get_weather(city=\"Paris\")]\n", []string{callW}},
		{"Gemma 4", `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>`, []string{callW}},
		{"Gemma 4's numbers, lists and objects", `<|tool_call>call:f{n:1,ok:true,xs:[<|"|>a, b<|"|>,2],o:{k:<|"|>v<|"|>}}<tool_call|>`,
			[]string{`C:f {"n":1,"ok":true,"xs":["a, b",2],"o":{"k":"v"}}`}},
		{"Qwen3-Coder XML", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", []string{callW}},
		{"Qwen3-Coder XML values: JSON where they parse, else strings", "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=s>\nsay \"hi\"\n</parameter>\n</function>\n</tool_call>",
			[]string{`C:f {"n":3,"s":"say \"hi\""}`}},
		{"the module's own fence", "```tool_call\n" + weather + "\n```", []string{callW}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				for _, chunks := range splits(tc.in) {
					require.Equal(t, tc.want, parseMode(t, chunks, strict), "strict %v, chunks %q", strict, chunks)
				}
			}
		})
	}
}
