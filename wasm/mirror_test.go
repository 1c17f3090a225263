package wasm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// copyOf is the page's copy of one session that js/mirror.js keeps in worker mode.
type copyOf struct {
	usage jsonv.Number
	msgs  []jsonv.RawMessage
}

// apply applies Changes to copies as js/mirror.js does.
func apply(t *testing.T, copies map[int64]*copyOf, changes []byte) {
	t.Helper()
	var cs []struct {
		Session int64        `json:"session"`
		Gone    bool         `json:"gone"`
		Usage   jsonv.Number `json:"usage"`
		Keep    [][2]int     `json:"keep"`
		Add     int          `json:"add"`
	}
	list, rest, _ := bytes.Cut(changes, []byte("\n"))
	require.NoError(t, json.Unmarshal(list, &cs), string(changes))
	lines := splitPacked(t, string(rest))
	for _, c := range cs {
		if c.Gone {
			delete(copies, c.Session)
			continue
		}
		old := copies[c.Session]
		if old == nil {
			old = &copyOf{}
		}
		var msgs []jsonv.RawMessage
		for _, r := range c.Keep {
			msgs = append(msgs, old.msgs[r[0]:r[0]+r[1]]...)
		}
		require.LessOrEqual(t, c.Add, len(lines), "more added than the lines hold")
		copies[c.Session] = &copyOf{usage: c.Usage, msgs: append(msgs, lines[:c.Add]...)}
		lines = lines[c.Add:]
	}
	require.Empty(t, lines, "messages that no change adds")
}

// splitPacked reads the messages Changes adds as js/pack.js splitPacked does, each as
// the JSON of the message it stands for (a text message as session.history gives it).
func splitPacked(t *testing.T, s string) []jsonv.RawMessage {
	t.Helper()
	var out []jsonv.RawMessage
	for s != "" {
		letter := s[0]
		if letter == 'j' {
			msg, rest, ok := strings.Cut(s[1:], "\n")
			require.True(t, ok, "a JSON message ends its line: %q", s)
			require.True(t, json.Valid([]byte(msg)), "one JSON message: %s", msg)
			out = append(out, jsonv.RawMessage(msg))
			s = rest
			continue
		}
		num, rest, ok := strings.Cut(s[1:], ":")
		require.True(t, ok, "a length and a colon after the letter: %q", s)
		n, err := strconv.Atoi(num)
		require.NoError(t, err, "the length: %q", s)
		// n is in UTF-16 code units, as the page counts.
		i := 0
		for units := 0; units < n; {
			r, size := utf8.DecodeRuneInString(rest[i:])
			require.NotZero(t, size, "the text ends before its length: %q", s)
			units += utf16.RuneLen(r)
			i += size
		}
		text := rest[:i]
		s = rest[i:]
		var m any
		switch letter {
		case 's', 'u', 'a':
			m = struct {
				Role    string `json:"role"`
				Content []part `json:"content"`
			}{map[byte]string{'s': "system", 'u': "user", 'a': "assistant"}[letter], []part{{"text", text}}}
		case 'p':
			m = struct {
				Role    string `json:"role"`
				Content []part `json:"content"`
				Prefix  bool   `json:"prefix"`
			}{"assistant", []part{{"text", text}}, true}
		default:
			require.Failf(t, "an unknown letter", "%q", s)
		}
		raw, err := json.Marshal(m)
		require.NoError(t, err)
		out = append(out, raw)
	}
	return out
}

