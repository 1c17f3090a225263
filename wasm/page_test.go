package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// fakePage is the page side of the channel, in Go: it sends requests, answers
// tool-execute and tool-approve from Go functions, and records everything else the
// engine says (events, chunks, tool-aborts) in order.
type fakePage struct {
	t      *testing.T
	h      *Handler
	out    chan []byte
	nextID int64

	mu       sync.Mutex
	log      []msg                                         // every message other than replies, in order
	tools    map[int64]toolFunc                            // execute stash id → function
	approve  func(call msg) any                            // the answer to tool-approve
	replies  map[int64]msg                                 // replies read while waiting for another
	fetch    func(p *fakePage, m msg, ctx context.Context) // answers a fetch (on its own goroutine)
	generate func(p *fakePage, m msg, ctx context.Context) // answers a generate (on its own goroutine)
	cancels  map[int64]context.CancelFunc                  // engine call id → cancel, for the *-abort messages
	raw      []string                                      // every message the engine wrote, as written
	deaf     bool                                          // listens for no session event (see listenAll)
	clones   map[int64]int64                               // clone request id → the new session key, until its reply
}

// toolFunc answers a tool-execute: the value, or an error message when err != "".
type toolFunc func(p *fakePage, m msg) (value any, err string)

type msg map[string]any

func newPage(t *testing.T) *fakePage {
	p := &fakePage{t: t, out: make(chan []byte, 1<<16), tools: map[int64]toolFunc{}, replies: map[int64]msg{}, cancels: map[int64]context.CancelFunc{}, clones: map[int64]int64{}}
	p.h = NewHandler(func(b []byte) {
		p.mu.Lock()
		p.raw = append(p.raw, string(b))
		p.mu.Unlock()
		p.out <- bytes.Clone(b)
	})
	t.Cleanup(p.h.Close)
	return p
}

// send writes one raw message.
func (p *fakePage) send(raw string) { p.h.Receive([]byte(raw)) }

// request sends {"type": typ, "id": n, ...fields} and returns n. fields is the inside
// of a JSON object, possibly empty.
func (p *fakePage) request(typ, fields string) int64 {
	p.nextID++
	if fields != "" {
		fields = "," + fields
	}
	p.send(fmt.Sprintf(`{"type":%q,"id":%d%s}`, typ, p.nextID, fields))
	switch typ {
	case TypeCreate:
		p.listenAll(keyIn(fields, "session"))
	case TypeClone:
		p.clones[p.nextID] = keyIn(fields, "clone")
	}
	return p.nextID
}

// listenAll says the page listens for every event of the session key, as a page with
// listeners does (ListenMessage); the engine sends none otherwise. A deaf page does not.
// Sessions are listened to when created, clones when their reply comes (the page has
// no clone object to listen on before).
func (p *fakePage) listenAll(key int64) {
	if p.deaf || key <= 0 {
		return
	}
	for _, e := range []string{"toolcall", "toolprogress", "toolresult", "contextoverflow"} {
		p.send(fmt.Sprintf(`{"type":"listen","session":%d,"event":%q}`, key, e))
	}
}

// keyIn reads the integer field name from a request's fields; 0 when absent.
func keyIn(fields, name string) int64 {
	var k int64
	if i := strings.Index(fields, `"`+name+`":`); i >= 0 {
		fmt.Sscan(fields[i+len(name)+3:], &k)
	}
	return k
}

// call sends a request and waits for its reply.
func (p *fakePage) call(typ, fields string) msg {
	return p.wait(p.request(typ, fields))
}

// ok calls and requires success; it returns the value.
func (p *fakePage) ok(typ, fields string) any {
	r := p.call(typ, fields)
	require.Nil(p.t, r["error"], "%s %s", typ, fields)
	return r["value"]
}

// fails calls and requires an error named name; it returns the error.
func (p *fakePage) fails(typ, fields, name string) msg {
	r := p.call(typ, fields)
	e, _ := r["error"].(map[string]any)
	require.NotNil(p.t, e, "%s %s: want %s, got %v", typ, fields, name, r)
	require.Equal(p.t, name, e["name"], "%v", e["message"])
	return e
}

