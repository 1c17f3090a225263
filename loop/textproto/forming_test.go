package textproto_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/loop"
	"langmodel/loop/textproto"
	"langmodel/session"
)

func TestFormingCall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format textproto.Format
		tag    string
		body   string
		want   string // "name|args"
	}{
		{"nothing yet", textproto.FormatFence, "", "\n", "|"},
		{"a name cut short is not yet a name", textproto.FormatFence, "", `{"name": "get_wea`, "|"},
		{"a whole name comes before its arguments", textproto.FormatFence, "", `{"name": "get_weather", "argu`, "get_weather|"},
		{"arguments cut short are what there is", textproto.FormatFence, "", `{"name": "get_weather", "arguments": {"city": "Pa`, `get_weather|{"city": "Pa`},
		{"whole arguments end at their value", textproto.FormatTag, "", "\n" + `{"name": "get_weather", "arguments": {"city": "Paris"}}` + "\n</tool_", `get_weather|{"city": "Paris"}`},
		{"parameters are arguments", textproto.FormatTag, "", `{"name": "get_time", "parameters": {"zone": "UTC"`, `get_time|{"zone": "UTC"`},
		{"arguments before the name wait for it", textproto.FormatFence, "", `{"arguments": {"city": "Paris"}, "name": "get_weather"`, `get_weather|{"city": "Paris"}`},
		{"OpenAI's wrapper waits for the finished call", textproto.FormatFence, "", `{"type": "function", "function": {"name": "get_weather", "arguments": {"ci`, "|"},
		{"the first call of an array", textproto.FormatFence, "", `[{"name": "get_weather", "arguments": {}}, {"name": "get_ti`, `get_weather|{}`},
		{"a function tag names the tool, the body is the arguments", textproto.FormatFunction, "get_weather", `{"city": "Ber`, `get_weather|{"city": "Ber`},
		{"a body that is not an object names nothing", textproto.FormatFence, "", `get_weather(city="Paris")`, "|"},
		{"a name that is not a string names nothing", textproto.FormatFence, "", `{"name": 42, "arguments": {}}`, "|{}"},
		{"a broken member ends the reading", textproto.FormatFence, "", `{"name": "get_weather", x: 1, "arguments": {}}`, "get_weather|"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, args := textproto.FormingCall(tc.format, tc.tag, []byte(tc.body))
			require.Equal(t, tc.want, name+"|"+string(args))
		})
	}
}

// formingStep runs one step of the wrapped fake with Request.Forming and returns what it
// emitted, the forming calls as "forming 0 name args" and "dropped 0", in order with the
// calls ("call name args") and text ("text ...").
func formingStep(t *testing.T, replies [][]string) []string {
	t.Helper()
	f := &fake{replies: replies}
	req := &loop.Request{Messages: []session.Message{user("Weather in Paris?")}, Tools: testTools(t), Forming: true}
	seen, emit := recordDeltas()
	require.NoError(t, textproto.Wrap(f, textproto.Options{}).Step(context.Background(), req, emit))
	return *seen
}

// recordDeltas returns what emit is given, as lines: "text …" (runs merged), "call name
// args", "forming i name args" and "dropped i", in order.
func recordDeltas() (*[]string, func(loop.Delta) error) {
	var seen []string
	return &seen, func(d loop.Delta) error {
		switch {
		case d.Forming != nil && d.Forming.Dropped:
			seen = append(seen, "dropped "+strconv.Itoa(d.Forming.Index))
		case d.Forming != nil:
			seen = append(seen, "forming "+strconv.Itoa(d.Forming.Index)+" "+d.Forming.Name+" "+d.Forming.Arguments)
		case d.Call != nil:
			seen = append(seen, "call "+d.Call.Name+" "+string(d.Call.Arguments))
		case d.Text != "":
			if n := len(seen) - 1; n >= 0 && strings.HasPrefix(seen[n], "text ") {
				seen[n] += d.Text
			} else {
				seen = append(seen, "text "+d.Text)
			}
		}
		return nil
	}
}

