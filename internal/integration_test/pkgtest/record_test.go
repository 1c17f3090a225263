//go:build !js

package pkgtest

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/replay"
)

// recordNode records a closed-loop session against the openai backend's test server,
// whose URL is its argument, and writes the recording to recording.json.
const recordNode = `import { writeFileSync } from "node:fs";
import { install, LanguageModel } from "langmodel";
import { tools } from "./tools.js";

await install();
const session = await LanguageModel.create({
  initialPrompts: [{ role: "system", content: "You are brief." }],
  tools: tools(),
  backend: { kind: "record", backend: { kind: "openai", baseURL: process.argv[2] + "/r/node/ollama.sse,vllm.sse", model: "m", apiKey: "sk-test-secret" } },
});
console.log(await session.prompt("Weather in Paris?"));
writeFileSync("recording.json", JSON.stringify(session.recording(), null, 2));
`

const toolsNode = `export const tools = (type = "string") => [{
  name: "get_weather", description: "Weather in a city",
  inputSchema: { type: "object", properties: { city: { type } }, required: ["city"] },
  execute: async ({ city }) => "21°C in " + city,
}];
`

// replayNode is a page's test that replays the recording offline, strictly.
const replayNode = `import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { install, LanguageModel } from "langmodel";
import { tools } from "./tools.js";

await install();
const recording = JSON.parse(readFileSync("recording.json", "utf8"));
const backend = { ...recording, strict: true };
const system = [{ role: "system", content: "You are brief." }];

test("the recording answers as the model did", async () => {
  const session = await LanguageModel.create({ initialPrompts: system, tools: tools(), backend });
  assert.equal(await session.prompt("Weather in Paris?"), "Sunny in Paris, 21°C.");
  assert.deepEqual(session.history.map((m) => m.role), ["system", "user", "tool-call", "tool-result", "assistant"]);
});

const differs = [
  ["a changed system prompt", [{ role: "system", content: "You were brief." }], tools(), "Weather in Paris?", 'messages[0].content[0].value: recorded "You are brief.", got "You were brief."'],
  ["a changed tool schema", system, tools("number"), "Weather in Paris?", 'tools[0].inputSchema.properties.city.type: recorded "string", got "number"'],
  ["a changed message", system, tools(), "Weather in Oslo?", 'messages[1].content[0].value: recorded "Weather in Paris?", got "Weather in Oslo?"'],
];
for (const [name, initialPrompts, tools, prompt, difference] of differs) {
  test(name + " rejects, naming the difference", async () => {
    const session = await LanguageModel.create({ initialPrompts, tools, backend });
    await assert.rejects(session.prompt(prompt), { name: "DataError", message: "the request differs from the recording: step 1: " + difference });
    assert.equal(session.history.length, initialPrompts.length);
  });
}
`

// TestPackage_NodeRecording records a session against the openai backend's test server
// (internal/testing/replay) in Node, and replays the recording offline with node --test, as a
// page's test would: the same answer, and a changed system prompt, tool schema and
// message each failing with a DataError that names the difference. The recording holds
// no API key.
func TestPackage_NodeRecording(t *testing.T) {
	llm := httptest.NewServer(&replay.Server{})
	defer llm.Close()
	dir := npmApp(t, map[string]string{"record.js": recordNode, "tools.js": toolsNode, "replay.test.js": replayNode})
	require.Equal(t, "Sunny in Paris, 21°C.\n", run(t, dir, "node", "record.js", llm.URL))
	rec, err := os.ReadFile(filepath.Join(dir, "recording.json"))
	require.NoError(t, err)
	require.NotContains(t, string(rec), "sk-test-secret")
	require.NotContains(t, string(rec), llm.URL)
	llm.Close() // the replay is offline
	out := run(t, dir, "node", "--test", "--test-reporter=tap", "replay.test.js")
	require.Contains(t, out, "\n# pass 4\n", out)
	require.Contains(t, out, "\n# fail 0\n", out)
	require.False(t, strings.Contains(out, "not ok"), out)
}