// wait reads messages until the reply to id, acting on engine calls meanwhile.
func (p *fakePage) wait(id int64) msg {
	p.t.Helper()
	if r, ok := p.replies[id]; ok {
		delete(p.replies, id)
		return r
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b := <-p.out:
			m := decodeMsg(p.t, b)
			if m["type"] == TypeReply {
				rid := num(m["id"])
				if key, ok := p.clones[rid]; ok {
					delete(p.clones, rid)
					if m["error"] == nil {
						p.listenAll(key)
					}
				}
				if rid == id {
					return m
				}
				p.replies[rid] = m
				continue
			}
			p.act(m)
		case <-timeout:
			p.t.Fatalf("no reply to request %d; log: %v", id, p.log)
		}
	}
}

// drain reads what is queued for a moment, acting on it, and returns the log.
func (p *fakePage) drain() []msg {
	for {
		select {
		case b := <-p.out:
			m := decodeMsg(p.t, b)
			if m["type"] == TypeReply {
				p.replies[num(m["id"])] = m
				continue
			}
			p.act(m)
		case <-time.After(50 * time.Millisecond):
			p.mu.Lock()
			defer p.mu.Unlock()
			return append([]msg(nil), p.log...)
		}
	}
}

func (p *fakePage) act(m msg) {
	p.mu.Lock()
	p.log = append(p.log, m)
	p.mu.Unlock()
	switch m["type"] {
	case TypeToolExecute:
		f := p.tools[num(m["fn"])]
		if f == nil {
			return // the test answers by hand
		}
		go func() {
			v, errMsg := f(p, m)
			p.toolReturn(num(m["id"]), v, errMsg)
		}()
	case TypeToolApprove:
		if p.approve != nil {
			p.toolReturn(num(m["id"]), p.approve(m), "")
		}
	case TypeFetch, TypeGenerate:
		f := p.fetch
		if m["type"] == TypeGenerate {
			f = p.generate
		}
		if f == nil {
			return // the page never answers
		}
		ctx, cancel := context.WithCancel(context.Background())
		p.mu.Lock()
		p.cancels[num(m["id"])] = cancel
		p.mu.Unlock()
		go f(p, m, ctx)
	case TypeToolAbort, TypeFetchAbort, TypeGenerateAbort:
		p.mu.Lock()
		cancel := p.cancels[num(m["id"])]
		p.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// sendMsg sends v, JSON-encoded.
func (p *fakePage) sendMsg(v map[string]any) {
	b, err := json.Marshal(v)
	require.NoError(p.t, err)
	p.send(string(b))
}

// written returns every message the engine wrote so far, as written.
func (p *fakePage) written() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.raw...)
}

func (p *fakePage) toolReturn(id int64, v any, errMsg string) {
	if errMsg != "" {
		p.send(fmt.Sprintf(`{"type":"tool-return","id":%d,"error":{"message":%s}}`, id, jsonString(errMsg)))
		return
	}
	b, err := json.Marshal(v)
	require.NoError(p.t, err)
	p.send(fmt.Sprintf(`{"type":"tool-return","id":%d,"value":%s}`, id, b))
}

// logged returns the logged messages of type typ.
func (p *fakePage) logged(typ string) []msg {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []msg
	for _, m := range p.log {
		if m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

func decodeMsg(t *testing.T, b []byte) msg {
	v, err := jsonv.Decode(b)
	require.NoError(t, err, "engine wrote invalid JSON: %s", b)
	m, ok := v.(map[string]any)
	require.True(t, ok, "engine wrote a message that is not an object: %s", b)
	return m
}

func num(v any) int64 {
	n, _ := v.(jsonv.Number).Int64()
	return n
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// compact re-encodes a decoded value, for comparisons against JSON text.
func compact(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// script returns the backend option for a scripted model playing turns (JSON objects).
func script(turns ...string) string {
	return `"backend":{"kind":"scripted","turns":[` + strings.Join(turns, ",") + `]}`
}

func jsonNumber(s string) jsonv.Number { return jsonv.Number(s) }
