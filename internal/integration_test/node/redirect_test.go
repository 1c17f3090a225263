//go:build !js

package node

// Redirects refused (moduletest.RedirectJS) under Node.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// TestNode_RedirectsRefused: the engine's requests go through the page's fetch with
// redirects refused. A server that answers 307 (to another origin, on another 127.0.0.1
// port) fails the request with an error naming the URL it was sent to, by origin and path,
// and the other origin receives nothing: not the MCP initialize with the page's X-API-Key
// header, not the model request with the API key. Under Node, through the real face
// (js/language-model.node.js) and the real module.
func TestNode_RedirectsRefused(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	base, stolen := moduletest.RedirectServers(t)
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
		const [face, wasm, wasmExec, BASE] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		console.log(JSON.stringify(await (async () => {`+moduletest.RedirectJS+`})()));
		process.exit(0);`, "file://"+face, moduletest.ModuleWasm, browsertest.WasmExecJS(t), base)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	moduletest.RequireJSON(t, `{
		"mcp": "NetworkError: MCP server: BASE/mcp could not be reached: BASE/mcp answered with a redirect (HTTP 307), and the module follows none",
		"model": "NetworkError: the model failed: BASE/v1/chat/completions answered with a redirect (HTTP 307), and the module follows none"}`, decodeLast(t, out))
	require.Empty(t, stolen(), "requests the other origin received")
}