type part struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// requireMirrored checks that the page's copies are what the synchronous query answers.
func requireMirrored(t *testing.T, p *fakePage, copies map[int64]*copyOf, keys ...int64) {
	t.Helper()
	require.Len(t, copies, len(keys))
	for _, k := range keys {
		c := copies[k]
		require.NotNil(t, c, "session %d", k)
		h := decodeMsg(t, p.h.Query(fmt.Appendf(nil, `{"type":"history","id":0,"session":%d}`, k)))
		u := decodeMsg(t, p.h.Query(fmt.Appendf(nil, `{"type":"usage","id":0,"session":%d}`, k)))
		raw, err := json.Marshal(c.msgs)
		require.NoError(t, err)
		var msgs any
		require.NoError(t, json.Unmarshal(raw, &msgs))
		require.Equal(t, compact(t, h["value"]), compact(t, msgs), "history of %d", k)
		require.Equal(t, u["value"].(map[string]any)["contextUsage"], c.usage, "usage of %d", k)
	}
}

// TestMirror_Changes: after each step, the changes bring the page's copy to what the
// module holds, and carry only what the copy lacks.
func TestMirror_Changes(t *testing.T) {
	p := newPage(t)
	m := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	long := strings.Repeat("x", 120)
	for _, step := range []struct {
		name string
		do   func()
		want string // the changes, exactly
		live []int64
	}{
		{"nothing yet", func() {}, ``, nil},
		{"create", func() {
			p.ok("create", `"session":1,"initialPrompts":[{"role":"system","content":"be brief"}],"options":{"backend":{"kind":"scripted","window":50,"turns":[{"text":"one"},{"text":"two"},{"text":"three"}]}}`)
		}, `[{"session":1,"usage":6,"add":1}]` + "\ns8:be brief", []int64{1}},
		{"unchanged", func() { p.ok("hello", helloVersion) }, ``, []int64{1}},
		{"prompt: only the new messages", func() { p.ok("prompt", `"session":1,"input":"hi"`) },
			`[{"session":1,"usage":16,"spent":{"inputTokens":11,"outputTokens":1,"steps":1,"estimatedSteps":1,"cachedTokens":0},"keep":[[0,1]],"add":2}]` + "\nu2:hia3:one", []int64{1}},
		{"a failed prompt leaves no change", func() {
			p.fails("prompt", `"session":1,"input":"`+strings.Repeat("y", 400)+`"`, "QuotaExceededError")
		}, ``, []int64{1}},
		{"clone: the whole history for the new key", func() { p.ok("clone", `"session":1,"clone":2`) },
			`[{"session":2,"usage":16,"spent":{"inputTokens":11,"outputTokens":1,"steps":1,"estimatedSteps":1,"cachedTokens":0},"add":3}]` + "\ns8:be briefu2:hia3:one", []int64{1, 2}},
		{"eviction: the oldest turn goes, the initial prompt and the rest stay", func() { p.ok("prompt", `"session":1,"input":"`+long+`"`) },
			`[{"session":1,"usage":50,"spent":{"inputTokens":61,"outputTokens":2,"steps":2,"estimatedSteps":2,"cachedTokens":0},"keep":[[0,1],[2,1]],"add":2}]` + "\nu120:" + long + "a3:two", []int64{1, 2}},
		{"destroy", func() { p.ok("destroy", `"session":2`) }, `[{"session":2,"gone":true}]`, []int64{1}},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.do()
			changes := m.Changes()
			require.Equal(t, step.want, string(changes))
			if changes != nil {
				apply(t, copies, changes)
			}
			requireMirrored(t, p, copies, step.live...)
			require.Nil(t, m.Changes(), "reported twice")
		})
	}
}

// TestMirror_AddedInOrder: when several sessions changed, each change takes its own
// messages from those added, in the order the changes come.
func TestMirror_AddedInOrder(t *testing.T) {
	p := newPage(t)
	m := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	for _, k := range []string{"1", "2", "3"} {
		p.ok("create", `"session":`+k+`,"initialPrompts":[{"role":"system","content":"session `+k+`"}],"options":{`+script(`{"text":"one `+k+`"}`)+`}`)
	}
	changes := m.Changes()
	require.Equal(t, `[{"session":1,"usage":7,"add":1},{"session":2,"usage":7,"add":1},{"session":3,"usage":7,"add":1}]`+"\ns9:session 1s9:session 2s9:session 3", string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1, 2, 3)
	p.ok("prompt", `"session":3,"input":"to three"`)
	p.ok("prompt", `"session":1,"input":"to one"`)
	apply(t, copies, m.Changes())
	requireMirrored(t, p, copies, 1, 2, 3)
}

