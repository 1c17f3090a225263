//go:build !js

package wasm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
)

// The forcing tests of docs/security.md, "Redaction: what it catches": hostile MCP and
// model servers echo the secrets the page gave in every field they control and every
// form, and nothing the engine writes to the page (replies, events, page calls, the
// bodies of fetches), nor the history it answers, holds one in any form.

// secretForms are the forms of s a reader of the engine's output could decode back to s.
func secretForms(s string) []string {
	html, _ := json.Marshal(s)
	forms := []string{s, string(html[1 : len(html)-1]), url.QueryEscape(s), url.PathEscape(s),
		base64.StdEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s))}
	for _, pre := range []string{"\x00", "\x00\x00"} { // inside a longer base64 text: its middle
		b := base64.StdEncoding.EncodeToString([]byte(pre + s))
		forms = append(forms, b[4:len(b)-4])
	}
	return forms
}

// observable is everything the engine wrote to the page and its answers to history
// queries (JSON and packed) for session 1, as text to search: each message raw and every
// string in it decoded (a fetch body is JSON in a string: decoded twice), a fetch's URL
// and headers left out (they go to the server, the one place a secret belongs).
func observable(t *testing.T, p *fakePage) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
			var inner any
			if json.Unmarshal([]byte(v), &inner) == nil {
				walk(inner)
			}
		case map[string]any:
			for k, x := range v {
				out = append(out, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	msgs := p.written()
	msgs = append(msgs, string(p.h.Query([]byte(`{"type":"history","id":0,"session":1}`))))
	packed := string(p.h.Query([]byte(`{"type":"history","id":0,"session":1,"packed":true}`)))
	first, rest, _ := strings.Cut(packed, "\n")
	msgs = append(msgs, first)
	out = append(out, rest, string(NewMirror(p.h).Changes())) // worker mode's copy
	for _, raw := range msgs {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(raw), &m), "the engine wrote invalid JSON: %s", raw)
		if m["type"] == TypeFetch {
			req := m["request"].(map[string]any)
			delete(req, "headers")
			delete(req, "url")
			b, _ := json.Marshal(m)
			raw = string(b)
		}
		out = append(out, raw)
		walk(m)
	}
	return out
}

// requireNoSecret requires that no form of any secret is observable.
func requireNoSecret(t *testing.T, p *fakePage, secrets ...string) {
	t.Helper()
	seen := observable(t, p)
	for _, s := range secrets {
		for _, f := range secretForms(s) {
			for _, o := range seen {
				require.NotContains(t, o, f, "a form of secret %q leaked", s)
			}
		}
	}
}

// hostileMCP is an MCP server (Streamable HTTP, JSON answers, tools/call as events)
// that echoes what it was given: its one tool's title and description carry echo, a
// call sends a progress message (progress) and then the result's text contents parts(), or a
// JSON-RPC error when fail.
type hostileMCP struct {
	echo     string
	progress string
	parts    []string
	fail     string
}

func (s *hostileMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" {
		w.WriteHeader(405)
		return
	}
	var m struct {
		ID     jsonv.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken jsonv.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	answer := func(result any) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		return b
	}
	switch m.Method {
	case "initialize":
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "hostile", "version": "1"}}))
	case "tools/list":
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(map[string]any{"tools": []any{map[string]any{"name": "leak", "title": "Leak " + s.echo, "description": "Echoes " + s.echo,
			"inputSchema": map[string]any{"type": "object"}}}}))
	case "tools/call":
		w.Header().Set("Content-Type", "text/event-stream")
		progress, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
			"params": map[string]any{"progressToken": m.Params.Meta.ProgressToken, "progress": 1, "message": s.progress}})
		fmt.Fprintf(w, "data: %s\n\n", progress)
		if s.fail != "" {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": s.fail}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			return
		}
		content := make([]any, len(s.parts))
		for i, t := range s.parts {
			content[i] = map[string]any{"type": "text", "text": t}
		}
		fmt.Fprintf(w, "data: %s\n\n", answer(map[string]any{"content": content}))
	default:
		w.WriteHeader(202)
	}
}

// hostileRun creates session 1 over srv with the server entry's headers (a JSON object)
// and secretHeaders, calls its tool once and returns the page.
func hostileRun(t *testing.T, srv *hostileMCP, headers, secretHeaders string) *fakePage {
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	p := newPage(t)
	p.fetch = httpFetch(ts.Client(), 0)
	p.approve = func(msg) any { return true }
	if secretHeaders != "" {
		secretHeaders = `,"secretHeaders":` + secretHeaders
	}
	// trusted: the server's output unframed, so that rows read its words as they came
	// (framing is TestModule_MCP's; a secret is redacted framed or not).
	p.ok("create", `"session":1,"options":{"mcpServers":[{"url":"`+ts.URL+`/mcp","trusted":true,"headers":`+headers+secretHeaders+`}],`+
		`"toolUseConfig":{"approve":1},`+script(`{"calls":[{"name":"leak","arguments":{}}]}`, `{"text":"done"}`)+`}`)
	p.listenAll(1) // the session exists once its servers are connected
	require.Equal(t, "done", p.ok("prompt", `"session":1,"input":"go"`).(map[string]any)["text"])
	p.drain()
	return p
}

