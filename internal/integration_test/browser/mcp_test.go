//go:build !js

package browser

// The MCP scenarios (moduletest.MCPScenarios) and the misbehaving MCP server's modes in
// every engine, page and worker mode.

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/mcptest"
	"langmodel/internal/testing/moduletest"
)

// TestBrowser_MCP plays them in every engine, with the module on the page and in a
// Worker: the page's origin is not the server's (CORS, Mcp-Session-Id exposed). The rows
// of an engine and mode share a page (browsertest.Pool), each with its own server.
func TestBrowser_MCP(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := browsertest.Serve(t, "", moduletest.ModuleHandlers(t))
		for _, m := range moduletest.Modes {
			pages := b.NewPool(t, base+"/", m.Prelude())
			for _, sc := range moduletest.MCPScenarios {
				t.Run(m.Name+"/"+sc.Name, func(t *testing.T) {
					t.Parallel()
					srv := mcptest.Start(mcptest.Options{Token: sc.Token})
					t.Cleanup(srv.Close)
					server := `globalThis.MCP = "` + srv.URL + `"; globalThis.LOG = "` + srv.Base + `/log";`
					moduletest.RequireJSON(t, sc.Want, moduletest.PlayPooled(t, pages, server+moduletest.MCPCommon+sc.JS))
				})
			}
		}
	})
}

// TestBrowser_MCPServerSDKs: a server on the official TypeScript SDK's v2 line
// (moduletest.StartMCPServerV2, its default endpoint) as a session's tool source in every
// engine, with the module on the page and in a Worker: the page's origin is not the
// server's. The v1 line's is TestNode_MCP's; the Go SDK's, TestBrowser_MCP's.
func TestBrowser_MCPServerSDKs(t *testing.T) {
	v2 := moduletest.StartMCPServerV2(t)
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := browsertest.Serve(t, "", moduletest.ModuleHandlers(t))
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				p := b.Open(t, base+"/")
				require.NoError(t, p.Eval(t.Context(), m.Prelude()+`globalThis.MCP = "`+v2+`/mcp";`, nil))
				var got any
				require.NoError(t, p.Eval(t.Context(), moduletest.MCPServerV2JS, &got))
				moduletest.RequireJSON(t, moduletest.MCPServerV2Want, got)
			})
		}
	})
}

// TestBrowser_ChaosMCP plays it in every engine.
func TestBrowser_ChaosMCP(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := browsertest.Serve(t, "", moduletest.ModuleHandlers(t))
		srv := httptest.NewServer(&chaos.MCPServer{})
		t.Cleanup(srv.Close)
		play := func(t *testing.T, js, set string) any {
			p := b.Open(t, base+"/")
			require.NoError(t, p.Eval(t.Context(), moduletest.Modes[0].Prelude()+`globalThis.MCP = "`+srv.URL+`/mcp"; globalThis.LOG = "`+srv.URL+`/log";`+set, nil))
			var got any
			require.NoError(t, p.Eval(t.Context(), moduletest.MCPCommon+js, &got))
			return got
		}
		for _, row := range moduletest.ChaosMCPRows {
			t.Run(row.Mode, func(t *testing.T) {
				t.Parallel()
				mode, _ := json.Marshal(row.Mode)
				want, _ := json.Marshal(row.Want)
				moduletest.RequireJSON(t, moduletest.ChaosMCPWant(row.Want), play(t, moduletest.ChaosMCPJS, "globalThis.MODE = "+string(mode)+"; globalThis.WANT = "+string(want)+";"))
			})
		}
		t.Run("stall", func(t *testing.T) {
			t.Parallel()
			moduletest.RequireJSON(t, `{"result":"AbortError","history":0}`, play(t, moduletest.ChaosMCPStallJS, ""))
		})
		t.Run("timeout", func(t *testing.T) {
			t.Parallel()
			moduletest.RequireJSON(t, moduletest.ChaosMCPTimeoutWant, play(t, moduletest.ChaosMCPTimeoutJS, ""))
		})
	})
}
