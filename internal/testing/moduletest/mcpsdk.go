package moduletest

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// StartNodeServer starts one of internal/npm's servers (script, e.g. "mcp-server.mjs")
// under Node for the test and returns the first line it prints, its URL; it is killed
// when the test ends.
func StartNodeServer(t *testing.T, script string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	_, here, _, _ := runtime.Caller(0)
	server := exec.Command(node, script)
	server.Dir = filepath.Join(filepath.Dir(here), "..", "..", "npm")
	stdout, err := server.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "%s did not start: run make deps", script)
	return strings.TrimSpace(line)
}

// StartMCPServerV2 starts the MCP server on the official TypeScript SDK's v2 line
// (internal/npm/mcp-server-v2.mjs, @modelcontextprotocol/server: the 2026-07-28 revision,
// and 2025-era clients served statelessly at its default endpoint) and returns its base
// URL: the default endpoint is <base>/mcp, the modern-only one <base>/modern.
func StartMCPServerV2(t *testing.T) string {
	t.Helper()
	return StartNodeServer(t, "mcp-server-v2.mjs")
}

// MCPServerV2JS is a session with the v2 server's default endpoint (MCP) as its tool
// source: the model calls its tool, and the page reads what the session says of it.
// MCPServerV2Want is what it must read.
const (
	MCPServerV2JS = `
const s = await lm.LanguageModel.create({ mcpServers: [{ url: MCP, trusted: true }],
	backend: { kind: "scripted", turns: [{ calls: [{ name: "weather", arguments: { city: "Rome" } }] }, { text: "done" }] } });
const answer = await s.prompt("Weather?");
const listed = (await s.listTools()).map((t) => [t.name, t.source.kind, t.annotations?.readOnlyHint].join(" "));
const result = s.history.find((m) => m.role === "tool-result").content[0].value.result;
s.destroy();
return { answer, listed, result };`
	MCPServerV2Want = `{"answer":"done","listed":["weather mcp true"],"result":[{"type":"text","value":"Sunny in Rome"}]}`
)
