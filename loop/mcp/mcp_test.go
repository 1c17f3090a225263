package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/internal/testing/mcptest"
	"langmodel/loop"
	"langmodel/session"
)

// goTransport is the Transport over Go's HTTP client (the browser's is the page's fetch).
// It keeps every request it sent, for the tests' checks of headers.
type goTransport struct {
	mu   sync.Mutex
	sent []*Request
}

func (g *goTransport) Do(ctx loop.Context, req *Request) (*Response, error) {
	g.mu.Lock()
	g.sent = append(g.sent, req)
	g.mu.Unlock()
	c, cancel := context.WithCancel(context.Background())
	stop := loop.AfterFunc(ctx, cancel)
	r, err := http.NewRequestWithContext(c, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		cancel()
		return nil, err
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	h := map[string]string{}
	for k := range resp.Header {
		h[strings.ToLower(k)] = resp.Header.Get(k)
	}
	return &Response{Status: resp.StatusCode, Header: h, Body: closer{resp.Body, func() { stop(); cancel() }}}, nil
}

type closer struct {
	io.ReadCloser
	f func()
}

func (c closer) Close() error { c.f(); return c.ReadCloser.Close() }

func connect(t *testing.T, srv *mcptest.Server) (*Set, *goTransport) {
	t.Helper()
	tr := &goTransport{}
	s, err := Connect(loop.Background(), tr, []Server{{URL: srv.URL, Name: "srv"}})
	require.NoError(t, err)
	t.Cleanup(func() { s.Release(0) })
	return s, tr
}

func toolNames(s *Set) []string {
	var out []string
	tools, _ := s.Tools(nil)
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func run(t *testing.T, s *Set, name, args string) (string, []string) {
	t.Helper()
	var progress []string
	parts, err := s.RunDeclared(loop.Background(), session.ToolCall{CallID: "c1", Name: name, Arguments: jsonv.RawMessage(args)}, declared(t, s, nil, name), func(p jsonv.RawMessage) { progress = append(progress, string(p)) })
	if err != nil {
		return "error: " + err.Error(), progress
	}
	require.Len(t, parts, 1)
	return parts[0].Text, progress
}

// declared is the declaration of tool name among the set's and own, as a step takes it.
func declared(t *testing.T, s *Set, own []session.Tool, name string) *session.Tool {
	t.Helper()
	tools, _ := s.Tools(own)
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestConnect_ListsEveryPage(t *testing.T) {
	for _, jsonBodies := range []bool{false, true} {
		srv := mcptest.Start(mcptest.Options{JSON: jsonBodies})
		t.Cleanup(srv.Close)
		s, tr := connect(t, srv)
		require.Equal(t, []string{"add_news", "crash", "delete_file", "forecast", "hang", "plain", "slow", "weather"}, toolNames(s))
		tools, err := s.Tools(nil)
		require.NoError(t, err)
		w := tools[7]
		require.Equal(t, "Weather", w.Annotations.Title)
		require.True(t, *w.Annotations.ReadOnlyHint)
		require.True(t, w.MCPResult && w.HasExecute)
		require.True(t, *tools[2].Annotations.DestructiveHint)
		require.Equal(t, session.Source{Kind: "mcp", Server: "srv", Origin: srv.Base, Fn: 0, Ref: "weather"}, w.Source)
		// Every request after initialize carries the session and the protocol revision.
		last := tr.sent[len(tr.sent)-1]
		require.NotEmpty(t, last.Header["mcp-session-id"])
		require.Equal(t, ProtocolVersion, last.Header["mcp-protocol-version"])
	}
}

func TestRun(t *testing.T) {
	rows := []struct {
		name, tool, args, want string
		progress               []string
	}{
		{name: "text and image content come back as the CallToolResult", tool: "weather", args: `{"city":"Rome"}`,
			want: `{"content":[{"text":"Sunny in Rome","type":"text"},{"data":"AQID","mimeType":"image/png","type":"image"}]}`},
		{name: "isError comes back for the loop to read", tool: "forecast", args: `{"city":"Oslo"}`,
			want: `{"content":[{"text":"no forecast for Oslo","type":"text"}],"isError":true}`},
		{name: "progress notifications become progress", tool: "slow", args: `{}`,
			want: `{"content":[{"text":"slow done","type":"text"}]}`, progress: []string{`{"message":"half","progress":1,"total":2}`, `{"message":"all","progress":2,"total":2}`}},
	}
	for _, jsonBodies := range []bool{false, true} {
		srv := mcptest.Start(mcptest.Options{JSON: jsonBodies})
		t.Cleanup(srv.Close)
		s, _ := connect(t, srv)
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				got, progress := run(t, s, row.tool, row.args)
				want := strings.ReplaceAll(row.want, "URL", srv.URL)
				if strings.HasPrefix(want, "error: ") {
					require.True(t, strings.HasPrefix(got, want), got)
					return
				}
				require.JSONEq(t, want, got)
				if !jsonBodies { // a JSON body has no room for them
					require.Equal(t, row.progress, progress)
				}
			})
		}
	}
}

