package mcp

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
	"langmodel/session"
)

// memServer is a hostile MCP server in memory: a Transport whose answers are written by
// the test. It initializes (announcing tools/list_changed when listChanged), takes
// notifications with 202, and answers every other request with answer(method, id,
// params), and the GET of the server's own stream with stream. It counts the bytes the
// client read of its bodies and the streams it opened and closed.
type memServer struct {
	listChanged bool
	answer      func(method, id string, params jsonv.RawMessage) (contentType, body string)
	stream      func(ctx loop.Context) io.Reader // the GET's body; nil: 405

	read           atomic.Int64 // bytes the client read of every body
	mu             sync.Mutex
	methods        []string // the methods and GETs asked, in order
	opened, closed int      // GET streams
}

func (m *memServer) log(what string) {
	m.mu.Lock()
	m.methods = append(m.methods, what)
	m.mu.Unlock()
}

func (m *memServer) streams() (opened, closed int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opened, m.closed
}

func (m *memServer) Do(ctx loop.Context, req *Request) (*Response, error) {
	if req.Method == "GET" {
		m.log("GET")
		if m.stream == nil {
			return &Response{Status: 405, Header: map[string]string{}, Body: io.NopCloser(strings.NewReader(""))}, nil
		}
		m.mu.Lock()
		m.opened++
		m.mu.Unlock()
		body := &memBody{m: m, ctx: ctx, r: m.stream(ctx), onClose: func() {
			m.mu.Lock()
			m.closed++
			m.mu.Unlock()
		}}
		return &Response{Status: 200, Header: map[string]string{"content-type": "text/event-stream"}, Body: body}, nil
	}
	if req.Method == "DELETE" {
		return &Response{Status: 200, Header: map[string]string{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	var msg struct {
		ID     jsonv.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params jsonv.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(req.Body, &msg); err != nil {
		return nil, err
	}
	m.log(msg.Method)
	if msg.ID == nil {
		return &Response{Status: 202, Header: map[string]string{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	ct, body := "application/json", ""
	if msg.Method == "initialize" {
		body = `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":` +
			strconv.FormatBool(m.listChanged) + `}},"serverInfo":{"name":"mem","version":"1"}}}`
	} else {
		ct, body = m.answer(msg.Method, string(msg.ID), msg.Params)
	}
	return &Response{Status: 200, Header: map[string]string{"content-type": ct}, Body: &memBody{m: m, ctx: ctx, r: strings.NewReader(body)}}, nil
}

// memBody is a body of memServer's: it ends with an error when the request's ctx ends.
type memBody struct {
	m       *memServer
	ctx     loop.Context
	r       io.Reader
	onClose func()
	once    sync.Once
}

func (b *memBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	b.m.read.Add(int64(n))
	return n, err
}

func (b *memBody) Close() error {
	if b.onClose != nil {
		b.once.Do(b.onClose)
	}
	return nil
}

// silent is a stream that says nothing until ctx ends.
func silent(ctx loop.Context) io.Reader { return &waitReader{ctx: ctx} }

type waitReader struct{ ctx loop.Context }

func (w *waitReader) Read([]byte) (int, error) {
	<-w.ctx.Done()
	return 0, w.ctx.Err()
}

// pinging is a stream of keep-alive comments, one every d, until stop is set, and then
// silence.
type pinging struct {
	ctx  loop.Context
	d    time.Duration
	stop *atomic.Bool
}

func (p *pinging) Read(b []byte) (int, error) {
	if p.stop.Load() {
		<-p.ctx.Done()
		return 0, p.ctx.Err()
	}
	t := time.NewTimer(p.d)
	defer t.Stop()
	select {
	case <-t.C:
		return copy(b, ": ping\n\n"), nil
	case <-p.ctx.Done():
		return 0, p.ctx.Err()
	}
}

// toolsPage is a tools/list answer of n tools named prefix0…, each described by desc,
// with nextCursor next ("" for none).
func toolsPage(id, prefix string, n int, desc, next string) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"` + prefix + strconv.Itoa(i) + `","description":"` + desc + `","inputSchema":{"type":"object"}}`)
	}
	b.WriteString(`]`)
	if next != "" {
		b.WriteString(`,"nextCursor":"` + next + `"`)
	}
	b.WriteString(`}}`)
	return b.String()
}

// exactly is page(desc) with desc's length chosen for the page to be size bytes.
func exactly(size int, page func(desc string) string) string {
	return page(strings.Repeat("x", size-len(page(""))))
}

// pageOf is the page a tools/list request asks for: 0 without a cursor, else the cursor.
func pageOf(params jsonv.RawMessage) int {
	var p struct{ Cursor string }
	_ = json.Unmarshal(params, &p)
	n, _ := strconv.Atoi(p.Cursor)
	return n
}

// A server's tool list is bounded over all its tools/list pages, in tools and in bytes,
// and one message (a JSON body, one event) is bounded on its own: what goes over is an
// error naming the server, create() fails, and the client stops reading soon after the
// bound. Lists at the bounds are taken.
func TestConnect_ListBounds(t *testing.T) {
	mb := strings.Repeat("x", 1<<20)
	kb := strings.Repeat("x", 1<<10)
	rows := []struct {
		name   string
		answer func(method, id string, params jsonv.RawMessage) (string, string)
		kind   session.Kind
		msg    string  // "": connects
		tools  int     // the tools declared when it connects
		asked  int     // the tools/list requests sent, when not 0
		read   float64 // at most this many MB were read, when not 0
	}{
		{name: "1000 tools over 10 pages are taken",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				p := pageOf(params)
				next := ""
				if p < 9 {
					next = strconv.Itoa(p + 1)
				}
				return "application/json", toolsPage(id, "p"+strconv.Itoa(p)+"_", 100, "d", next)
			},
			tools: 1000},
		{name: "2000 tools over 20 pages are refused at the page that crosses 1000",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				p := pageOf(params)
				next := ""
				if p < 19 {
					next = strconv.Itoa(p + 1)
				}
				return "application/json", toolsPage(id, "p"+strconv.Itoa(p)+"_", 100, "d", next)
			},
			kind: session.KindOperation, msg: "MCP server: mem:/mcp offered more than 1000 tools", asked: 11},
		{name: "24 pages of 1 MB descriptions are refused once the list passes 1 MB",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				p := pageOf(params)
				next := ""
				if p < 23 {
					next = strconv.Itoa(p + 1)
				}
				return "application/json", toolsPage(id, "p"+strconv.Itoa(p)+"_", 1, mb[:1<<20-200], next)
			},
			kind: session.KindOperation, msg: "MCP server: mem:/mcp listed more than 1 MB of tools", asked: 2, read: 2.1},
		{name: "a list of exactly 1 MB is taken",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				return "application/json", exactly(1<<20, func(desc string) string { return toolsPage(id, "t", 1, desc, "") })
			},
			tools: 1},
		{name: "a first page of exactly 1 MB, then any page more, is refused",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				if pageOf(params) == 1 {
					return "application/json", toolsPage(id, "u", 1, "", "")
				}
				return "application/json", exactly(1<<20, func(desc string) string { return toolsPage(id, "t", 1, desc, "1") })
			},
			kind: session.KindOperation, msg: "MCP server: mem:/mcp listed more than 1 MB of tools", asked: 2},
		{name: "a list just under 1 MB is taken",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				return "application/json", toolsPage(id, "t", 900, kb[:1000], "")
			},
			tools: 900},
		{name: "one SSE answer of 3 MB to tools/list stops at 1 MB",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				return "text/event-stream", "data: " + toolsPage(id, "t", 3, mb, "") + "\n\n"
			},
			kind: session.KindOperation, msg: "MCP server: mem:/mcp listed more than 1 MB of tools", asked: 1, read: 3.1},
		{name: "notifications in a tools/list stream count toward its bytes",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				note := `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + kb + `"}}` + "\n\n"
				return "text/event-stream", strings.Repeat(note, 2000) + "data: " + toolsPage(id, "t", 1, "d", "") + "\n\n"
			},
			kind: session.KindOperation, msg: "MCP server: mem:/mcp listed more than 1 MB of tools", asked: 1, read: 1.2},
		{name: "a JSON body over 4 MB is refused, read no further than the limit",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				return "application/json", toolsPage(id, "t", 16, mb, "")
			},
			kind: session.KindNetwork, msg: "MCP server: mem:/mcp tools/list failed: the answer is larger than 4 MB", asked: 1, read: 4.1},
		{name: "an event of 16 data lines of 1 MB is refused, read no further than the limit and two lines",
			answer: func(_, id string, params jsonv.RawMessage) (string, string) {
				return "text/event-stream", strings.Repeat("data: "+mb+"\n", 16) + "\n"
			},
			kind: session.KindNetwork, msg: "MCP server: mem:/mcp tools/list failed: an event is larger than 4 MB", asked: 1, read: 6.1},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			m := &memServer{answer: row.answer}
			s, err := Connect(loop.Background(), m, []Server{{URL: "mem:/mcp", Name: "mem"}})
			if row.msg == "" {
				require.NoError(t, err)
				t.Cleanup(func() { s.Release(0) })
				tools, err := s.Tools(nil)
				require.NoError(t, err)
				require.Len(t, tools, row.tools)
				return
			}
			require.Error(t, err)
			require.Equal(t, row.kind, session.KindOf(err), "%v", err)
			require.Equal(t, row.msg, err.Error())
			if row.asked > 0 {
				asked := 0
				for _, method := range m.methods {
					if method == "tools/list" {
						asked++
					}
				}
				require.Equal(t, row.asked, asked)
			}
			if row.read > 0 {
				require.LessOrEqual(t, float64(m.read.Load()), row.read*(1<<20), "bytes read")
			}
		})
	}
}

