//go:build !js

package wasm

// The fetch path against a real HTTP server (internal/testing/replay): native only, since
// GOOS=js has no sockets to listen on.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/replay"
)

// replayPage is a fake page whose fetch is Go's HTTP client against a replay server
// (internal/testing/replay), reading bodies split bytes at a time and decoding them as
// UTF-8 across reads, as the page's TextDecoder does in stream mode.
func replayPage(t *testing.T, split int) (*fakePage, *replay.Server, string) {
	srv := &replay.Server{Split: split}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	p := newPage(t)
	p.fetch = httpFetch(ts.Client(), split)
	return p, srv, ts.URL
}

// httpFetch answers fetch messages with client.
func httpFetch(client *http.Client, split int) func(p *fakePage, m msg, ctx context.Context) {
	return func(p *fakePage, m msg, ctx context.Context) {
		id := num(m["id"])
		req := m["request"].(map[string]any)
		hreq, err := http.NewRequestWithContext(ctx, req["method"].(string), req["url"].(string), strings.NewReader(req["body"].(string)))
		require.NoError(p.t, err)
		for k, v := range req["headers"].(map[string]any) {
			hreq.Header.Set(k, v.(string))
		}
		resp, err := client.Do(hreq)
		if err != nil {
			if ctx.Err() == nil {
				p.sendMsg(msg{"type": "fetch-end", "id": id, "error": msg{"message": "Failed to fetch"}})
			}
			return
		}
		defer resp.Body.Close()
		headers := msg{}
		for k, v := range resp.Header {
			headers[strings.ToLower(k)] = strings.Join(v, ", ")
		}
		p.sendMsg(msg{"type": "fetch-response", "id": id, "status": resp.StatusCode, "headers": headers})
		buf := make([]byte, max(split, 1<<10))
		var pending []byte
		for {
			n, err := resp.Body.Read(buf)
			pending = append(pending, buf[:n]...)
			if k := validPrefix(pending); k > 0 {
				p.sendMsg(msg{"type": "fetch-chunk", "id": id, "data": string(pending[:k])})
				pending = pending[k:]
			}
			if err == io.EOF {
				p.sendMsg(msg{"type": "fetch-end", "id": id})
				return
			}
			if err != nil {
				if ctx.Err() == nil {
					p.sendMsg(msg{"type": "fetch-end", "id": id, "error": msg{"message": "network error"}})
				}
				return
			}
		}
	}
}

// validPrefix is how much of b a streaming UTF-8 decoder can give out: all but an
// incomplete character at the end.
func validPrefix(b []byte) int {
	for k := len(b); k > len(b)-utf8.UTFMax && k >= 0; k-- {
		if utf8.Valid(b[:k]) {
			return k
		}
	}
	return len(b)
}

func TestFetch_RecordedStreams(t *testing.T) {
	for _, tc := range []struct {
		file, text, calls string
	}{
		{"openai_parallel.sse", "", `[{"arguments":{"city":"Paris"},"callID":"call_paris","callId":"call_paris","name":"get_weather"},{"arguments":{"city":"Tokyo"},"callID":"call_tokyo","callId":"call_tokyo","name":"get_weather"}]`},
		{"ollama.sse", "", `[{"arguments":{"city":"Paris"},"callID":"call_k2x9m4qa","callId":"call_k2x9m4qa","name":"get_weather"}]`},
		{"llamacpp.sse", "Let me check.", `[{"arguments":{"q":"say \"hi\" été"},"callID":"Vb7Kq2ZtX9mRw4LpN0cYhE5sJd8GfA3u","callId":"Vb7Kq2ZtX9mRw4LpN0cYhE5sJd8GfA3u","name":"search"}]`},
		{"vllm.sse", "Sunny in Paris, 21°C.", `null`},
	} {
		for _, split := range []int{0, 1, 7} {
			t.Run(fmt.Sprintf("%s/split %d", tc.file, split), func(t *testing.T) {
				p, srv, base := replayPage(t, split)
				p.ok("create", `"session":1,"options":{`+openOutputs+`,"tools":[`+getWeather+`,`+searchTool+`],`+openaiBackend(base, tc.file)+`}`)
				r := p.ok("prompt", `"session":1,"input":"weather?"`).(map[string]any)
				require.Equal(t, tc.text, r["text"])
				require.Equal(t, tc.calls, compact(t, r["calls"]))
				st := srv.Stats("n")
				require.Equal(t, []string{"Bearer " + testKey}, st.Auth)
				require.Contains(t, string(st.Bodies[0]), `"model":"m","stream":true`)
				requireNoKey(t, p)
			})
		}
	}
}

