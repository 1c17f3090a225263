package wasm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// send writes msg into the port's inbox and hands it over, as js/port.js does.
func portSend(p *Port, msg string) {
	copy(p.Inbox(len(msg)), msg)
	p.Send(len(msg), 0)
}

// takeWithin takes the port's batch, waiting up to a second for goroutines the message
// woke to write (in the module they run in the resume between send and take).
func takeWithin(t *testing.T, p *Port, want int) []map[string]any {
	t.Helper()
	var got []map[string]any
	deadline := time.Now().Add(time.Second)
	for len(got) < want && time.Now().Before(deadline) {
		if b := p.Take(); b != nil {
			var batch []map[string]any
			require.NoError(t, json.Unmarshal(b, &batch), "a batch is one JSON array: %s", b)
			got = append(got, batch...)
			continue
		}
		time.Sleep(time.Millisecond)
	}
	return got
}

func TestPort_SendTakesOneBatch(t *testing.T) {
	p := NewPort()
	t.Cleanup(p.Handler().Close)
	var wakes atomic.Int32
	require.False(t, p.Connect(func() { wakes.Add(1) }), "nothing written yet")

	// hello and create are answered within Send: two sends, one batch, no wake.
	portSend(p, `{"type":"hello","id":1,"version":`+strconv.Itoa(ProtocolVersion)+`}`)
	portSend(p, `{"type":"create","id":2,"session":1,"options":{"backend":{"kind":"scripted","turns":[{"text":"hi"}]}}}`)
	require.Zero(t, wakes.Load(), "output the page pulls after its send wakes nobody")
	var batch []map[string]any
	require.NoError(t, json.Unmarshal(p.Take(), &batch))
	require.Len(t, batch, 2)
	require.Equal(t, []any{"reply", float64(1), "reply", float64(2)}, []any{batch[0]["type"], batch[0]["id"], batch[1]["type"], batch[1]["id"]})
	require.Nil(t, p.Take(), "taken once")

	// A prompt is answered by the session's goroutine: here it runs at once (natively),
	// in the module in the resume that follows the send.
	portSend(p, `{"type":"prompt","id":3,"session":1,"input":"x"}`)
	got := takeWithin(t, p, 1)
	require.Len(t, got, 1)
	require.Equal(t, "hi", got[0]["value"].(map[string]any)["text"])
}

func TestPort_WakesOnceForOutputNoSendTakes(t *testing.T) {
	p := NewPort()
	t.Cleanup(p.Handler().Close)
	// Written before the page connects: Connect says so, and nothing wakes.
	p.write([]byte(`{"type":"early"}`))
	var wakes atomic.Int32
	require.True(t, p.Connect(func() { wakes.Add(1) }))
	require.JSONEq(t, `[{"type":"early"}]`, string(p.Take()))

	// Written by a goroutine of the module's own (a timer, a fetch): one wake until taken.
	p.write([]byte(`{"type":"a"}`))
	p.write([]byte(`{"type":"b"}`))
	require.Equal(t, int32(1), wakes.Load())
	require.JSONEq(t, `[{"type":"a"},{"type":"b"}]`, string(p.Take()))
	p.write([]byte(`{"type":"c"}`))
	require.Equal(t, int32(2), wakes.Load(), "after a take, the next write wakes again")
	require.JSONEq(t, `[{"type":"c"}]`, string(p.Take()))
}

func TestPort_Query(t *testing.T) {
	p := NewPort()
	t.Cleanup(p.Handler().Close)
	p.Connect(func() {})
	portSend(p, `{"type":"create","id":1,"session":4,"initialPrompts":[{"role":"system","content":"Be brief."}],"options":{}}`)
	takeWithin(t, p, 1)
	q := `{"type":"history","session":4}`
	copy(p.Inbox(len(q)), q)
	var r map[string]any
	require.NoError(t, json.Unmarshal(p.Query(len(q)), &r))
	require.Equal(t, []any{map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "value": "Be brief."}}}}, r["value"])
	q = `{"type":"history","session":5}`
	copy(p.Inbox(len(q)), q)
	require.Contains(t, string(p.Query(len(q))), "InvalidStateError")
}

// A message larger than the inbox a Port keeps is handed to the handler whole, and the
// next message gets a small inbox again.
func TestPort_LargeMessage(t *testing.T) {
	p := NewPort()
	t.Cleanup(p.Handler().Close)
	p.Connect(func() {})
	msgs := make([]string, 0, 5000)
	for range 5000 {
		msgs = append(msgs, `{"role":"user","content":"a message of the history"}`)
	}
	create := `{"type":"create","id":1,"session":1,"options":{"backend":{"kind":"scripted","window":1000000}},"initialPrompts":[` + strings.Join(msgs, ",") + `]}`
	require.Greater(t, len(create), inboxKeep)
	portSend(p, create)
	got := takeWithin(t, p, 1)
	require.Len(t, got, 1)
	require.Nil(t, got[0]["error"])
	require.LessOrEqual(t, cap(p.Inbox(10)), inboxKeep)
	portSend(p, `{"type":"measure","id":2,"session":1,"input":"abcd"}`)
	require.Equal(t, float64(5), takeWithin(t, p, 1)[0]["value"])
}

