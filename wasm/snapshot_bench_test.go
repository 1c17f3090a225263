package wasm

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPort_SnapshotRestore: a 10,000-message session (BenchmarkPort_CreateHistory's
// history: a system message, then user and assistant in turn; /calls: with a tool call
// and its result in every ten messages, as BenchmarkBrowser_SnapshotRestore's) saved and
// restored, as session.snapshot() and LanguageModel.restore() do it through the Port,
// against create({initialPrompts}) on the same history: create is create() with the
// history packed (js/pack.js), snapshot reads the history (packed, as the face asks it)
// and usage (the synchronous queries snapshot() makes), snapshot-json the same with the
// history as JSON, restore is the create request with restore, packed, and
// snapshot+restore both.
func BenchmarkPort_SnapshotRestore(b *testing.B) {
	for _, calls := range []bool{false, true} {
		name := "text"
		if calls {
			name = "calls"
		}
		b.Run(name, func(b *testing.B) { benchSnapshotRestore(b, calls) })
	}
}

func benchSnapshotRestore(b *testing.B, calls bool) {
	msgs := []string{`{"role":"system","content":"You are a benchmark."}`}
	for i := 1; i < 10000; i++ {
		id := i - i%10
		switch {
		case calls && i%10 == 2:
			msgs = append(msgs, fmt.Sprintf(`{"role":"tool-call","content":[{"type":"tool-call","value":{"callID":"call_%d","callId":"call_%d","name":"lookup","arguments":{"word":"w%d"}}}]}`, id, id, i))
		case calls && i%10 == 3:
			msgs = append(msgs, fmt.Sprintf(`{"role":"tool-result","content":[{"type":"tool-result","value":{"callID":"call_%d","callId":"call_%d","name":"lookup","result":[{"type":"text","value":"found %d"}]}}]}`, id, id, i))
		default:
			role := "user"
			if i%2 == 0 {
				role = "assistant"
			}
			msgs = append(msgs, fmt.Sprintf(`{"role":%q,"content":"message %d of the history"}`, role, i))
		}
	}
	text, units := packJSON(b, msgs...)
	const options = `"options":{"backend":{"kind":"scripted","window":1000000000,"turns":[{"text":"ok"}]},"expectedInputs":[{"type":"tool-call"},{"type":"tool-response"}]}`
	p := NewPort()
	defer p.Handler().Close()
	p.Connect(func() {})
	send := func(m, attach string) []byte {
		copy(p.Inbox(len(m)+len(attach)), m+attach)
		p.Send(len(m)+len(attach), len(attach))
		return p.Take()
	}
	query := func(q string) []byte {
		copy(p.Inbox(len(q)), q)
		return p.Query(len(q))
	}
	if r := send(fmt.Sprintf(`{"type":"create","id":1,"session":1,%s,"textPrompts":%d,"textUnits":%d}`, options, len(msgs), units), text); !strings.Contains(string(r), `"ok":true`) {
		b.Fatal(string(r))
	}
	key := int64(1)
	create := func(restore string) {
		key++
		if r := send(fmt.Sprintf(`{"type":"create","id":%d,"session":%d,%s,"textPrompts":%d,"textUnits":%d%s}`, key, key, options, len(msgs), units, restore), text); !strings.Contains(string(r), `"ok":true`) {
			b.Fatal(string(r))
		}
		send(fmt.Sprintf(`{"type":"destroy","id":0,"session":%d}`, key), "")
	}
	snapshot := func() {
		if h := query(`{"type":"history","id":0,"session":1,"packed":true}`); len(h) < len(text) {
			b.Fatal(string(h[:100]))
		}
		query(`{"type":"usage","id":0,"session":1}`)
	}
	restore := `,"restore":{"initial":1,"usage":0}`
	b.Run("create", func(b *testing.B) {
		for b.Loop() {
			create("")
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		for b.Loop() {
			snapshot()
		}
	})
	b.Run("snapshot-json", func(b *testing.B) { // the history as JSON, as before protocol 6
		for b.Loop() {
			query(`{"type":"history","id":0,"session":1}`)
			query(`{"type":"usage","id":0,"session":1}`)
		}
	})
	b.Run("restore", func(b *testing.B) {
		for b.Loop() {
			create(restore)
		}
	})
	b.Run("snapshot+restore", func(b *testing.B) {
		for b.Loop() {
			snapshot()
			create(restore)
		}
	})
}
