//go:build !js

package moduletest

// The helpers every snapshot scenario starts with, in every host.

// SnapshotJS is the prelude of the snapshot tests: the tools every kept snapshot
// (internal/integration_test/wazero/testdata/snapshots) was saved with, and helpers.
const SnapshotJS = `
const { LanguageModel } = lm;
const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const asked = [];
const savedTools = (weather, forget) => [
	{ name: "weather", description: "Weather in a city", inputSchema: schema, execute: weather },
	{ name: "forget", description: "Forgets a city", inputSchema: schema, annotations: { destructiveHint: true }, execute: forget },
];
const approve = (call) => { asked.push(call.name); return true; };
const tail = (s, n) => s.history.slice(-n).map((m) => m.role + " " + m.content.map((p) => p.type === "text" ? p.value : (p.value.name + " " + p.value.callID + (p.value.errorMessage ? " error: " + p.value.errorMessage : p.value.result ? " " + JSON.stringify(p.value.result) : ""))).join());
`
