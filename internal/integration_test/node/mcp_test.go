//go:build !js

package node

// The MCP client under Node, against a server on the official TypeScript SDK.

import (
	"context"
	"encoding/json"
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

// TestNode_MCP runs the module's MCP client under Node (js/language-model.node.js)
// against a server written with the official TypeScript SDK (internal/npm/mcp-server.mjs):
// a list, text and image content, isError, progress, a destructive tool refused and
// approved, the server's tools as session.listTools() lists them, and the DELETE at the
// last destroy.
func TestNode_MCP(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "Node 20 is needed for the tests")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	url := moduletest.StartNodeServer(t, "mcp-server.mjs")

	face, err := filepath.Abs("../../../js/language-model.node.js")
	require.NoError(t, err)
	wasmExec := browsertest.WasmExecJS(t)
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", `
		const [face, wasm, wasmExec, MCP] = process.argv.slice(1);
		const lm = await import(face);
		await lm.install({ wasm, wasmExec });
		const LOG = MCP.replace(/mcp$/, "log");
		const { LanguageModel } = lm;
		const script = (...turns) => ({ kind: "scripted", turns });
		const call = (name, args) => ({ calls: [{ name, arguments: args }] });
		const lines = (s) => s.history.slice(1).map((m) => {
			const v = m.content[0].value;
			if (m.role === "tool-call") return "call " + v.name;
			if (m.role === "tool-result") return v.errorMessage !== undefined ? "error " + v.name + ": " + v.errorMessage : "result " + v.name + " " + JSON.stringify(v.result);
			return m.role + ": " + (typeof v === "string" ? v : m.content[0].value);
		});
		const progress = [];
		const s = await LanguageModel.create({ mcpServers: [{ url: MCP, trusted: true, unannotated: "readOnly" }], backend: script(
			{ calls: [{ name: "weather", arguments: { city: "Rome" } }, { name: "forecast", arguments: { city: "Oslo" } }, { name: "slow", arguments: {} }, { name: "delete_file", arguments: { path: "/a" } }] },
			{ text: "done" }) });
		s.ontoolprogress = (e) => progress.push(e.detail.value.message);
		await s.prompt("Go");
		const approved = await LanguageModel.create({ mcpServers: [{ url: MCP, trusted: true, unannotated: "readOnly" }], toolUseConfig: { approve: () => true }, backend: script(call("delete_file", { path: "/b" }), { text: "deleted" }) });
		await approved.prompt("Delete");
		const listed = (await s.listTools()).map((t) => [t.name, t.source.kind, t.source.name, t.active].join(" "));
		const got = { history: lines(s), progress, approved: lines(approved)[1], listed };
		s.destroy();
		approved.destroy();
		for (;;) { const log = await (await fetch(LOG)).json(); if (log.filter((l) => l === "DELETE").length === 2) break; await new Promise((r) => setTimeout(r, 10)); }
		console.log(JSON.stringify({ ...got, log: await (await fetch(LOG)).json() }));
		process.exit(0);`, "file://"+face, moduletest.ModuleWasm, wasmExec, url)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	moduletest.RequireJSON(t, `{"history":["call weather","call forecast","call slow","call delete_file",
		"result weather [{\"type\":\"text\",\"value\":\"Sunny in Rome\"},{\"type\":\"image\",\"value\":{\"base64\":\"AQID\",\"mimeType\":\"image/png\",\"type\":\"bytes\"}}]",
		"error forecast: no forecast for Oslo",
		"result slow [{\"type\":\"text\",\"value\":\"slow done\"}]",
		"error delete_file: tool delete_file needs the user's approval, and this session cannot ask for it (no toolUseConfig.approve); the call was not run",
		"assistant: done"],
		"progress":["half","all"],
		"approved":"result delete_file [{\"type\":\"text\",\"value\":\"deleted /b\"}]",
		"listed":["weather mcp mcp1 true","forecast mcp mcp1 true","slow mcp mcp1 true","delete_file mcp mcp1 true"],
		"log":["deleted /b","DELETE","DELETE"]}`, decodeLast(t, out))
}

// decodeLast decodes the last line of out as JSON.
func decodeLast(t *testing.T, out []byte) any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var v any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &v), string(out))
	return v
}