func TestRedact_MCPEchoes(t *testing.T) {
	const (
		plain = "sk-mcp-0123456789abcd"
		html  = "sk-mcp-<&>0123456789"
		pass  = "hunter2-passw0rd"
		tok   = "tok-ServiceAuth-77"
	)
	bearer := `{"Authorization":"Bearer ` + plain + `"}`
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + pass))
	tests := []struct {
		name                   string
		srv                    hostileMCP
		headers, secretHeaders string
		secrets                []string
	}{
		{"notifications/progress echoing auth Bearer", hostileMCP{echo: "x", progress: "auth Bearer " + plain}, bearer, "", []string{plain}},
		{"a lowercase bearer scheme", hostileMCP{echo: "x", parts: []string{"token: " + plain}}, `{"Authorization":"bearer ` + plain + `"}`, "", []string{plain}},
		{"Basic: the credential, user:pass and the password", hostileMCP{echo: "x", parts: []string{"basic " + basic + " alice:" + pass + " pw " + pass}},
			`{"Proxy-Authorization":"Basic ` + basic + `"}`, "", []string{basic, pass}},
		{"a Token scheme in a header the page marks secret", hostileMCP{echo: "x", parts: []string{"token " + tok}},
			`{"X-Service-Auth":"Token ` + tok + `"}`, `["x-service-auth"]`, []string{tok}},
		{"a token with & < >", hostileMCP{echo: "x", parts: []string{"got " + html}}, `{"Authorization":"Bearer sk-mcp-\u003c\u0026\u003e0123456789"}`, "", []string{html}},
		{"the percent-encoded form", hostileMCP{echo: "x", parts: []string{"q=" + url.QueryEscape(html)}}, `{"Authorization":"Bearer sk-mcp-\u003c\u0026\u003e0123456789"}`, "", []string{html}},
		{"the base64 form", hostileMCP{echo: "x", parts: []string{"b64 " + base64.StdEncoding.EncodeToString([]byte(plain))}}, bearer, "", []string{plain}},
		{"the base64 form inside a longer base64 text", hostileMCP{echo: "x", parts: []string{"b64 " + base64.StdEncoding.EncodeToString([]byte("k="+plain+"!"))}}, bearer, "", []string{plain}},
		{"a token split across two content parts", hostileMCP{echo: "x", parts: []string{"one " + plain[:9], plain[9:] + " two"}}, bearer, "", []string{plain, plain[9:]}},
		{"tools/list title and description", hostileMCP{echo: plain}, bearer, "", []string{plain}},
		{"X-API-Key echoed", hostileMCP{echo: "x", parts: []string{"key " + plain}}, `{"X-API-Key":"` + plain + `"}`, "", []string{plain}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv
			p := hostileRun(t, &srv, tc.headers, tc.secretHeaders)
			if srv.progress != "" {
				require.NotEmpty(t, p.logged("toolprogress"))
			}
			requireNoSecret(t, p, tc.secrets...)
		})
	}
}

// TestRedact_OrdinaryHeaders: the values of headers that are not credentials (en-US,
// true) are not replaced in what a server answers, and its CallToolResult stays whole.
func TestRedact_OrdinaryHeaders(t *testing.T) {
	p := hostileRun(t, &hostileMCP{echo: "x", parts: []string{"lang en-US debug true"}},
		`{"Accept-Language":"en-US","X-Debug":"true","X-Tenant":"acme-tenant"}`, "")
	history := string(p.h.Query([]byte(`{"type":"history","id":0,"session":1}`)))
	require.Contains(t, history, `"result":[{"type":"text","value":"lang en-US debug true"}]`)
}

