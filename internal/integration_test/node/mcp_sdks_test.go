//go:build !js

package node

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

// TestNode_MCPServerSDKs runs the module's MCP client under Node against a server on
// the official TypeScript SDK's v2 line (moduletest.StartMCPServerV2, the 2026-07-28
// revision): its default endpoint serves a 2025-11-25 client statelessly (no
// Mcp-Session-Id, GET and DELETE answered 405), and the session lists its tools and
// calls one. The v1 line's stateful server is TestNode_MCP's.
func TestNode_MCPServerSDKs(t *testing.T) {
	base := moduletest.StartMCPServerV2(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, "node", "--input-type=module", "-e", `
		const [face, wasm, wasmExec, MCP] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		console.log(JSON.stringify(await (async () => {`+moduletest.MCPServerV2JS+`})()));
		process.exit(0);`, "file://"+face, moduletest.ModuleWasm, browsertest.WasmExecJS(t), base+"/mcp")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	moduletest.RequireJSON(t, moduletest.MCPServerV2Want, decodeLast(t, out))
}
