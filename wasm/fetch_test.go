package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/clock"
)

// testKey is the API key of these tests: it must never appear in a message the engine
// writes, except inside the request headers of a fetch.
const testKey = "sk-test-0123456789abcdef"

// openaiBackend is the backend option for the replay server at base playing plan.
func openaiBackend(base, plan string, extra ...string) string {
	return fmt.Sprintf(`"backend":{"kind":"openai","baseURL":%q,"model":"m","apiKey":%q%s}`, base+"/r/n/"+plan, testKey, strings.Join(append([]string{""}, extra...), ","))
}

const (
	getWeather     = `{"name":"get_weather","description":"Weather in a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	getWeatherExec = `{"name":"get_weather","description":"Weather in a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"hasExecute":true,"execute":7}`
	searchTool     = `{"name":"search","description":"Search the web","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	openOutputs    = `"expectedOutputs":[{"type":"text"},{"type":"tool-call"}]`
)

// requireNoKey checks that the key appears in no message the engine wrote but the
// fetches' own headers.
func requireNoKey(t *testing.T, p *fakePage) {
	t.Helper()
	for _, m := range p.written() {
		if strings.HasPrefix(m, `{"type":"fetch",`) {
			continue
		}
		require.NotContains(t, m, testKey[8:], "the key leaked into %s", m)
	}
}

// TestFetch_PageErrors: what the page's fetch reports (a rejected fetch, a body that
// fails mid-stream) becomes a NetworkError, with every credential header cleaned out
// even where the page's message echoes it.
func TestFetch_PageErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  func(p *fakePage, id int64, auth string)
		message string
	}{
		{"fetch rejected", func(p *fakePage, id int64, auth string) {
			p.sendMsg(msg{"type": "fetch-end", "id": id, "error": msg{"message": "Failed to fetch (" + auth + ")"}})
		}, "the model failed: Failed to fetch ([redacted])"},
		{"body failed", func(p *fakePage, id int64, auth string) {
			p.sendMsg(msg{"type": "fetch-response", "id": id, "status": 200, "headers": msg{"Content-Type": "text/event-stream"}})
			p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"})
			p.sendMsg(msg{"type": "fetch-end", "id": id, "error": msg{"message": "network error, key " + testKey}})
		}, "the model failed: reading the stream: network error, key [redacted]"},
		{"ended without a response", func(p *fakePage, id int64, auth string) {
			p.sendMsg(msg{"type": "fetch-end", "id": id})
		}, "the model failed: the page ended the fetch without a response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.fetch = func(p *fakePage, m msg, _ context.Context) {
				req := m["request"].(map[string]any)
				require.Equal(t, "POST", req["method"])
				require.Equal(t, "http://127.0.0.1:1/v1/chat/completions", req["url"])
				auth := req["headers"].(map[string]any)["authorization"].(string)
				require.Equal(t, "Bearer "+testKey, auth)
				tc.answer(p, num(m["id"]), auth)
			}
			p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1/","model":"m","apiKey":"`+testKey+`","headers":{"X-Trace":"t1"}}}`)
			e := p.fails("prompt", `"session":1,"input":"hi","stream":true`, "NetworkError")
			require.Equal(t, tc.message, e["message"])
			requireNoKey(t, p)
			fetch := p.logged(TypeFetch)[0]["request"].(map[string]any)
			require.Equal(t, "t1", fetch["headers"].(map[string]any)["x-trace"])
		})
	}
}

// TestFetch_Deterministic: the fetch message is the same byte for byte every time
// (headers sorted).
func TestFetch_Deterministic(t *testing.T) {
	var first string
	for i := 0; i < 5; i++ {
		p := newPage(t)
		p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"/v1","model":"m","headers":{"b":"2","a":"1","c":"3"}}}`)
		p.request("prompt", `"session":1,"input":"hi"`)
		require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetch)) == 1 }, 5*time.Second, 5*time.Millisecond)
		var got string
		for _, m := range p.written() {
			if strings.HasPrefix(m, `{"type":"fetch",`) {
				got = m
			}
		}
		if i == 0 {
			first = got
			require.Contains(t, got, `"headers":{"a":"1","accept":"text/event-stream","b":"2","c":"3","content-type":"application/json"},"body":"{`)
			require.Contains(t, got, `"url":"/v1/chat/completions"`)
		}
		require.Equal(t, first, got)
	}
}