// TestWrap_Forming_EveryChunkBoundary splits each reply at every offset, and byte by
// byte: whatever the chunking, the text and calls are as without forming, every forming
// call is at its place with its tool and a prefix of the arguments as written, the last
// one is the whole, and nothing is dropped.
func TestWrap_Forming_EveryChunkBoundary(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		calls []string // "name args as written"
	}{
		{"a fence", "Let me check.\n```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris \\\"15e\\\" café\"}}\n```\n",
			[]string{`get_weather {"city": "Paris \"15e\" café"}`}},
		{"a tag", "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"UTC\"}}\n</tool_call>",
			[]string{`get_time {"zone": "UTC"}`}},
		{"a function tag", "<function=get_weather>{\"city\": \"Oslo\"}</function>",
			[]string{`get_weather {"city": "Oslo"}`}},
		{"a json fence", "```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n```",
			[]string{`get_weather {"city": "Rome"}`}},
		{"bare JSON", `  {"name": "get_time", "arguments": {"zone": "CET"}}`,
			[]string{`get_time {"zone": "CET"}`}},
		{"two blocks", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nand\n<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>",
			[]string{`get_weather {"city": "Paris"}`, `get_time {}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := formingStep(t, [][]string{{tc.reply}})
			plain := nonForming(whole)
			check := func(seen []string, label string) {
				require.Equal(t, plain, nonForming(seen), "%s: text and calls", label)
				last := map[int]string{}
				for _, s := range seen {
					require.False(t, strings.HasPrefix(s, "dropped"), "%s: %v", label, seen)
					if !strings.HasPrefix(s, "forming ") {
						continue
					}
					at, _ := strconv.Atoi(s[len("forming "):][:1])
					name, args, _ := strings.Cut(s[len("forming 0 "):], " ")
					wantName, wantArgs, _ := strings.Cut(tc.calls[at], " ")
					require.Equal(t, wantName, name, label)
					require.True(t, strings.HasPrefix(wantArgs, args), "%s: %q is no prefix of %q", label, args, wantArgs)
					last[at] = args
				}
				for at, args := range last {
					require.Equal(t, strings.SplitN(tc.calls[at], " ", 2)[1], args, "%s: the last forming of call %d is the whole", label, at)
				}
			}
			for k := 0; k <= len(tc.reply); k++ {
				check(formingStep(t, [][]string{{tc.reply[:k], tc.reply[k:]}}), "split at "+strconv.Itoa(k))
			}
			bytes := splitEvery(tc.reply, 1)
			seen := formingStep(t, [][]string{bytes})
			check(seen, "byte by byte")
			n := 0
			for _, s := range seen {
				if strings.HasPrefix(s, "forming ") {
					n++
				}
			}
			require.Greater(t, n, len(tc.calls), "byte by byte, each call shows forming, and grows: %v", seen)
		})
	}
}

// nonForming is what a step emitted beside forming calls.
func nonForming(seen []string) []string {
	var out []string
	for _, s := range seen {
		switch n := len(out) - 1; {
		case strings.HasPrefix(s, "forming ") || strings.HasPrefix(s, "dropped "):
		case n >= 0 && strings.HasPrefix(s, "text ") && strings.HasPrefix(out[n], "text "):
			out[n] += s[len("text "):]
		default:
			out = append(out, s)
		}
	}
	return out
}

func TestWrap_Forming(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies [][]string
		want    []string
	}{
		{"a block that cannot be read is dropped, and the repair forms again",
			[][]string{{"```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": ", "Paris}}\n```"}, {"```tool_call\n{\"name\": \"get_weather\", ", "\"arguments\": {\"city\": \"Paris\"}}\n```"}},
			[]string{"forming 0 get_weather {\"city\": ", "dropped 0", "forming 0 get_weather ", "forming 0 get_weather {\"city\": \"Paris\"}", `call get_weather {"city":"Paris"}`}},
		{"a good call before a broken block is dropped with it",
			[][]string{{"<tool_call>{\"name\": \"get_time\", ", "\"arguments\": {}}</tool_call>", "<tool_call>{\"name\": \"nope\"}</tool_call>"}, {"fine"}},
			[]string{"forming 0 get_time ", "forming 0 get_time {}", "dropped 0", "text fine"}},
		{"a tool that is not offered never forms",
			[][]string{{"```tool_call\n{\"name\": \"rm_rf\", ", "\"arguments\": {}}\n```"}, {"no"}},
			[]string{"text no"}},
		{"a call shown forming that fails validation is dropped; after the repair it still forms and comes",
			[][]string{{"<function=get_weather>", "{}</function>"}, {"<function=get_weather>", "{\"town\": 1}</function>"}},
			[]string{"forming 0 get_weather ", "dropped 0", "forming 0 get_weather ", `call get_weather {"town":1}`, `forming 0 get_weather {"town": 1}`}},
		{"a block left open at the end is read as it stands",
			[][]string{{"<tool_call>{\"name\": \"get_time\", ", "\"arguments\": {\"zone\": \"UTC\"}}"}},
			[]string{"forming 0 get_time ", `forming 0 get_time {"zone": "UTC"}`, `call get_time {"zone":"UTC"}`}},
		{"an unreadable block after the repair is dropped and becomes text",
			[][]string{{"```tool_call\n{\"name\": \"get_time\", ", "oops\n```"}, {"```tool_call\n{\"name\": \"get_time\", ", "oops\n```"}},
			[]string{"forming 0 get_time ", "dropped 0", "forming 0 get_time ", "dropped 0", `text {"name": "get_time", oops`}},
		{"arguments that stop being JSON show up to where they stop",
			[][]string{{"```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": ", "Paris", "}}\n```"}, {"ok"}},
			[]string{"forming 0 get_weather {\"city\": ", "dropped 0", "text ok"}},
		{"the second call of a step forms at its place",
			[][]string{{"<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>", "<tool_call>{\"name\": \"get_weather\", ", "\"arguments\": {\"city\": \"Oslo\"}}</tool_call>"}},
			[]string{"forming 1 get_weather ", `forming 1 get_weather {"city": "Oslo"}`, "call get_time {}", `call get_weather {"city":"Oslo"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, formingStep(t, tc.replies))
		})
	}
}

