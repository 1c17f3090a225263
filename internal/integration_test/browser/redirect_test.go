//go:build !js

package browser

// Redirects refused (moduletest.RedirectJS) in every engine, page and worker mode.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// TestBrowser_RedirectsRefused is TestNode_RedirectsRefused in every engine, with the
// module on the page and in a Worker: there the redirect comes back opaque, its status
// unknown to the page.
func TestBrowser_RedirectsRefused(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		page := browsertest.Serve(t, "", moduletest.ModuleHandlers(t))
		for _, m := range moduletest.Modes {
			t.Run(m.Name, func(t *testing.T) {
				base, stolen := moduletest.RedirectServers(t)
				p := b.Open(t, page+"/")
				require.NoError(t, p.Eval(t.Context(), m.Prelude()+`globalThis.BASE = "`+base+`";`, nil))
				var got any
				require.NoError(t, p.Eval(t.Context(), moduletest.RedirectJS, &got))
				moduletest.RequireJSON(t, `{
					"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect, and the module follows none",
					"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect, and the module follows none"}`, got)
				require.Empty(t, stolen(), "requests the other origin received")
			})
		}
	})
}