func TestFetch_ClosedLoopStreaming(t *testing.T) {
	p, srv, base := replayPage(t, 5)
	p.tools[7] = func(*fakePage, msg) (any, string) { return "21°C, sunny", "" }
	p.ok("create", `"session":1,"options":{"tools":[`+getWeatherExec+`],`+openaiBackend(base, "ollama.sse,vllm.sse")+`}`)
	id := p.request("prompt", `"session":1,"input":"Weather in Paris?","stream":true`)
	r := p.wait(id)["value"].(map[string]any)
	require.Equal(t, "Sunny in Paris, 21°C.", r["text"])
	require.Equal(t, jsonNumber("53"), r["contextUsage"], "the server's usage figures calibrate contextUsage")
	var chunks []any
	for _, m := range p.drain() {
		if m["type"] == TypeChunk {
			chunks = append(chunks, m["detail"])
		}
	}
	require.Equal(t, []any{"Sunny", " in Paris, 21°C."}, chunks)
	st := srv.Stats("n")
	require.Len(t, st.Bodies, 2)
	// The server's id call_k2x9m4qa goes back as its nine-character wire id.
	require.Contains(t, string(st.Bodies[1]), `"tool_calls":[{"id":"NT4rMLm3s",`)
	require.Contains(t, string(st.Bodies[1]), `{"role":"tool","content":"21°C, sunny","tool_call_id":"NT4rMLm3s"}`)
	requireNoKey(t, p)
}

// TestFetch_TextTools: nativeTools false wraps the server's model in the text protocol:
// no tools in the request, the call read from a fenced block in the text.
func TestFetch_TextTools(t *testing.T) {
	p, srv, base := replayPage(t, 3)
	p.tools[7] = func(*fakePage, msg) (any, string) { return "21°C", "" }
	p.ok("create", `"session":1,"options":{"tools":[`+getWeatherExec+`],`+openaiBackend(base, "textproto_call.sse,vllm.sse", `"nativeTools":false`)+`}`)
	id := p.request("prompt", `"session":1,"input":"Weather in Paris?","stream":true`)
	require.Equal(t, "Sunny in Paris, 21°C.", p.wait(id)["value"].(map[string]any)["text"])
	var text string
	for _, m := range p.drain() {
		if s, ok := m["detail"].(string); ok && m["type"] == TypeChunk {
			text += s
		}
	}
	require.Equal(t, "Let me check.\nSunny in Paris, 21°C.", text, "no delimiter reaches the page")
	st := srv.Stats("n")
	require.NotContains(t, string(st.Bodies[0]), `"tools"`)
	require.Contains(t, string(st.Bodies[0]), "tool_call")
}

func TestFetch_Faults(t *testing.T) {
	for _, tc := range []struct {
		name, plan, kind, message string
	}{
		{"401 echoing the key", "echo401", "NotAllowedError", "the model failed: the server answered 401: Incorrect API key provided: [redacted] (header: [redacted])"},
		{"recorded 401", "401:openai_401.json", "NotAllowedError", "the model failed: the server answered 401: Incorrect API key provided: [redacted]************************[redacted]. You can find your API key at https://platform.openai.com/account/api-keys."},
		{"429 then success", "429+vllm.sse", "", ""},
		{"500 until the retries run out", "500", "OperationError", "the model failed: the server answered 500: status 500"},
		{"Ollama's 404", "404:ollama_404.json", "OperationError", `the model failed: the server answered 404: model "llama9" not found, try pulling it first`},
		{"invalid JSON in a chunk", "invalid_chunk.sse", "OperationError", "the model failed: malformed data from the server: unexpected end of JSON input"},
		{"stream ended before [DONE]", "dropped.sse", "NetworkError", "the model failed: the stream ended before [DONE]: the connection was dropped"},
		{"a plain JSON completion", "completion.json", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv, base := replayPage(t, 16)
			p.ok("create", `"session":1,"options":{`+openaiBackend(base, tc.plan)+`}`)
			if tc.kind == "" {
				p.ok("prompt", `"session":1,"input":"hi"`)
			} else {
				e := p.fails("prompt", `"session":1,"input":"hi"`, tc.kind)
				require.Equal(t, tc.message, e["message"])
			}
			if tc.plan == "500" {
				require.Equal(t, 4, srv.Stats("n").Requests, "three retries")
			}
			requireNoKey(t, p)
		})
	}
}

