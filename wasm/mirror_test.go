package wasm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// copyOf is the page's copy of one session that js/mirror.js keeps in worker mode.
type copyOf struct {
	usage json.Number
	msgs  []json.RawMessage
}

// apply applies Changes to copies as js/mirror.js does.
func apply(t *testing.T, copies map[int64]*copyOf, changes []byte) {
	t.Helper()
	var cs []struct {
		Session int64       `json:"session"`
		Gone    bool        `json:"gone"`
		Usage   json.Number `json:"usage"`
		Keep    [][2]int    `json:"keep"`
		Add     int         `json:"add"`
	}
	list, rest, _ := bytes.Cut(changes, []byte("\n"))
	require.NoError(t, json.Unmarshal(list, &cs), string(changes))
	var lines []json.RawMessage
	if len(rest) > 0 {
		for _, l := range bytes.Split(rest, []byte("\n")) {
			require.True(t, json.Valid(l), "a line is one message: %s", l)
			lines = append(lines, l)
		}
	}
	for _, c := range cs {
		if c.Gone {
			delete(copies, c.Session)
			continue
		}
		old := copies[c.Session]
		if old == nil {
			old = &copyOf{}
		}
		var msgs []json.RawMessage
		for _, r := range c.Keep {
			msgs = append(msgs, old.msgs[r[0]:r[0]+r[1]]...)
		}
		require.LessOrEqual(t, c.Add, len(lines), "more added than the lines hold")
		copies[c.Session] = &copyOf{usage: c.Usage, msgs: append(msgs, lines[:c.Add]...)}
		lines = lines[c.Add:]
	}
	require.Empty(t, lines, "lines that no change adds")
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
		}, `[{"session":1,"usage":6,"add":1}]` + "\n" + `{"role":"system","content":[{"type":"text","value":"be brief"}]}`, []int64{1}},
		{"unchanged", func() { p.ok("hello", helloVersion) }, ``, []int64{1}},
		{"prompt: only the new messages", func() { p.ok("prompt", `"session":1,"input":"hi"`) },
			`[{"session":1,"usage":16,"keep":[[0,1]],"add":2}]` + "\n" + `{"role":"user","content":[{"type":"text","value":"hi"}]}` + "\n" + `{"role":"assistant","content":[{"type":"text","value":"one"}]}`, []int64{1}},
		{"a failed prompt leaves no change", func() {
			p.fails("prompt", `"session":1,"input":"`+strings.Repeat("y", 400)+`"`, "QuotaExceededError")
		}, ``, []int64{1}},
		{"clone: the whole history for the new key", func() { p.ok("clone", `"session":1,"clone":2`) },
			`[{"session":2,"usage":16,"add":3}]` + "\n" + `{"role":"system","content":[{"type":"text","value":"be brief"}]}` + "\n" + `{"role":"user","content":[{"type":"text","value":"hi"}]}` + "\n" + `{"role":"assistant","content":[{"type":"text","value":"one"}]}`, []int64{1, 2}},
		{"eviction: the oldest turn goes, the initial prompt and the rest stay", func() { p.ok("prompt", `"session":1,"input":"`+long+`"`) },
			`[{"session":1,"usage":50,"keep":[[0,1],[2,1]],"add":2}]` + "\n" + `{"role":"user","content":[{"type":"text","value":"` + long + `"}]}` + "\n" + `{"role":"assistant","content":[{"type":"text","value":"two"}]}`, []int64{1, 2}},
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

// TestMirror_LinesInOrder: when several sessions changed, each change takes its own
// messages from the lines, in the order the changes come.
func TestMirror_LinesInOrder(t *testing.T) {
	p := newPage(t)
	m := NewMirror(p.h)
	copies := map[int64]*copyOf{}
	for _, k := range []string{"1", "2", "3"} {
		p.ok("create", `"session":`+k+`,"initialPrompts":[{"role":"system","content":"session `+k+`"}],"options":{`+script(`{"text":"one `+k+`"}`)+`}`)
	}
	changes := m.Changes()
	require.Equal(t, 3, bytes.Count(changes, []byte("\n")), "one line per message: %s", changes)
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1, 2, 3)
	p.ok("prompt", `"session":3,"input":"to three"`)
	p.ok("prompt", `"session":1,"input":"to one"`)
	apply(t, copies, m.Changes())
	requireMirrored(t, p, copies, 1, 2, 3)
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
	require.Equal(t, `[{"session":1,"usage":15,"keep":[[0,2]],"add":1}]`+"\n"+`{"role":"user","content":[{"type":"text","value":"b"}]}`, string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)

	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	changes = m.Changes()
	require.Equal(t, `[{"session":1,"usage":10,"keep":[[0,2]]}]`, string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)

	p.ok("prompt", `"session":1,"input":"c"`) // appends to a copy of the array: matched by identity
	changes = m.Changes()
	require.Equal(t, `[{"session":1,"usage":21,"keep":[[0,2]],"add":2}]`+"\n"+`{"role":"user","content":[{"type":"text","value":"c"}]}`+"\n"+`{"role":"assistant","content":[{"type":"text","value":"after"}]}`, string(changes))
	apply(t, copies, changes)
	requireMirrored(t, p, copies, 1)
}

// BenchmarkMirror_Changes: the worker's cost per module run, on a 10,000-message
// history that grows by one turn between reports.
func BenchmarkMirror_Changes(b *testing.B) {
	p := newPage(&testing.T{})
	var msgs strings.Builder
	for i := range 10000 {
		if i > 0 {
			msgs.WriteByte(',')
		}
		fmt.Fprintf(&msgs, `{"role":"user","content":"message %d"}`, i)
	}
	p.ok("create", `"session":1,"initialPrompts":[`+msgs.String()+`],"options":{"backend":{"kind":"scripted","window":10000000}}`)
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