// TestFetch_BodyEnd counts the fetch-aborts the engine sends for a stream that ends with
// [DONE]: none when the body reaches its end, even after the SSE reader has left it at
// [DONE] and the answer has gone out (a server closes the response right after [DONE]);
// one, after the grace, when the page never ends the body.
func TestFetch_BodyEnd(t *testing.T) {
	const stream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: [DONE]\n\n"
	for _, tc := range []struct {
		name   string
		end    string // when the page sends fetch-end: "with the body", "after the answer", "never"
		grace  time.Duration
		aborts int
	}{
		{"the end comes with the body", "with the body", time.Hour, 0},
		{"the end comes after [DONE] was read and the answer sent", "after the answer", time.Hour, 0},
		{"the end never comes: aborted after the grace", "never", 10 * time.Millisecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.h.bodyGrace = clock.Duration(tc.grace)
			p.fetch = func(p *fakePage, m msg, _ context.Context) {
				id := num(m["id"])
				p.sendMsg(msg{"type": "fetch-response", "id": id, "status": 200, "headers": msg{"content-type": "text/event-stream"}})
				p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": stream})
				if tc.end == "with the body" {
					p.sendMsg(msg{"type": "fetch-end", "id": id})
				}
			}
			p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m"}}`)
			require.Equal(t, "Hi", p.ok("prompt", `"session":1,"input":"hi"`).(map[string]any)["text"])
			fid := num(p.logged(TypeFetch)[0]["id"])
			if tc.end == "after the answer" {
				p.sendMsg(msg{"type": "fetch-end", "id": fid})
			}
			if tc.aborts > 0 {
				require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetchAbort)) == tc.aborts }, 5*time.Second, 5*time.Millisecond)
				require.Equal(t, fid, num(p.logged(TypeFetchAbort)[0]["id"]))
				return
			}
			p.ok("hello", helloVersion) // the handler has taken fetch-end: no abort can follow
			p.drain()
			require.Empty(t, p.logged(TypeFetchAbort))
		})
	}
}

// TestFetch_BodyLeft: a body the reader leaves while it goes on (an event over the SSE
// limit, text after [DONE]) is aborted at once, not after the grace: waiting it out, the
// page read on at the network's speed (16 MB of a hostile model's event, the
// hostile servers' oversize act).
func TestFetch_BodyLeft(t *testing.T) {
	const head = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
	const done = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	big := "data: " + strings.Repeat("x", 1<<20) + "\n"
	for _, tc := range []struct {
		name  string
		fail  bool     // the prompt fails (the event is over the limit)
		after []string // chunks the page sends once the answer is out
	}{
		{"an event over the limit, the rest unread", true, nil},
		{"text after [DONE], more than a tail", false, []string{strings.Repeat(": more\n", 1000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.h.bodyGrace = clock.Duration(time.Hour)
			p.fetch = func(p *fakePage, m msg, _ context.Context) {
				id := num(m["id"])
				p.sendMsg(msg{"type": "fetch-response", "id": id, "status": 200, "headers": msg{"content-type": "text/event-stream"}})
				p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": head})
				if tc.fail {
					for range 6 {
						p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": big})
					}
					return
				}
				p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": done})
			}
			p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m"}}`)
			if tc.fail {
				p.fails("prompt", `"session":1,"input":"hi"`, "NetworkError")
			} else {
				require.Equal(t, "Hi", p.ok("prompt", `"session":1,"input":"hi"`).(map[string]any)["text"])
			}
			fid := num(p.logged(TypeFetch)[0]["id"])
			for _, c := range tc.after {
				p.sendMsg(msg{"type": "fetch-chunk", "id": fid, "data": c})
			}
			require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetchAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
			require.Equal(t, fid, num(p.logged(TypeFetchAbort)[0]["id"]))
		})
	}
}

// TestFetch_More: the engine tells the page at each FetchWindow of a body it has read
// (fetch-more), the pace the page reads its fetch at (js/pagecalls.js): a page left
// without it reads a body the engine has given up on to its end.
func TestFetch_More(t *testing.T) {
	const done = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	comment := ": " + strings.Repeat("x", 64<<10-3) + "\n" // 64 KB, a comment line
	for _, tc := range []struct {
		name   string
		chunks int // comment chunks of 64 KB before the answer
		mores  int
	}{
		{"a small body: none", 0, 0},
		{"2.5 MB: two", 40, 2},
		{"exactly one window: one", 16, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			p.fetch = func(p *fakePage, m msg, _ context.Context) {
				id := num(m["id"])
				p.sendMsg(msg{"type": "fetch-response", "id": id, "status": 200, "headers": msg{"content-type": "text/event-stream"}})
				for range tc.chunks {
					p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": comment})
				}
				p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": done})
				p.sendMsg(msg{"type": "fetch-end", "id": id})
			}
			p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m"}}`)
			require.Equal(t, "Hi", p.ok("prompt", `"session":1,"input":"hi"`).(map[string]any)["text"])
			p.drain()
			more := p.logged(TypeFetchMore)
			require.Len(t, more, tc.mores)
			for _, m := range more {
				require.Equal(t, num(p.logged(TypeFetch)[0]["id"]), num(m["id"]))
			}
		})
	}
}
