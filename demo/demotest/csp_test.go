//go:build !js

package demotest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// strictCSP is the policy docs/backends.md says a page needs (see internal/integration_test/browser's
// TestBrowser_StrictCSP for the module alone).
const strictCSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"

// TestDemo_StrictCSP: the demo page works under a strict Content-Security-Policy: it
// loads, runs a closed loop, opens the history panel and the settings, and the browser
// reports no violation but the test's own probe (an inline script, refused: the policy
// is in force and its violations reach the console).
// Chromium only: the policy is the page's, the same in every engine.
func TestDemo_StrictCSP(t *testing.T) {
	t.Parallel()
	demo := http.StripPrefix("/demo/", http.FileServer(http.Dir("..")))
	p := open(t, browsertest.Shared(t), serve(t, map[string]http.Handler{
		"/demo/": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", strictCSP)
			demo.ServeHTTP(w, r)
		}),
	}))
	got := eval[[]card](t, p, `
		say("Show me the world clock"); await idle();
		say("Calculate (17 + 25) * 3 / 2"); await idle();
		$("#settings-toggle").click();
		$("#history-open").click();
		await until(() => $("#history-dialog").open, "the history panel");
		$("#history-close").click();
		const probe = document.createElement("script");
		probe.textContent = "window.__inline = true";
		document.head.append(probe);
		if (window.__inline) throw new Error("an inline script ran: the policy is not in force");
		await new Promise((r) => setTimeout(r, 100));
		return cards();`)
	require.Len(t, got, 4)
	for i, c := range got {
		require.Equal(t, "success", c.State, "card %d: %+v", i, c)
	}
	var csp []string
	for _, line := range p.Console() {
		if strings.Contains(line, "Content Security Policy") {
			csp = append(csp, line)
		}
	}
	require.Len(t, csp, 1, "CSP reports in the console: %q", csp)
	require.Contains(t, csp[0], "inline script", "the probe's")
}
