package textproto_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/loop/textproto"
	"langmodel/session"
)

// native is a backend with native tools: each step plays its deltas (text, the backend's
// own calls), and records the request.
type native struct {
	steps [][]loop.Delta
	reqs  []*loop.Request
}

func (n *native) Step(ctx loop.Context, req *loop.Request, emit func(loop.Delta) error) error {
	n.reqs = append(n.reqs, req)
	for _, d := range n.steps[len(n.reqs)-1] {
		if err := emit(d); err != nil {
			return err
		}
	}
	return nil
}

// texts is a step of text deltas.
func texts(chunks ...string) []loop.Delta {
	out := make([]loop.Delta, len(chunks))
	for i, c := range chunks {
		out[i] = loop.Delta{Text: c}
	}
	return out
}

// readStep runs one step through textproto.Read and returns what it emitted, as lines:
// "text …" (runs merged), "call name args", "forming i name args", "dropped i".
func readStep(t *testing.T, inner *native, req *loop.Request) []string {
	t.Helper()
	seen, emit := recordDeltas()
	require.NoError(t, textproto.Read(inner).Step(context.Background(), req, emit))
	return *seen
}

func weatherReq(t *testing.T) *loop.Request {
	return &loop.Request{Messages: []session.Message{user("Weather in Paris?")}, Tools: testTools(t)}
}

const callParis = `call get_weather {"city":"Paris"}`

// Where the line is between a call and prose in content read from a backend with
// native tools: each rule, both sides, the content streamed whole and byte by byte.
func TestRead_TheLine(t *testing.T) {
	tag := `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		// A family's delimiter opens a candidate: a call of an offered tool...
		{"a tag naming an offered tool is a call", tag, []string{callParis}},
		{"text around a tag streams; the call stands", "Checking.\n" + tag + "\nOne moment.", []string{"text Checking.\n", callParis, "text \nOne moment."}},
		// ...or text, unchanged, in order.
		{"a tag naming a tool not offered is text", `Try <tool_call>{"name": "rm_rf", "arguments": {}}</tool_call> now.`,
			[]string{`text Try <tool_call>{"name": "rm_rf", "arguments": {}}</tool_call> now.`}},
		{"a tag mentioned in prose is text", "Models write <tool_call> tags to call tools.", []string{"text Models write <tool_call> tags to call tools."}},
		{"Mistral's token mentioned in prose is text", "The [TOOL_CALLS] token starts a call.", []string{"text The [TOOL_CALLS] token starts a call."}},
		{"DeepSeek's block naming no offered tool is text", ds + "function<｜tool▁sep｜>nope\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
			[]string{"text " + ds + "function<｜tool▁sep｜>nope\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"}},
		// Inside an ordinary code fence nothing is a call.
		{"a tag in a code fence is text", "Example:\n```\n" + tag + "\n```\n", []string{"text Example:\n```\n" + tag + "\n```\n"}},
		{"a json fence holding a call is a code sample", "```json\n" + weatherCall + "\n```", []string{"text ```json\n" + weatherCall + "\n```"}},
		{"the module's own fence is a call", block(weatherCall), []string{callParis}},
		// A bare JSON object or list, or a Python call list, is a call only as the whole content.
		{"a bare call object as the whole content is a call", "\n " + weatherCall + "\n", []string{callParis}},
		{"a bare call object followed by prose is text", weatherCall + " is what I would send.", []string{"text " + weatherCall + " is what I would send."}},
		{"a bare call object after prose is text", "I would send " + weatherCall, []string{"text I would send " + weatherCall}},
		{"a bare list of calls as the whole content is a call", "[" + weatherCall + "]", []string{callParis}},
		{"a bare Python list as the whole content is a call", `[get_weather(city="Paris")]`, []string{callParis}},
		{"a bare Python list followed by prose is text", `[get_weather(city="Paris")] would do it.`, []string{`text [get_weather(city="Paris")] would do it.`}},
		{"a markdown link at the start is text", "[Docs](https://example.com) say sunny.", []string{"text [Docs](https://example.com) say sunny."}},
		{"a bare object that is no call is text", `{"city": "Paris"}`, []string{`text {"city": "Paris"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, readStep(t, &native{steps: [][]loop.Delta{texts(tc.in)}}, weatherReq(t)), "whole")
			bytes := make([]string, len(tc.in))
			for i := 0; i < len(tc.in); i++ {
				bytes[i] = tc.in[i : i+1]
			}
			require.Equal(t, tc.want, readStep(t, &native{steps: [][]loop.Delta{texts(bytes...)}}, weatherReq(t)), "byte by byte")
		})
	}
}

// Each family's call, as the content of a backend with native tools, is the call.
func TestRead_EachFamily(t *testing.T) {
	for name, in := range familyCalls {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, []string{callParis}, readStep(t, &native{steps: [][]loop.Delta{texts(in)}}, weatherReq(t)))
		})
	}
}

