package mcp

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/jsonv"
	"langmodel/loop"
)

// progressing is a tools/call answer that is only progress: one notification every d,
// for ever (until the request's ctx ends).
type progressing struct {
	ctx   loop.Context
	d     time.Duration
	sent  int
	token string
}

func (p *progressing) Read(b []byte) (int, error) {
	select {
	case <-time.After(p.d):
	case <-p.ctx.Done():
		return 0, p.ctx.Err()
	}
	p.sent++
	return copy(b, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+p.token+`,"progress":1}}`+"\n\n"), nil
}

// A tools/call answered only by progress is bounded as a whole: each notification resets
// the silence timer (timeout), but nothing resets maxCallTime, MCP's maximum "regardless
// of progress notifications"; the call fails with a tool error that says so, and the
// server is told (notifications/cancelled).
func TestRun_MaxCallTime(t *testing.T) {
	rows := []struct {
		name string
		srv  Server
		want string
	}{
		{"the page's maxCallTime", Server{URL: "mem:/mcp", Name: "mem", Timeout: 100 * loop.Millisecond, MaxCallTime: 400 * loop.Millisecond},
			"error: MCP server: mem:/mcp did not finish tools/call within 400 ms (its maxCallTime, whatever progress it reports)"},
		{"silence still fails sooner", Server{URL: "mem:/mcp", Name: "mem", Timeout: 5 * loop.Millisecond, MaxCallTime: 10 * loop.Second},
			"error: MCP server: mem:/mcp did not answer tools/call within 5 ms"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var body *progressing
			m := &memServer{}
			m.answer = func(method, id string, params jsonv.RawMessage) (string, string) {
				if method == "tools/list" {
					return "application/json", toolsPage(id, "t", 1, "d", "")
				}
				return "text/event-stream", ""
			}
			s, err := Connect(loop.Background(), &progressOnly{m: m, body: &body}, []Server{row.srv})
			require.NoError(t, err)
			t.Cleanup(func() { s.Release(0) })
			got, _ := run(t, s, "t0", `{}`)
			require.Equal(t, row.want, got)
			if row.srv.MaxCallTime < loop.Second {
				require.Greater(t, body.sent, 3, "progress came all along")
			}
			require.Eventually(t, func() bool {
				m.mu.Lock()
				defer m.mu.Unlock()
				return strings.Contains(strings.Join(m.methods, " "), "notifications/cancelled")
			}, 5*time.Second, 5*time.Millisecond)
		})
	}
}

// progressOnly is m, with tools/call answered by an endless stream of progress.
type progressOnly struct {
	m    *memServer
	body **progressing
}

func (p *progressOnly) Do(ctx loop.Context, req *Request) (*Response, error) {
	resp, err := p.m.Do(ctx, req)
	if err != nil || !strings.Contains(string(req.Body), `"tools/call"`) {
		return resp, err
	}
	tok := "0"
	if _, after, ok := strings.Cut(string(req.Body), `"progressToken":`); ok {
		tok = after[:strings.IndexAny(after, ",}")]
	}
	*p.body = &progressing{ctx: ctx, d: 20 * time.Millisecond, token: tok}
	resp.Body = io.NopCloser(*p.body)
	return resp, nil
}