func TestCall_JSONRPCError(t *testing.T) {
	srv := mcptest.Start(mcptest.Options{})
	t.Cleanup(srv.Close)
	s, _ := connect(t, srv)
	_, err := s.clients[0].call(loop.Background(), "tools/call", []byte(`{"name":"nope","arguments":{}}`), nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "MCP server: "+srv.URL+" tools/call failed: ")
	require.Contains(t, err.Error(), "(JSON-RPC error -32602)")
}

func TestRun_ListChangedBeforeTheNextStep(t *testing.T) {
	srv := mcptest.Start(mcptest.Options{})
	t.Cleanup(srv.Close)
	s, _ := connect(t, srv)
	var got [][]string
	s.Follow(1, func() { got = append(got, toolNames(s)) })
	out, _ := run(t, s, "add_news", `{}`)
	require.JSONEq(t, `{"content":[{"type":"text","text":"added"}]}`, out)
	require.Contains(t, toolNames(s), "news")
	require.NotEmpty(t, got)
	out, _ = run(t, s, "news", `{}`)
	require.JSONEq(t, `{"content":[{"type":"text","text":"all calm"}]}`, out)
}

func TestRun_AbortSendsCancelled(t *testing.T) {
	srv := mcptest.Start(mcptest.Options{})
	t.Cleanup(srv.Close)
	s, _ := connect(t, srv)
	ctx, cancel := loop.WithCancel(loop.Background())
	done := make(chan error)
	go func() {
		_, err := s.RunDeclared(ctx, session.ToolCall{CallID: "c", Name: "hang", Arguments: jsonv.RawMessage(`{}`)}, declared(t, s, nil, "hang"), nil)
		done <- err
	}()
	require.Eventually(t, func() bool { return len(srv.Log()) > 0 }, 10e9, 1e6) // started
	cancel()
	require.Error(t, <-done)
	require.Eventually(t, func() bool { return strings.Contains(strings.Join(srv.Log(), ","), "cancelled hang") }, 10e9, 1e6)
}

func TestRun_ServerKilledMidCall(t *testing.T) {
	srv := mcptest.Start(mcptest.Options{})
	t.Cleanup(srv.Close)
	s, _ := connect(t, srv)
	got, _ := run(t, s, "crash", `{}`)
	require.True(t, strings.HasPrefix(got, "error: MCP server: "+srv.URL+" "), got)
}

func TestConnect_Failures(t *testing.T) {
	srv := mcptest.Start(mcptest.Options{Token: "s3cret-token"})
	t.Cleanup(srv.Close)
	rows := []struct {
		name   string
		server Server
		kind   session.Kind
		msg    string
	}{
		{name: "a server that cannot be reached is a NetworkError naming the URL", server: Server{URL: "http://127.0.0.1:1/mcp", Header: map[string]string{"authorization": "Bearer s3cret-token"}},
			kind: session.KindNetwork, msg: "MCP server: http://127.0.0.1:1/mcp could not be reached"},
		{name: "a refused credential is a NetworkError, the header unsaid", server: Server{URL: srv.URL, Header: map[string]string{"authorization": "Bearer wrong-s3cret"}},
			kind: session.KindNetwork, msg: "MCP server: " + srv.URL + " answered HTTP 401 to initialize"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			_, err := Connect(loop.Background(), &goTransport{}, []Server{row.server})
			require.Error(t, err)
			require.Equal(t, row.kind, session.KindOf(err))
			require.Contains(t, err.Error(), row.msg)
			require.NotContains(t, err.Error(), "s3cret")
		})
	}
	t.Run("the right credential connects, and the end of the set deletes the MCP session", func(t *testing.T) {
		s, err := Connect(loop.Background(), &goTransport{}, []Server{{URL: srv.URL, Name: "a", Header: map[string]string{"authorization": "Bearer s3cret-token"}}})
		require.NoError(t, err)
		s.Retain()
		s.Release(1)
		require.NotContains(t, srv.Log(), "DELETE", "a clone still uses it")
		s.Release(0)
		require.Eventually(t, func() bool { return strings.Contains(strings.Join(srv.Log(), ","), "DELETE") }, 10e9, 1e6)
	})
}