// TestMirror_OnlyChangedSessions: a Mirror reports the sessions that changed since its
// last report, whichever way they changed, and each Mirror of a handler keeps its own
// account: the sessions open before it existed are all new to it.
func TestMirror_OnlyChangedSessions(t *testing.T) {
	p := newPage(t)
	for _, k := range []string{"1", "2", "3"} {
		p.ok("create", `"session":`+k+`,"initialPrompts":[{"role":"system","content":"session `+k+`"}],"options":{`+script(`{"text":"one `+k+`"}`)+`}`)
	}
	first := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	changes := first.Changes()
	require.Equal(t, `[{"session":1,"usage":7,"add":1},{"session":2,"usage":7,"add":1},{"session":3,"usage":7,"add":1}]`+"\ns9:session 1s9:session 2s9:session 3", string(changes), "the sessions open before the mirror")
	apply(t, copies, changes)
	p.ok("prompt", `"session":2,"input":"to two"`)
	changes = first.Changes()
	require.Equal(t, `[{"session":2,"usage":`, string(changes[:len(`[{"session":2,"usage":`)]), "the prompted session alone: %s", changes)
	require.NotContains(t, string(changes), `"session":1`)
	require.NotContains(t, string(changes), `"session":3`)
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1, 2, 3)

	second := NewMirror(p.h)
	require.Contains(t, string(second.Changes()), `{"session":3,"usage":7,"add":1}]`, "a new mirror is told of every session")
	require.Nil(t, first.Changes(), "the second mirror's report is not the first's")
	p.ok("destroy", `"session":1`)
	p.ok("create", `"session":4,"options":{`+script(`{"text":"one 4"}`)+`}`)
	p.ok("destroy", `"session":4`) // never reported: nothing to take back
	require.Equal(t, `[{"session":1,"gone":true}]`, string(first.Changes()))
	require.Equal(t, `[{"session":1,"gone":true}]`, string(second.Changes()))
}

// BenchmarkMirror_ChangesManySessions: the worker's cost after a one-step prompt on one
// of 200 open sessions (make bench-peers' one-step loops keep 200 open): the mirror looks
// at the session that changed, not at all of them.
func BenchmarkMirror_ChangesManySessions(b *testing.B) {
	p := newPage(&testing.T{})
	for k := 1; k <= 200; k++ {
		p.ok("create", fmt.Sprintf(`"session":%d,"options":{"backend":{"kind":"scripted","window":100000000}}`, k))
	}
	m := NewMirror(p.h)
	m.Changes()
	b.ResetTimer()
	for i := range b.N {
		p.ok("prompt", fmt.Sprintf(`"session":%d,"input":"hi"`, 1+i%200))
		if m.Changes() == nil {
			b.Fatal("no change reported")
		}
	}
}