// TestFetch_AbortMidStream: the server sends half a stream and stalls; an abort rejects
// the prompt, tells the page (fetch-abort), whose fetch is cancelled at the server.
func TestFetch_AbortMidStream(t *testing.T) {
	p, srv, base := replayPage(t, 0)
	p.ok("create", `"session":1,"options":{`+openaiBackend(base, "stall:vllm.sse")+`}`)
	id := p.request("prompt", `"session":1,"input":"hi","stream":true`)
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeChunk)) > 0 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, "Sunny", p.logged(TypeChunk)[0]["detail"])
	p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
	require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
	require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetchAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, num(p.logged(TypeFetch)[0]["id"]), num(p.logged(TypeFetchAbort)[0]["id"]))
	require.Eventually(t, func() bool { return srv.Stats("n").Canceled == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Empty(t, p.ok("history", `"session":1`))
}

// TestFetch_NeverAnswered: a page (or server) that never answers; abort ends the wait.
func TestFetch_NeverAnswered(t *testing.T) {
	for _, tc := range []struct{ name, plan string }{{"page", ""}, {"server", "hang"}} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv, base := replayPage(t, 0)
			if tc.plan == "" {
				p.fetch = nil
				tc.plan = "vllm.sse"
			}
			p.ok("create", `"session":1,"options":{`+openaiBackend(base, tc.plan)+`}`)
			id := p.request("prompt", `"session":1,"input":"hi"`)
			require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetch)) == 1 }, 5*time.Second, 5*time.Millisecond)
			// An answer of the wrong kind for the fetch's id is dropped; the fetch stays open.
			p.sendMsg(msg{"type": "tool-return", "id": num(p.logged(TypeFetch)[0]["id"]), "value": "x"})
			p.sendMsg(msg{"type": "generate-end", "id": num(p.logged(TypeFetch)[0]["id"])})
			p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
			require.Equal(t, "AbortError", p.wait(id)["error"].(map[string]any)["name"])
			require.Eventually(t, func() bool { p.drain(); return len(p.logged(TypeFetchAbort)) == 1 }, 5*time.Second, 5*time.Millisecond)
			if tc.name == "server" {
				require.Eventually(t, func() bool { return srv.Stats("n").Canceled == 1 }, 5*time.Second, 5*time.Millisecond)
			}
			// Whatever the page sends for the aborted fetch is dropped.
			fid := num(p.logged(TypeFetch)[0]["id"])
			p.sendMsg(msg{"type": "fetch-response", "id": fid, "status": 200})
			p.sendMsg(msg{"type": "fetch-chunk", "id": fid, "data": "late"})
			p.sendMsg(msg{"type": "fetch-end", "id": fid})
			p.ok("hello", helloVersion)
		})
	}
}

// TestFetch_hammer runs many sessions over the fetch and generate paths at once, with
// streaming, aborts mid-stream, destroys and clones: every request gets exactly one
// reply, every call the page was given ends (answered, or aborted by the engine), and
// nothing races (go test -race).
func TestFetch_hammer(t *testing.T) {
	p, _, base := replayPage(t, 13)
	var reqs []msg
	p.generate = pieces(&reqs, []any{"a", "b", msg{"type": "tool-call", "value": msg{"name": "weather", "arguments": msg{"city": "X"}}}}, []any{"done"})
	p.tools[7] = func(*fakePage, msg) (any, string) { return "sun", "" }
	const sessions = 10
	for k := int64(1); k <= sessions; k++ {
		backend := openaiBackend(base, "ollama.sse,vllm.sse")
		if k%2 == 0 {
			backend = customBackend(`,"nativeTools":true`)
		}
		tool := getWeatherExec
		if k%2 == 0 {
			tool = weatherTool
		}
		p.ok("create", fmt.Sprintf(`"session":%d,"options":{"tools":[%s],%s}`, k, tool, backend))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	next := int64(100)
	var ids []int64
	for i := 0; i < 120; i++ {
		k := 1 + rng.Int64N(sessions)
		switch r := rng.IntN(10); {
		case r < 6:
			ids = append(ids, p.request("prompt", fmt.Sprintf(`"session":%d,"input":"go %d","stream":%v`, k, i, r < 3)))
		case r < 7:
			next++
			ids = append(ids, p.request("clone", fmt.Sprintf(`"session":%d,"clone":%d`, k, next)))
		case r < 9:
			id := p.request("prompt", fmt.Sprintf(`"session":%d,"input":"abort me","stream":true`, k))
			ids = append(ids, id)
			if r == 8 {
				p.drain()
			}
			p.send(fmt.Sprintf(`{"type":"abort","target":%d}`, id))
		default:
			if i > 90 {
				ids = append(ids, p.request("destroy", fmt.Sprintf(`"session":%d`, k)))
			}
		}
	}
	for _, id := range ids {
		r := p.wait(id)
		if e, ok := r["error"].(map[string]any); ok {
			require.Contains(t, []any{"AbortError", "InvalidStateError"}, e["name"], "%v", e)
		}
	}
	require.Eventually(t, func() bool {
		p.drain()
		p.h.callsMu.Lock()
		defer p.h.callsMu.Unlock()
		return len(p.h.calls) == 0
	}, 10*time.Second, 10*time.Millisecond, "calls left open")
	requireNoKey(t, p)
	p.ok("hello", helloVersion)
}
