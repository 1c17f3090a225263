//go:build !js

package node

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
	"langmodel/internal/testing/moduletest"
)

// TestNode_MCPServerSDKs runs the module's MCP client under Node against a server on
// the official TypeScript SDK's v2 line (internal/npm/mcp-server-v2.mjs,
// @modelcontextprotocol/server, the 2026-07-28 revision): its default endpoint serves a
// 2025-11-25 client statelessly (no Mcp-Session-Id, GET and DELETE answered 405), and
// the session lists its tools and calls one. The v1 line's stateful server is
// TestNode_MCP's.
func TestNode_MCPServerSDKs(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	server := exec.CommandContext(ctx, node, "mcp-server-v2.mjs")
	server.Dir = "../../../internal/npm"
	stdout, err := server.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	base := strings.TrimSpace(line)

	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
		const [face, wasm, wasmExec, MCP] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		const s = await lm.LanguageModel.create({ mcpServers: [{ url: MCP, trusted: true }],
			backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Rome" } }] }, { text: "done" }] } });
		const answer = await s.prompt("Weather?");
		const listed = (await s.listTools()).map((t) => [t.name, t.source.kind, t.annotations?.readOnlyHint].join(" "));
		const result = s.history.find((m) => m.role === "tool-result").content[0].value.result;
		s.destroy();
		console.log(JSON.stringify({ answer, listed, result }));
		process.exit(0);`, "file://"+face, moduletest.ModuleWasm, browsertest.WasmExecJS(t), base+"/mcp")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	moduletest.RequireJSON(t, `{"answer":"done","listed":["weather mcp true"],"result":[{"type":"text","value":"Sunny in Rome"}]}`, decodeLast(t, out))
}
