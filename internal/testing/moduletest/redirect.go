//go:build !js

package moduletest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// RedirectJS asks an MCP server (with the page's X-API-Key) and a model server (with the
// API key) at BASE, which answers every request with a 307 to another origin, and returns
// how each failed, BASE for the server's origin.
const RedirectJS = `
	const { LanguageModel } = lm;
	const caught = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + ": " + e.message.replaceAll(BASE, "BASE"); } };
	const mcp = await caught(LanguageModel.create({ mcpServers: [{ url: BASE + "/mcp", headers: { "X-API-Key": "sk-header-secret" } }] }));
	const s = await LanguageModel.create({ backend: { kind: "openai", baseURL: BASE + "/v1", apiKey: "sk-key-secret", model: "m" } });
	const model = await caught(s.prompt("hi"));
	return { mcp, model };`

// RedirectServers starts the server that redirects and the origin it redirects to; stolen
// reports what that other origin received. Both let any page in (CORS), so that what
// stops the requests is the module's refusal, not the browser's.
func RedirectServers(t *testing.T) (base string, stolen func() []string) {
	var mu sync.Mutex
	var got []string
	cors := func(w http.ResponseWriter, r *http.Request) bool {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, X-API-Key, Mcp-Session-Id, Mcp-Protocol-Version")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return true
		}
		return false
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" x-api-key="+r.Header.Get("X-Api-Key")+" authorization="+r.Header.Get("Authorization"))
		mu.Unlock()
		if cors(w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "stolen")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"other","version":"1"}}}`))
	}))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cors(w, r) {
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	return redirecting.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}