// attachPort connects a new Port and returns send, which sends msg with attach (a packed
// history) and returns the one message the module answers, and query, which asks q
// synchronously.
func attachPort(t *testing.T) (send func(msg, attach string) map[string]any, query func(q string) string) {
	p := NewPort()
	t.Cleanup(p.Handler().Close)
	p.Connect(func() {})
	send = func(msg, attach string) map[string]any {
		copy(p.Inbox(len(msg)+len(attach)), msg+attach)
		p.Send(len(msg)+len(attach), len(attach))
		got := takeWithin(t, p, 1)
		require.Len(t, got, 1)
		return got[0]
	}
	query = func(q string) string {
		copy(p.Inbox(len(q)), q)
		return string(p.Query(len(q)))
	}
	return send, query
}

// A create request's history of text messages arrives packed after the message (its
// attachment, packed.go); what the handler cannot use that way is refused, and leaves
// no session behind.
func TestPort_PackedHistory(t *testing.T) {
	send, query := attachPort(t)
	history, units := pack(packed{'s', "Be brief."}, packed{'u', "héllo 😀"}, packed{'a', "hi"})
	create := func(id, fields string) string {
		return `{"type":"create","id":` + id + `,"session":1,"options":{}` + fields + `}`
	}
	unitsField := `,"textUnits":` + strconv.Itoa(units)

	for _, tc := range []struct{ name, msg, attach, want string }{
		{"a count that does not match", create("1", `,"textPrompts":2`+unitsField), history, "holds more"},
		{"both JSON and packed", create("2", `,"textPrompts":3,"initialPrompts":[]`+unitsField), history, "both as JSON and packed"},
		{"a count without the history", create("3", `,"textPrompts":3`+unitsField), "", "does not match"},
		{"an attachment no count reads", create("4", ""), history, "does not match"},
		{"an attachment on a message that is not create", `{"type":"measure","id":5,"session":1,"input":"x"}`, history, "an attachment only create reads"},
	} {
		e, _ := send(tc.msg, tc.attach)["error"].(map[string]any)
		require.NotNil(t, e, tc.name)
		require.Equal(t, "TypeError", e["name"], tc.name)
		require.Contains(t, e["message"], tc.want, tc.name)
		require.Contains(t, query(`{"type":"history","session":1}`), "InvalidStateError", "%s: no session is left behind", tc.name)
	}

	r := send(create("6", `,"textPrompts":3`+unitsField), history)
	require.Nil(t, r["error"])
	require.JSONEq(t, `{"type":"reply","id":0,"ok":true,"value":[
		{"role":"system","content":[{"type":"text","value":"Be brief."}]},
		{"role":"user","content":[{"type":"text","value":"héllo 😀"}]},
		{"role":"assistant","content":[{"type":"text","value":"hi"}]}]}`, query(`{"type":"history","session":1}`))
}

// A history with tool calls packed (text messages by their letter, the others as JSON,
// js/pack.js) makes the session the same history as JSON makes, or fails with the same
// error and leaves no session behind: for create() and for restore(), whose transcript
// is the session's own.
func TestPort_PackedHistoryAsJSON(t *testing.T) {
	send, query := attachPort(t)
	const (
		declared = `"options":{"expectedInputs":[{"type":"tool-call"},{"type":"tool-response"}]}`
		call     = `{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"c1","name":"f","arguments":{}}}]}`
		result   = `{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"c1","name":"f","result":"ok"}}]}`
		user     = `{"role":"user","content":"hi"}`
	)
	key := 0
	for _, tc := range []struct {
		name, options string
		msgs          []string
		err           string // the error's name, for both ways
	}{
		{"a call and its result", declared, []string{`{"role":"system","content":"be brief"}`, user, call, result, `{"role":"assistant","content":"done"}`}, ""},
		{"a call left unanswered", declared, []string{user, call}, ""},
		{"a tool result answering no call", declared, []string{user, result}, ""},
		{"a call id twice", declared, []string{call, call}, "SyntaxError"},
		{"a call not declared", `"options":{}`, []string{user, call, result}, "NotSupportedError"},
		{"a system message not first", declared, []string{user, `{"role":"system","content":"x"}`}, "TypeError"},
		{"a prefix not last", declared, []string{`{"role":"assistant","content":"x","prefix":true}`, call}, "SyntaxError"},
	} {
		for _, restore := range []string{"", `,"restore":{"initial":1,"usage":0}`} {
			name := tc.name
			if restore != "" {
				name += " (restore)"
			}
			if restore != "" && tc.err == "NotSupportedError" {
				continue // a restored transcript is the session's own: its calls need no declaration
			}
			var replies, histories [2]string
			for way := range 2 {
				key++
				msg := fmt.Sprintf(`{"type":"create","id":%d,"session":%d,%s%s`, key, key, tc.options, restore)
				var r map[string]any
				if way == 0 {
					r = send(msg+`,"initialPrompts":[`+strings.Join(tc.msgs, ",")+`]}`, "")
				} else {
					b, units := packJSON(t, tc.msgs...)
					r = send(msg+fmt.Sprintf(`,"textPrompts":%d,"textUnits":%d}`, len(tc.msgs), units), b)
				}
				e, _ := r["error"].(map[string]any)
				if tc.err != "" {
					require.NotNil(t, e, name)
					require.Equal(t, tc.err, e["name"], name)
				} else {
					require.Nil(t, e, name)
				}
				b, err := json.Marshal(e)
				require.NoError(t, err)
				replies[way] = string(b)
				histories[way] = strings.ReplaceAll(query(fmt.Sprintf(`{"type":"history","session":%d}`, key)), fmt.Sprintf("session key %d", key), "session key")
			}
			require.Equal(t, replies[0], replies[1], name)
			require.Equal(t, histories[0], histories[1], name)
			if tc.err != "" {
				require.Contains(t, histories[1], "InvalidStateError", "%s: no session is left behind", name)
			}
		}
	}
}