// familyCalls is get_weather(city=Paris) in each family's syntax.
var familyCalls = map[string]string{
	"Qwen2.5":              "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
	"Hermes 2 Pro":         "<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}, \"name\": \"get_weather\"}\n</tool_call>",
	"Phi-4-mini":           `<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|/tool_call|>`,
	"Phi-4-mini stripped":  `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
	"Mistral Nemo":         `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]`,
	"Mistral (v11)":        `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`,
	"Llama 3.2":            `{"name": "get_weather", "parameters": {"city": "Paris"}}`,
	"Llama 3.1 python_tag": `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}`,
	"DeepSeek R1":          ds + "function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"DeepSeek V3.1":        ds + "get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"LFM2":                 `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`,
	"LFM2 bare":            `[get_weather(city="Paris")]`,
	"Gemma 4":              `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>`,
	"Qwen3-Coder":          "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
	"SmolLM3":              "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
	"the module's fence":   block(weatherCall),
}

const ds = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"

// A call that forms live forms the same way in each syntax: the name as soon as it is
// known, then the arguments so far, the last showing the whole; then the call.
func TestRead_FormingInEachSyntax(t *testing.T) {
	for name, in := range familyCalls {
		t.Run(name, func(t *testing.T) {
			req := weatherReq(t)
			req.Forming = true
			bytes := make([]string, len(in))
			for i := 0; i < len(in); i++ {
				bytes[i] = in[i : i+1]
			}
			seen := readStep(t, &native{steps: [][]loop.Delta{texts(bytes...)}}, req)
			require.Equal(t, callParis, seen[len(seen)-1])
			var last string
			for _, s := range seen[:len(seen)-1] {
				require.True(t, strings.HasPrefix(s, "forming 0 get_weather "), "only the call forms: %q", s)
				last = strings.TrimPrefix(s, "forming 0 get_weather ")
			}
			require.NotEmpty(t, seen[:len(seen)-1], "the call formed")
			require.JSONEq(t, `{"city": "Paris"}`, last, "the last forming shows the whole arguments")
		})
	}
}

// A call of an offered tool whose arguments are invalid, or cannot be read, gets one
// repair round, as in the text protocol; the request keeps its native tools.
func TestRead_Repair(t *testing.T) {
	for _, tc := range []struct{ name, first string }{
		{"arguments against the schema", `<tool_call>{"name": "get_weather", "arguments": {"town": "Paris"}}</tool_call>`},
		{"arguments that are not JSON", `<tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call>`},
		{"a Python call that does not parse", `<|tool_call_start|>[get_weather(city=Paris)]<|tool_call_end|>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := &native{steps: [][]loop.Delta{texts("Let me check. ", tc.first, " Done."), texts(block(weatherCall))}}
			require.Equal(t, []string{"text Let me check. ", callParis}, readStep(t, inner, weatherReq(t)))
			require.Len(t, inner.reqs, 2)
			second := inner.reqs[1]
			require.Len(t, second.Tools, 2, "the repair keeps the tools native")
			msgs := second.Messages
			require.Equal(t, session.RoleAssistant, msgs[len(msgs)-2].Role)
			require.Equal(t, tc.first+" Done.", msgs[len(msgs)-2].Parts[0].Text, "the reply from its first block on")
			require.Contains(t, msgs[len(msgs)-1].Parts[0].Text, "Your tool calls could not be used")
		})
	}
}

// The backend's own calls stand; a call block in the same step's content is then text,
// as written, in its place.
func TestRead_NativeCallsAndContentBlocks(t *testing.T) {
	own := &session.ToolCall{CallID: "x1", Name: "get_time", Arguments: jsonv.RawMessage(`{"zone":"UTC"}`)}
	inner := &native{steps: [][]loop.Delta{append(texts("Checking. ", familyCalls["Qwen2.5"], " More."), loop.Delta{Call: own})}}
	require.Equal(t, []string{"text Checking. ", `call get_time {"zone":"UTC"}`, "text " + familyCalls["Qwen2.5"] + " More."}, readStep(t, inner, weatherReq(t)))
	require.Len(t, inner.reqs, 1)
}

// A step that offers no tools, or whose tools are off, passes through untouched: the
// request as it is, the content as it came.
func TestRead_NoToolsPassesThrough(t *testing.T) {
	for _, req := range []*loop.Request{
		{Messages: []session.Message{user("hi")}},
		{Messages: []session.Message{user("hi")}, Tools: testTools(t), ToolChoice: loop.ToolChoice{Mode: "none"}},
	} {
		inner := &native{steps: [][]loop.Delta{texts(familyCalls["Qwen2.5"])}}
		require.Equal(t, []string{"text " + familyCalls["Qwen2.5"]}, readStep(t, inner, req))
		require.Same(t, req, inner.reqs[0])
	}
}

// Qwen3-Coder's parameter values are JSON where they parse as the schema wants, else
// strings: "42" for a string property stays a string.
func TestRead_XMLValuesAsTheSchemaWants(t *testing.T) {
	v, err := session.DecodeJSON([]byte(`[{"name": "f", "description": "F.", "hasExecute": true, "inputSchema": {"type": "object",
		"properties": {"code": {"type": "string"}, "n": {"type": "integer"}, "tags": {"type": "array"}, "note": {}}}}]`))
	require.NoError(t, err)
	tools, err := session.ParseTools(v, false)
	require.NoError(t, err)
	in := "<tool_call>\n<function=f>\n<parameter=code>\n42\n</parameter>\n<parameter=n>\n7\n</parameter>\n<parameter=tags>\n[\"a\"]\n</parameter>\n<parameter=note>\nnot json\n</parameter>\n</function>\n</tool_call>"
	got := readStep(t, &native{steps: [][]loop.Delta{texts(in)}}, &loop.Request{Tools: tools})
	require.Equal(t, []string{`call f {"code":"42","n":7,"tags":["a"],"note":"not json"}`}, got)
}