func TestRedact_MCPURLInErrors(t *testing.T) {
	const query = "q-api-key-in-the-url-2"
	srv := &hostileMCP{echo: "nothing", fail: "denied"}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	p := newPage(t)
	p.fetch = httpFetch(ts.Client(), 0)
	p.approve = func(msg) any { return true }
	p.ok("create", `"session":1,"options":{"mcpServers":[{"url":"`+ts.URL+`/mcp?api_key=`+query+`"}],"toolUseConfig":{"approve":1},`+
		script(`{"calls":[{"name":"leak","arguments":{}}]}`, `{"text":"done"}`)+`}`)
	require.Equal(t, "done", p.ok("prompt", `"session":1,"input":"go"`).(map[string]any)["text"])
	history := string(p.h.Query([]byte(`{"type":"history","id":0,"session":1}`)))
	require.Contains(t, history, "MCP server: "+ts.URL+"/mcp tools/call failed: denied", "the tool error names the URL by origin and path")
	requireNoSecret(t, p, query)

	// A server that cannot be reached: create()'s error.
	p2 := newPage(t)
	p2.fetch = httpFetch(ts.Client(), 0)
	e := p2.fails("create", `"session":1,"options":{"mcpServers":[{"url":"http://127.0.0.1:1/mcp?token=`+query+`"}]}`, "NetworkError")
	require.NotContains(t, e["message"], query)
	require.Contains(t, e["message"], "MCP server: http://127.0.0.1:1/mcp ")
}

// openaiServer answers chat completions with answer(n, w) for the n-th request (from 0)
// and keeps the bodies it was sent.
type openaiServer struct {
	mu     sync.Mutex
	bodies []string
	answer func(n int, w http.ResponseWriter)
}

func (s *openaiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, string(b))
	s.mu.Unlock()
	s.answer(n, w)
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
}

func delta(text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}}}})
	return string(b)
}

func TestRedact_OpenAIEchoes(t *testing.T) {
	const (
		key   = "sk-proj-0123456789abcdefXYZ"
		azure = "azure-api-key-5e6f7a8b"
		xkey  = "x-api-key-1a2b3c4d5e"
	)
	weather := `{"name":"weather","description":"Weather","inputSchema":{"type":"object"},"hasExecute":true,"execute":1}`
	tests := []struct {
		name   string
		answer func(n int, w http.ResponseWriter)
		tools  bool
		check  func(t *testing.T, p *fakePage, srv *openaiServer)
	}{
		{"an error inside a 200 stream holds the key", func(n int, w http.ResponseWriter) {
			sse(w, delta("Hi"), `{"error":{"message":"invalid key `+key+`"}}`)
		}, false, nil},
		{"a 200 JSON error body holds the key", func(n int, w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"error":{"message":"invalid key %s"}}`, key)
		}, false, nil},
		{"a 401 echoes api-key and X-API-Key", func(n int, w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"bad headers api-key=%s x-api-key=%s"}}`, azure, xkey)
		}, false, nil},
		{"a key split across two streamed chunks", func(n int, w http.ResponseWriter) {
			sse(w, delta("your key is "+key[:10]), delta(key[10:]+", keep it"), `[DONE]`)
		}, false, func(t *testing.T, p *fakePage, _ *openaiServer) {
			var text strings.Builder
			for _, c := range p.logged(TypeChunk) {
				text.WriteString(c["detail"].(string))
			}
			require.Equal(t, "your key is [redacted], keep it", text.String())
		}},
		{"a tool's output echoing the key never goes back to the model", func(n int, w http.ResponseWriter) {
			if n == 0 {
				sse(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, `[DONE]`)
				return
			}
			sse(w, delta("ok"), `[DONE]`)
		}, true, func(t *testing.T, p *fakePage, srv *openaiServer) {
			require.Len(t, srv.bodies, 2)
			require.NotContains(t, srv.bodies[1], key)
			require.Contains(t, srv.bodies[1], "sunny, key [redacted]")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := &openaiServer{answer: tc.answer}
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			p := newPage(t)
			p.fetch = httpFetch(ts.Client(), 0)
			p.tools[1] = func(*fakePage, msg) (any, string) { return "sunny, key " + key, "" }
			tools := ""
			if tc.tools {
				tools = `"tools":[` + weather + `],`
			}
			backend := fmt.Sprintf(`{"kind":"openai","baseURL":%q,"model":"m","apiKey":%q,"headers":{"api-key":%q,"X-API-Key":%q}}`, ts.URL+"/v1", key, azure, xkey)
			p.ok("create", `"session":1,"options":{`+tools+`"backend":{"kind":"record","backend":`+backend+`}}`)
			p.call("prompt", `"session":1,"input":"hi","stream":true`)
			p.drain()
			require.NotEmpty(t, p.logged("modelstep"), "the recording")
			requireNoSecret(t, p, key, azure, xkey)
			if tc.check != nil {
				tc.check(t, p, srv)
			}
		})
	}
}

