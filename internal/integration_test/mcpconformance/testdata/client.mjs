// The module's MCP client as the official conformance suite drives a client
// (@modelcontextprotocol/conformance): `node client.mjs <server URL>`, the scenario's
// name in MCP_CONFORMANCE_SCENARIO, and the module's files in FACE (the Node entry,
// js/language-model.node.js), WASM and WASM_EXEC: the suite splits its command at
// spaces, which a path may hold. It does what a page
// would: a session with the server in mcpServers, whose model (scripted) calls the tool
// the scenario's server checks for, then destroy(), which ends the server's session.
// It exits 1, with the error on stderr, when create() or the prompt fails.
const url = process.argv[2];
const { FACE: face, WASM: wasm, WASM_EXEC: wasmExec } = process.env;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

// calls are the calls the scenario's server waits for; none where connecting is all.
const calls = {
  "initialize": [],
  "tools_call": [{ name: "add_numbers", arguments: { a: 2, b: 3 } }],
  "elicitation-sep1034-client-defaults": [{ name: "test_client_elicitation_defaults", arguments: {} }],
  "sse-retry": [{ name: "test_reconnection", arguments: {} }],
}[scenario] ?? (scenario.startsWith("auth/") ? [{ name: "test-tool", arguments: {} }] : []);

const lm = await import(face);
await lm.install({ wasm, wasmExec });
const turns = calls.length ? [{ calls }, { text: "done" }] : [{ text: "done" }];
try {
  const s = await lm.LanguageModel.create({
    mcpServers: [{ url, timeout: 10000 }],
    toolUseConfig: { approve: () => true },
    backend: { kind: "scripted", turns },
  });
  await s.prompt("Go");
  const failed = s.history.filter((m) => m.role === "tool-result" && m.content[0].value.errorMessage !== undefined);
  s.destroy();
  if (failed.length) throw new Error(failed.map((m) => m.content[0].value.name + ": " + m.content[0].value.errorMessage).join("; "));
  process.exit(0);
} catch (e) {
  console.error(scenario + ": " + e.name + ": " + e.message);
  process.exit(1);
}