func TestWrap_NoFormingUnlessAsked(t *testing.T) {
	f := &fake{replies: [][]string{splitEvery(block(weatherCall), 3)}}
	req := &loop.Request{Messages: []session.Message{user("Weather in Paris?")}, Tools: testTools(t)}
	err := textproto.Wrap(f, textproto.Options{}).Step(context.Background(), req, func(d loop.Delta) error {
		require.Nil(t, d.Forming)
		return nil
	})
	require.NoError(t, err)
}

// FuzzWrap_Forming: whatever the model writes and however it is split, forming calls
// change nothing of what the step emits, name only tools offered, and each one shown is
// settled (dropped, or a call at its place naming its tool) by the end.
func FuzzWrap_Forming(f *testing.F) {
	for _, s := range []string{
		block(weatherCall), "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"zone\": \"U", "<function=get_weather>{\"city\": 1}</function>",
		"```json\n{\"name\": \"get_weather\", \"arguments\": {}}\n```", "{\"name\": \"get_time\", \"arguments\": {}} trailing", "```tool_call\n[{\"name\": \"get_time\"}, {\"name\": \"get_weather\"",
	} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = 1 + (n&0xff)%16
		plain := func(forming bool) ([]string, []loop.Forming) {
			fk := &fake{replies: [][]string{splitEvery(s, n), splitEvery(s, n+1)}}
			req := &loop.Request{Messages: []session.Message{user("?")}, Tools: testTools(t), Forming: forming}
			var seen []string
			var formed []loop.Forming
			_ = textproto.Wrap(fk, textproto.Options{}).Step(context.Background(), req, func(d loop.Delta) error {
				switch {
				case d.Forming != nil:
					formed = append(formed, *d.Forming)
				case d.Call != nil:
					seen = append(seen, "call "+d.Call.Name+" "+string(d.Call.Arguments))
				default:
					seen = append(seen, "text "+d.Text)
				}
				return nil
			})
			return nonForming(seen), formed
		}
		without, _ := plain(false)
		with, formed := plain(true)
		require.Equal(t, without, with)
		open := map[int]string{}
		for _, f := range formed {
			if f.Dropped {
				delete(open, f.Index)
				continue
			}
			require.Contains(t, []string{"get_weather", "get_time"}, f.Name)
			open[f.Index] = f.Name
		}
		var calls []string
		for _, c := range with {
			if name, ok := strings.CutPrefix(c, "call "); ok {
				calls = append(calls, strings.SplitN(name, " ", 2)[0])
			}
		}
		for at, name := range open {
			require.Less(t, at, len(calls), "call %d shown forming, never dropped, never came: %v", at, formed)
			require.Equal(t, name, calls[at])
		}
	})
}