// TestRedact_ShortValuesWarn: a secret too short to redact is left alone, and the page's
// console says so at create().
func TestRedact_ShortValuesWarn(t *testing.T) {
	p := newPage(t)
	p.ok("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m","apiKey":"short"}}`)
	p.drain()
	w := p.logged(TypeWarning)
	require.Len(t, w, 1)
	require.Contains(t, w[0]["detail"], "1 secret value(s) shorter than 8 characters")
	require.NotContains(t, w[0]["detail"], "short\"")
}

func TestRedact_SecretHeadersOption(t *testing.T) {
	p := newPage(t)
	e := p.fails("create", `"session":1,"options":{"backend":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","model":"m","secretHeaders":"x-a"}}`, "TypeError")
	require.Equal(t, "invalid backend: backend.secretHeaders must be an array of header names", e["message"])
	e = p.fails("create", `"session":1,"options":{"mcpServers":[{"url":"/mcp","secretHeaders":[1]}]}`, "TypeError")
	require.Equal(t, "invalid mcpServers: mcpServers[0].secretHeaders must be an array of header names", e["message"])
}

// TestRedact_Port: in a page the engine's messages go through the Port's batch, encoded in
// place: a secret in them is redacted there too.
func TestRedact_Port(t *testing.T) {
	const key = "sk-port-0123456789abc"
	p := NewPort()
	defer p.Handler().Close()
	p.Connect(func() {})
	p.Handler().red.Add(key)
	send := func(m string) { copy(p.Inbox(len(m)), m); p.Send(len(m), 0) }
	send(`{"type":"create","id":1,"session":1,"options":{` + script(`{"text":"the key is `+key+`"}`) + `}}`)
	require.Contains(t, string(p.Take()), `"ok":true`)
	batch := answerTools(p, `{"type":"prompt","id":2,"session":1,"input":"hi"}`)
	require.Contains(t, batch, "the key is [redacted]")
	require.NotContains(t, batch, key)
}

// A URL with user-info cannot be fetched (fetch refuses it, in browsers and in Node): an
// entry with one is refused at create() with a TypeError that shows no part of it, and the
// page gives the credential in headers. secretParams names query parameters whose values
// are secrets beyond those whose names say so.
func TestRedact_URLCredentials(t *testing.T) {
	tests := []struct {
		name, options, message string
	}{
		{"an MCP server's user:password", `"mcpServers":[{"url":"http://alice:hunter2-pw@127.0.0.1:1/mcp?api_key=k3y-0123456789"}]`,
			"invalid mcpServers: mcpServers[0].url must not hold credentials (user:password@ before the host); give them in headers (Authorization)"},
		{"an MCP server's token as user", `"mcpServers":[{"url":"https://tok-0123456789@h.example/mcp"}]`,
			"invalid mcpServers: mcpServers[0].url must not hold credentials (user:password@ before the host); give them in headers (Authorization)"},
		{"a backend's baseURL", `"backend":{"kind":"openai","baseURL":"http://alice:hunter2-pw@127.0.0.1:1/v1","model":"m"}`,
			"invalid backend: backend.baseURL must not hold credentials (user:password@ before the host); give them in apiKey or headers"},
		{"secretParams not names", `"mcpServers":[{"url":"/mcp","secretParams":"tenant"}]`,
			"invalid mcpServers: mcpServers[0].secretParams must be an array of query parameter names"},
		{"a backend's secretParams not names", `"backend":{"kind":"openai","baseURL":"/v1","model":"m","secretParams":[3]}`,
			"invalid backend: backend.secretParams must be an array of query parameter names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPage(t)
			e := p.fails("create", `"session":1,"options":{`+tc.options+`}`, "TypeError")
			require.Equal(t, tc.message, e["message"])
			for _, part := range []string{"alice", "hunter2", "tok-0123456789", "k3y-"} {
				require.NotContains(t, strings.Join(p.written(), "\n"), part)
			}
		})
	}
}

// The page's secretParams and the credential names are redacted from what leaves; an
// ordinary query value (Azure's api-version, a team's name) is not.
func TestRedact_QueryValues(t *testing.T) {
	srv := &hostileMCP{echo: "x", parts: []string{"tenant acme-tenant-0042, sig s1gnature-v4lue, version 2024-10-21, team engineering"}}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	p := newPage(t)
	p.fetch = httpFetch(ts.Client(), 0)
	p.approve = func(msg) any { return true }
	p.ok("create", `"session":1,"options":{"mcpServers":[{"url":"`+ts.URL+`/mcp?tenant=acme-tenant-0042&sig=s1gnature-v4lue&api-version=2024-10-21&team=engineering","trusted":true,"secretParams":["tenant"]}],`+
		`"toolUseConfig":{"approve":1},`+script(`{"calls":[{"name":"leak","arguments":{}}]}`, `{"text":"done"}`)+`}`)
	p.listenAll(1)
	require.Equal(t, "done", p.ok("prompt", `"session":1,"input":"go"`).(map[string]any)["text"])
	p.drain()
	requireNoSecret(t, p, "acme-tenant-0042", "s1gnature-v4lue")
	hist := string(p.h.Query([]byte(`{"type":"history","id":0,"session":1}`)))
	require.Contains(t, hist, "version 2024-10-21, team engineering")
}
