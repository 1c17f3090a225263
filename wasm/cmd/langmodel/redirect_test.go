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

	"langmodel/internal/browsertest"
)

// TestNode_RedirectsRefused: the engine's requests go through the page's fetch with
// redirects refused. A server that answers 307 (to another origin, on another 127.0.0.1
// port) fails the request with an error naming the URL it was sent to, by origin and path
// (never its query), and the other origin receives nothing: not the MCP initialize with
// the page's X-API-Key header, not the model request with the API key. Under Node,
// through the real face (js/language-model.node.js) and the real module.
func TestNode_RedirectsRefused(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	var mu sync.Mutex
	var stolen []string // what the other origin received
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Method+" "+r.URL.Path+" x-api-key="+r.Header.Get("X-Api-Key")+" authorization="+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "stolen")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"other","version":"1"}}}`))
	}))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)

	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
		const [face, wasm, wasmExec, base] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		const { LanguageModel } = lm;
		const caught = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + ": " + e.message.replaceAll(base, "BASE"); } };
		const mcp = await caught(LanguageModel.create({ mcpServers: [{ url: base + "/mcp", headers: { "X-API-Key": "sk-header-secret" } }] }));
		const s = await LanguageModel.create({ backend: { kind: "openai", baseURL: base + "/v1", apiKey: "sk-key-secret", model: "m" } });
		const model = await caught(s.prompt("hi"));
		console.log(JSON.stringify({ mcp, model }));
		process.exit(0);`, "file://"+face, moduleWasm, browsertest.WasmExecJS(t), redirecting.URL)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	requireJSON(t, `{
		"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect (HTTP 307), and the module follows none",
		"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect (HTTP 307), and the module follows none"}`, decodeLast(t, out))
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, stolen, "requests the other origin received")
}
