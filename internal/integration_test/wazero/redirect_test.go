//go:build !js

package wazero

// Redirects refused (moduletest.RedirectJS) under wazero.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/moduletest"
)

// TestModule_RedirectsRefused is TestNode_RedirectsRefused in the real .wasm under
// wazero, whose host's fetch honours redirect as fetch does (moduletest/fetch.go).
func TestModule_RedirectsRefused(t *testing.T) {
	base, stolen := moduletest.RedirectServers(t)
	h := moduletest.NewHost(t)
	h.Set("BASE", base)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, moduletest.RedirectJS)
	require.NoError(t, err)
	moduletest.RequireJSON(t, `{
		"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect (HTTP 307), and the module follows none",
		"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect (HTTP 307), and the module follows none"}`, v)
	require.Empty(t, stolen(), "requests the other origin received")
}