// A tools/call answer is held to the same bounds of one message as any other (a JSON
// body, one event of many data lines), but not to the list's: a result may be large.
func TestRun_MessageBounds(t *testing.T) {
	mb := strings.Repeat("x", 1<<20)
	result := func(id string, text string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
	}
	rows := []struct {
		name   string
		answer func(id string) (string, string)
		want   string // the error, or "" for a result of 3 MB
	}{
		{name: "a result of 3 MB comes back", answer: func(id string) (string, string) { return "application/json", result(id, strings.Repeat(mb, 3)) }},
		{name: "an event of 16 data lines of 1 MB is an error", answer: func(id string) (string, string) {
			return "text/event-stream", strings.Repeat("data: "+mb+"\n", 16) + "\n"
		}, want: "error: MCP server: mem:/mcp tools/call failed: an event is larger than 4 MB"},
		{name: "a JSON body of 5 MB is an error", answer: func(id string) (string, string) { return "application/json", result(id, strings.Repeat(mb, 5)) },
			want: "error: MCP server: mem:/mcp tools/call failed: the answer is larger than 4 MB"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			m := &memServer{answer: func(method, id string, params jsonv.RawMessage) (string, string) {
				if method == "tools/list" {
					return "application/json", toolsPage(id, "t", 1, "d", "")
				}
				return row.answer(id)
			}}
			s, err := Connect(loop.Background(), m, []Server{{URL: "mem:/mcp", Name: "mem"}})
			require.NoError(t, err)
			t.Cleanup(func() { s.Release(0) })
			got, _ := run(t, s, "t0", `{}`)
			if row.want == "" {
				require.JSONEq(t, `{"content":[{"type":"text","text":"`+strings.Repeat(mb, 3)+`"}]}`, got)
			} else {
				require.Equal(t, row.want, got)
			}
			require.LessOrEqual(t, m.read.Load(), int64(6<<20+100<<10), "bytes read")
		})
	}
}