// TestMirror_Rollback: an aborted prompt, seen midway (its user message already in the
// history), is taken back: the copy keeps what was there before.
func TestMirror_Rollback(t *testing.T) {
	p := newPage(t)
	m := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	p.ok("create", `"session":1,"options":{`+script(`{"text":"one"}`, `{"chunks":["par"],"hang":true}`, `{"text":"after"}`)+`}`)
	p.ok("prompt", `"session":1,"input":"a"`)
	apply(t, copies, m.Changes())
	id := p.request("prompt", `"session":1,"input":"b","stream":true`)
	require.Eventually(t, func() bool {
		p.drain()
		return len(p.logged("chunk")) > 0
	}, 5*time.Second, time.Millisecond)
	changes := m.Changes()
	require.Equal(t, `[{"session":1,"usage":15,"spent":{"inputTokens":5,"outputTokens":1,"steps":1,"estimatedSteps":1,"cachedTokens":0},"keep":[[0,2]],"add":1}]`+"\nu1:b", string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)

	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	changes = m.Changes()
	require.Equal(t, `[{"session":1,"usage":10,"spent":{"inputTokens":5,"outputTokens":1,"steps":1,"estimatedSteps":1,"cachedTokens":0},"keep":[[0,2]]}]`, string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)

	p.ok("prompt", `"session":1,"input":"c"`) // appends to a copy of the array: matched by identity
	changes = m.Changes()
	require.Equal(t, `[{"session":1,"usage":21,"spent":{"inputTokens":20,"outputTokens":3,"steps":2,"estimatedSteps":2,"cachedTokens":0},"keep":[[0,2]],"add":2}]`+"\nu1:ca5:after", string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)
}

// BenchmarkMirror_Changes: the worker's cost per module run, on a 10,000-message
// history that grows by one turn between reports.
func BenchmarkMirror_Changes(b *testing.B) {
	p := mirrorBenchPage(`{"role":"user","content":"message %d"}`)
	m := NewMirror(p.h)
	m.Changes()
	b.ResetTimer()
	for range b.N {
		p.ok("append", `"session":1,"input":"more"`)
		if m.Changes() == nil {
			b.Fatal("no change reported")
		}
	}
}

// TestMirror_Packed: the messages a change adds cross packed, a text message as its
// letter, its length in UTF-16 code units and its text as it is (newlines included: the
// lengths frame it), any other message as j, its JSON and a newline, and the page's
// copy reads them back as the history query answers.
func TestMirror_Packed(t *testing.T) {
	const (
		call   = `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{"q":"é😀"}}}]}`
		result = `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":[{"type":"text","value":"ok\nno"}]}}]}`
		// As session.history gives them.
		callOut   = `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","callId":"c1","name":"f","arguments":{"q":"é😀"}}}]}`
		resultOut = `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","callId":"c1","name":"f","result":[{"type":"text","value":"ok\nno"}]}}]}`
		image     = `{"role":"user","content":[{"type":"text","value":"a"},{"type":"image","value":{"base64":"AAAA","type":"bytes"}}]}`
	)
	// j is a JSON message packed: its line.
	j := func(msg string) string { return "j" + msg + "\n" }
	for _, tc := range []struct {
		name string
		msgs string // initialPrompts
		want string // what the change adds
	}{
		{"a text with newlines", `{"role":"user","content":"one\ntwo\n"}`, "u8:one\ntwo\n"},
		{"a text with a line of its own that reads as a message", `{"role":"user","content":"a\nu1:b"}`, "u6:a\nu1:b"},
		{"non-ASCII: a unit for each character", `{"role":"user","content":"héllo wörld"}`, "u11:héllo wörld"},
		{"astral: two units for each character", `{"role":"user","content":"😀 ok 𝄞"}`, "u8:😀 ok 𝄞"},
		{"an empty text", `{"role":"system","content":""},{"role":"user","content":""}`, "s0:u0:"},
		{"quotes and backslashes as they are", `{"role":"user","content":"say \"hi\" \\ bye"}`, `u14:say "hi" \ bye`},
		{"an assistant's prefix last", `{"role":"user","content":"hi"},{"role":"assistant","content":"Sure","prefix":true}`, "u2:hip4:Sure"},
		{"a call and its result as JSON lines, a newline in a value escaped", `{"role":"user","content":"go"},` + call + `,` + result,
			"u2:go" + j(callOut) + j(resultOut)},
		{"text and an image as JSON", image, j(image)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			m := NewMirror(p.h)
			copies := map[int64]*copyOf{}
			p.ok("create", `"session":1,"initialPrompts":[`+tc.msgs+`],"options":{"expectedInputs":[{"type":"text"},{"type":"image"},{"type":"tool-call"},{"type":"tool-response"}],`+script(`{"text":"x"}`)+`}`)
			changes := m.Changes()
			_, added, ok := bytes.Cut(changes, []byte("\n"))
			require.True(t, ok, "messages added: %s", changes)
			require.Equal(t, tc.want, string(added))
			apply(t, copies, changes)
			requireMirrored(t, p, copies, 1)
		})
	}
}

