//go:build !js

package browser

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
	"langmodel/internal/testing/replay"
)

// StrictCSP is the policy docs/backends.md says a page needs: scripts from its own
// origin, and WebAssembly compilation ('wasm-unsafe-eval'); nothing inline, no eval, no
// other origin (a model server elsewhere needs its origin in connect-src).
const StrictCSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"

// withCSP adds the policy to every response of h.
func withCSP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", StrictCSP)
		h.ServeHTTP(w, r)
	})
}

// TestBrowser_StrictCSP: the face and the module run in a page under StrictCSP (issue
// 13): install(), a closed loop, an OpenAI-compatible server on the page's origin,
// streaming; the browser reports no violation but the test's own probe (an inline
// script, refused: the policy is in force and its violations reach the console).
func TestBrowser_StrictCSP(t *testing.T) {
	base := browsertest.Serve(t, "", map[string]http.Handler{
		"/":               withCSP(http.FileServer(http.Dir("testdata/csp"))),
		"/langmodel.wasm": withCSP(browsertest.File(moduletest.ModuleWasm)),
		"/wasm_exec.js":   withCSP(browsertest.File(browsertest.WasmExecJS(t))),
		"/js/":            withCSP(http.StripPrefix("/js/", http.FileServer(http.Dir("../../../js")))),
		"/r/":             withCSP(&replay.Server{Split: 64, Pause: time.Millisecond}),
	})
	p := browsertest.Shared(t).Open(t, base+"/")
	var got any
	require.NoError(t, p.Eval(t.Context(), `
		for (let i = 0; !globalThis.cspResult; i++) {
			if (i > 500) throw new Error("page.js did not run");
			await new Promise((r) => setTimeout(r, 10));
		}
		const r = await cspResult, result = { ...r, violations: [...r.violations] };
		const probe = document.createElement("script");
		probe.textContent = "window.__inline = true";
		document.head.append(probe);
		if (window.__inline) throw new Error("an inline script ran: the policy is not in force");
		await new Promise((r) => setTimeout(r, 100));
		return result;`, &got))
	moduletest.RequireJSON(t, `{"violations":[],"scripted":"done","history":["user","tool-call","tool-result","assistant"],
		"openai":"Sunny in Paris, 21°C.","streamed":"Sunny in Paris, 21°C."}`, got)
	var csp []string
	for _, line := range p.Console() {
		if strings.Contains(line, "Content Security Policy") {
			csp = append(csp, line)
		} else {
			require.False(t, strings.HasPrefix(line, "error"), "console: %s", line)
		}
	}
	require.Len(t, csp, 1, "CSP reports in the console: %q", csp)
	require.Contains(t, csp[0], "inline script", "the probe's")
}