// The server's own stream (the GET that waits for notifications/tools/list_changed) is
// held to the per-event bound, and to a silence bound: a stream with no byte for the
// client's silence (ListenSilence; keep-alive comments count) is closed and opened
// again, and a stream that broke a bound is closed and not opened again.
func TestListen_Bounds(t *testing.T) {
	const silence = 300 * time.Millisecond
	huge := strings.Repeat("data: "+strings.Repeat("x", 1<<20)+"\n", 16) + "\n" // made before the stream opens, and its timer starts
	rows := []struct {
		name    string
		silence time.Duration // when not silence's
		stream  func(ctx loop.Context, stop *atomic.Bool) io.Reader
		play    func(t *testing.T, m *memServer, stop *atomic.Bool)
	}{
		{name: "a silent stream is closed after the silence and opened again",
			stream: func(ctx loop.Context, _ *atomic.Bool) io.Reader { return silent(ctx) },
			play: func(t *testing.T, m *memServer, _ *atomic.Bool) {
				require.Eventually(t, func() bool { o, c := m.streams(); return o >= 2 && c >= 1 }, 20*time.Second, 10*time.Millisecond)
			}},
		{name: "keep-alive comments keep a stream open; silence after them closes it",
			stream: func(ctx loop.Context, stop *atomic.Bool) io.Reader {
				return &pinging{ctx: ctx, d: silence / 6, stop: stop}
			},
			play: func(t *testing.T, m *memServer, stop *atomic.Bool) {
				require.Eventually(t, func() bool { o, _ := m.streams(); return o == 1 }, 20*time.Second, 10*time.Millisecond)
				time.Sleep(6 * silence)
				opened, closed := m.streams()
				require.Equal(t, []int{1, 0}, []int{opened, closed}, "pinged all along: the first stream, open")
				stop.Store(true)
				require.Eventually(t, func() bool { o, c := m.streams(); return o >= 2 && c >= 1 }, 20*time.Second, 10*time.Millisecond)
			}},
		{name: "an event of 16 data lines of 1 MB closes the stream, for good, read no further than the limit and two lines",
			silence: 4 * silence, // reading 4 MB under -race on a busy machine may take one silence
			stream: func(ctx loop.Context, _ *atomic.Bool) io.Reader {
				return io.MultiReader(strings.NewReader(huge), silent(ctx))
			},
			play: func(t *testing.T, m *memServer, _ *atomic.Bool) {
				require.Eventually(t, func() bool { _, c := m.streams(); return c >= 1 }, 20*time.Second, 10*time.Millisecond)
				time.Sleep(6 * silence)
				opened, closed := m.streams()
				require.Equal(t, []int{1, 1}, []int{opened, closed}, "streams opened and closed")
				require.LessOrEqual(t, m.read.Load(), int64(6<<20+100<<10), "bytes read")
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			stop := new(atomic.Bool)
			m := &memServer{listChanged: true, answer: func(_, id string, _ jsonv.RawMessage) (string, string) {
				return "application/json", toolsPage(id, "t", 1, "d", "")
			}}
			m.stream = func(ctx loop.Context) io.Reader { return row.stream(ctx, stop) }
			c := &client{t: m, srv: Server{URL: "mem:/mcp", Name: "mem"}, silence: loop.Duration(silence)}
			if row.silence > 0 {
				c.silence = loop.Duration(row.silence)
			}
			require.NoError(t, c.connect(loop.Background()))
			t.Cleanup(c.close)
			row.play(t, m, stop)
		})
	}
}