// BenchmarkMirror_ChangesCreate: the worker's cost after create() on 10,000 text
// messages: every message crosses to the page's new copy.
func BenchmarkMirror_ChangesCreate(b *testing.B) {
	p := mirrorBenchPage(`{"role":"user","content":"message %d, with \"quotes\" and a line\nbreak"}`)
	b.ResetTimer()
	for range b.N {
		if NewMirror(p.h).Changes() == nil {
			b.Fatal("no change reported")
		}
	}
}

// mirrorBenchPage is a page with session 1 created on 10,000 messages, each msg (a
// message's JSON) with its index for %d.
func mirrorBenchPage(msg string) *fakePage {
	p := newPage(&testing.T{})
	var msgs strings.Builder
	for i := range 10000 {
		if i > 0 {
			msgs.WriteByte(',')
		}
		fmt.Fprintf(&msgs, msg, i)
	}
	p.ok("create", `"session":1,"initialPrompts":[`+msgs.String()+`],"options":{"backend":{"kind":"scripted","window":10000000}}`)
	return p
}

// TestMirror_ActiveTools: a session that searches for its tools mirrors its active set
// with the history (a snapshot in worker mode keeps it), and the usage query answers it;
// a session whose tools fit has none.
func TestMirror_ActiveTools(t *testing.T) {
	p := newPage(t)
	m := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	var tools []string
	for i := 0; i < 300; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"page_action_%d","description":"Runs action %d of this page.","inputSchema":{"type":"object"},"hasExecute":true,"execute":7}`, i, i))
	}
	tools[150] = weatherTool
	p.ok("create", `"session":1,"options":{"tools":[`+strings.Join(tools, ",")+`],"backend":{"kind":"scripted","window":4096,"turns":[`+
		`{"calls":[{"name":"search_tools","arguments":{"query":"weather in a city"}}]},{"text":"Found."}]}}`)
	p.ok("create", `"session":2,"options":{"tools":[`+weatherTool+`],`+script(`{"text":"one"}`)+`}`)
	require.Contains(t, string(m.Changes()), `[{"session":1,"usage":`)
	p.ok("prompt", `"session":1,"input":"Find the weather tool."`)
	changes := m.Changes()
	require.Contains(t, string(changes), `"activeTools":["search_tools","weather"],"add":4}]`)
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)
	u := decodeMsg(t, p.h.Query([]byte(`{"type":"usage","id":0,"session":1}`)))
	require.Equal(t, []any{"search_tools", "weather"}, u["value"].(map[string]any)["activeTools"])
	u = decodeMsg(t, p.h.Query([]byte(`{"type":"usage","id":0,"session":2}`)))
	require.NotContains(t, u["value"], "activeTools", "the tools fit: no search")
}

// TestAppendActive: the active set as the mirror writes it is valid JSON in every shape,
// and absent only for a session that does not search.
func TestAppendActive(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		want  string
	}{
		{"no search: nothing", nil, `{"a":1}`},
		{"an empty set: an empty array", []string{}, `{"a":1,"activeTools":[]}`},
		{"one name", []string{"search_tools"}, `{"a":1,"activeTools":["search_tools"]}`},
		{"names escaped", []string{"search_tools", `we"ather`}, `{"a":1,"activeTools":["search_tools","we\"ather"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := append(appendActive([]byte(`{"a":1`), tc.names), '}')
			require.JSONEq(t, tc.want, string(got))
		})
	}
}
