//go:build !js

package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// redirectJS asks an MCP server (with the page's X-API-Key) and a model server (with the
// API key) at BASE, which answers every request with a 307 to another origin, and returns
// how each failed, BASE for the server's origin.
const redirectJS = `
	const { LanguageModel } = lm;
	const caught = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + ": " + e.message.replaceAll(BASE, "BASE"); } };
	const mcp = await caught(LanguageModel.create({ mcpServers: [{ url: BASE + "/mcp", headers: { "X-API-Key": "sk-header-secret" } }] }));
	const s = await LanguageModel.create({ backend: { kind: "openai", baseURL: BASE + "/v1", apiKey: "sk-key-secret", model: "m" } });
	const model = await caught(s.prompt("hi"));
	return { mcp, model };`

// redirectServers starts the server that redirects and the origin it redirects to; stolen
// reports what that other origin received. Both let any page in (CORS), so that what
// stops the requests is the module's refusal, not the browser's.
func redirectServers(t *testing.T) (base string, stolen func() []string) {
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

// TestNode_RedirectsRefused: the engine's requests go through the page's fetch with
// redirects refused. A server that answers 307 (to another origin, on another 127.0.0.1
// port) fails the request with an error naming the URL it was sent to, by origin and path,
// and the other origin receives nothing: not the MCP initialize with the page's X-API-Key
// header, not the model request with the API key. Under Node, through the real face
// (js/language-model.node.js) and the real module.
func TestNode_RedirectsRefused(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	base, stolen := redirectServers(t)
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
		const [face, wasm, wasmExec, BASE] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		console.log(JSON.stringify(await (async () => {`+redirectJS+`})()));
		process.exit(0);`, "file://"+face, moduleWasm, browsertest.WasmExecJS(t), base)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	requireJSON(t, `{
		"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect (HTTP 307), and the module follows none",
		"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect (HTTP 307), and the module follows none"}`, decodeLast(t, out))
	require.Empty(t, stolen(), "requests the other origin received")
}

// TestModule_RedirectsRefused is TestNode_RedirectsRefused in the real .wasm under
// wazero, whose host's fetch honours redirect as fetch does (fetch_test.go).
func TestModule_RedirectsRefused(t *testing.T) {
	base, stolen := redirectServers(t)
	h := newHost(t)
	h.Set("BASE", base)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	v, err := h.Eval(ctx, redirectJS)
	require.NoError(t, err)
	requireJSON(t, `{
		"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect (HTTP 307), and the module follows none",
		"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect (HTTP 307), and the module follows none"}`, v)
	require.Empty(t, stolen(), "requests the other origin received")
}

// TestBrowser_RedirectsRefused is TestNode_RedirectsRefused in every engine, with the
// module on the page and in a Worker: there the redirect comes back opaque, its status
// unknown to the page.
func TestBrowser_RedirectsRefused(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		page := browsertest.Serve(t, "", moduleHandlers(t))
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				base, stolen := redirectServers(t)
				p := b.Open(t, page+"/")
				require.NoError(t, p.Eval(t.Context(), m.prelude()+`globalThis.BASE = "`+base+`";`, nil))
				var got any
				require.NoError(t, p.Eval(t.Context(), redirectJS, &got))
				requireJSON(t, `{
					"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect, and the module follows none",
					"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect, and the module follows none"}`, got)
				require.Empty(t, stolen(), "requests the other origin received")
			})
		}
	})
}