func TestConnect_VersionNegotiationFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"old","version":"1"}}}`))
	}))
	t.Cleanup(srv.Close)
	_, err := Connect(loop.Background(), &goTransport{}, []Server{{URL: srv.URL, Name: "old"}})
	require.Error(t, err)
	require.Equal(t, session.KindNotSupported, session.KindOf(err))
	require.Equal(t, `MCP server: `+srv.URL+` answered protocol version "2024-11-05", and this module speaks "2025-11-25", "2025-06-18", "2025-03-26"`, err.Error())
}

func TestConnect_Names(t *testing.T) {
	a := mcptest.Start(mcptest.Options{})
	b := mcptest.Start(mcptest.Options{})
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	s, err := Connect(loop.Background(), &goTransport{}, []Server{{URL: a.URL, Name: "a"}, {URL: b.URL, Name: "b"}})
	require.NoError(t, err)
	t.Cleanup(func() { s.Release(0) })
	own, err := session.ParseTools([]any{map[string]any{"name": "weather", "description": "the page's", "hasExecute": true}}, false)
	require.NoError(t, err)
	tools, err := s.Tools(own)
	require.NoError(t, err)
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	require.Equal(t, "weather", names[0], "the page's tools keep their names")
	require.Contains(t, names, "a__weather", "a name the page's tools have, and another server's")
	require.Contains(t, names, "b__plain")
	require.NotContains(t, names[1:], "weather")
	parts, err := s.RunDeclared(loop.Background(), session.ToolCall{CallID: "c", Name: "b__weather", Arguments: jsonv.RawMessage(`{"city":"Rome"}`)}, declared(t, s, own, "b__weather"), nil)
	require.NoError(t, err)
	require.Contains(t, parts[0].Text, "Sunny in Rome")
}

// A server's tool becomes a declaration the session takes: its own title and MCP's
// annotations, never WebMCP's consequentialHint (the page's to give), untrustedContentHint
// unless the page trusts the server, a description however little the server said.
func TestDeclaration_AsTheSessionTakesIt(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name        string
		tool        string
		trusted     bool
		unannotated string
		want        session.Tool
	}{
		{"MCP's annotations and title are kept",
			`{"name":"w","title":"Weather","description":"the weather","annotations":{"readOnlyHint":true,"openWorldHint":true},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "the weather", Annotations: session.Annotations{Title: "Weather", ReadOnlyHint: &yes, OpenWorldHint: &yes}}},
		{"WebMCP's hints from a trusted server are dropped",
			`{"name":"w","description":"d","annotations":{"untrustedContentHint":false,"consequentialHint":true,"destructiveHint":true,"openWorldHint":false},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &yes, OpenWorldHint: &no}}},
		{"a server's output is untrusted unless the page trusts it, whatever the server says",
			`{"name":"w","description":"d","annotations":{"untrustedContentHint":false,"readOnlyHint":true},"inputSchema":{"type":"object"}}`, false, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{UntrustedContentHint: &yes, ReadOnlyHint: &yes, OpenWorldHint: &yes}}},
		{"no annotations: MCP's defaults, destructive and open-world",
			`{"name":"w","description":"d","inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &yes, OpenWorldHint: &yes}}},
		{"readOnlyHint false: destructive by default",
			`{"name":"w","description":"d","annotations":{"readOnlyHint":false},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes, OpenWorldHint: &yes}}},
		{"destructiveHint false is kept",
			`{"name":"w","description":"d","annotations":{"destructiveHint":false},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &no, OpenWorldHint: &yes}}},
		{"a hint that is not a boolean is not said",
			`{"name":"w","description":"d","annotations":{"readOnlyHint":"yes"},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &yes, OpenWorldHint: &yes}}},
		{"a server the page vouches for: unannotated tools are read-only",
			`{"name":"w","description":"d","inputSchema":{"type":"object"}}`, true, UnannotatedReadOnly,
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{ReadOnlyHint: &yes, OpenWorldHint: &yes}}},
		{"a server the page vouches for: a tool that says it is destructive still is",
			`{"name":"w","description":"d","annotations":{"destructiveHint":true},"inputSchema":{"type":"object"}}`, true, UnannotatedReadOnly,
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &yes, OpenWorldHint: &yes}}},
		{"annotations that are not an object are ignored",
			`{"name":"w","description":"d","annotations":"loud","inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "d", Annotations: session.Annotations{DestructiveHint: &yes, OpenWorldHint: &yes}}},
		{"without a description, the annotations' title describes it",
			`{"name":"w","annotations":{"title":"Weather","readOnlyHint":true},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "Weather", Annotations: session.Annotations{Title: "Weather", ReadOnlyHint: &yes, OpenWorldHint: &yes}}},
		{"without a description or title, its name does",
			`{"name":"w","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}`, true, "",
			session.Tool{Name: "w", Description: "w", Annotations: session.Annotations{ReadOnlyHint: &yes, OpenWorldHint: &yes}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := jsonv.Decode([]byte(tc.tool))
			require.NoError(t, err)
			v := d.(map[string]any)
			tools, err := session.ParseTools([]any{declaration(v, &Server{Trusted: tc.trusted, Unannotated: tc.unannotated})}, false)
			require.NoError(t, err)
			got := tools[0]
			require.True(t, got.HasExecute && got.MCPResult)
			require.Equal(t, tc.want.Name, got.Name)
			require.Equal(t, tc.want.Description, got.Description)
			require.Equal(t, tc.want.Annotations, got.Annotations)
		})
	}
}
