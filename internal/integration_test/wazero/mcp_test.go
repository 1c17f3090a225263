//go:build !js

package wazero

// The MCP scenarios (moduletest.MCPScenarios) and the misbehaving MCP server's modes under wazero.

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/chaos"
	"langmodel/internal/testing/mcptest"
	"langmodel/internal/testing/moduletest"
)

// TestModule_MCP plays the MCP scenarios in the real .wasm under wazero, through the
// real face, against the Go SDK's server.
func TestModule_MCP(t *testing.T) {
	for _, sc := range moduletest.MCPScenarios {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.Start(mcptest.Options{Token: sc.Token})
			t.Cleanup(srv.Close)
			h := moduletest.NewHost(t)
			h.Set("MCP", srv.URL)
			h.Set("LOG", srv.Base+"/log")
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			v, err := h.Eval(ctx, moduletest.MCPCommon+sc.JS)
			require.NoError(t, err)
			moduletest.RequireJSON(t, sc.Want, v)
		})
	}
}

// TestModule_ChaosMCP plays the misbehaving MCP server under wazero.
func TestModule_ChaosMCP(t *testing.T) {
	srv := httptest.NewServer(&chaos.MCPServer{})
	t.Cleanup(srv.Close)
	play := func(t *testing.T, js string, set map[string]string) any {
		h := moduletest.NewHost(t)
		h.Set("MCP", srv.URL+"/mcp")
		h.Set("LOG", srv.URL+"/log")
		for k, v := range set {
			h.Set(k, v)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		v, err := h.Eval(ctx, moduletest.MCPCommon+js)
		require.NoError(t, err)
		return v
	}
	for _, row := range moduletest.ChaosMCPRows {
		t.Run(row.Mode, func(t *testing.T) {
			t.Parallel()
			if row.BrowserOnly {
				t.Skip("the browsers play it (TestBrowser_ChaosMCP)")
			}
			moduletest.RequireJSON(t, moduletest.ChaosMCPWant(row.Want), play(t, moduletest.ChaosMCPJS, map[string]string{"MODE": row.Mode, "WANT": row.Want}))
		})
	}
	t.Run("stall", func(t *testing.T) {
		t.Parallel()
		moduletest.RequireJSON(t, `{"result":"AbortError","history":0}`, play(t, moduletest.ChaosMCPStallJS, nil))
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		moduletest.RequireJSON(t, moduletest.ChaosMCPTimeoutWant, play(t, moduletest.ChaosMCPTimeoutJS, nil))
	})
}
