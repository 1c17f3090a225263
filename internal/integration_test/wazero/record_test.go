//go:build !js

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"langmodel/internal/testing/browsertest"
)

// recordJS records a closed-loop session against the openai backend's test server
// (internal/testing/replay: a call, then an answer, with usage), with an API key and a header,
// and replays the recording through the scripted backend, strictly: the same answer,
// history and usage, and a request that differs rejecting with DataError naming the
// first difference. It runs in the module under wazero and in every browser, with the
// module on the page and in a Worker.
const recordJS = `
const { LanguageModel } = lm;
const KEY = "sk-test-0123456789abcdef";
const system = [{ role: "system", content: "You are brief." }];
const schema = (type) => ({ type: "object", properties: { city: { type } }, required: ["city"] });
const tools = (type = "string") => [{ name: "get_weather", description: "Weather in a city", inputSchema: schema(type), execute: async (a) => "21°C in " + a.city }];
const s = await LanguageModel.create({ initialPrompts: system, tools: tools(),
	backend: { kind: "record", backend: { kind: "openai", baseURL: LLM + "/r/record-" + Math.random() + "/ollama.sse,vllm.sse", model: "m", apiKey: KEY, headers: { "x-secret": "hush" } } } });
const answer = await s.prompt("Weather in Paris?");
const recording = JSON.parse(JSON.stringify(s.recording())); // as a file keeps it
const text = JSON.stringify(recording);
const r = await LanguageModel.create({ initialPrompts: system, tools: tools(), backend: { ...recording, strict: true } });
const replayed = await r.prompt("Weather in Paris?");
const rejects = async (initialPrompts, tools, prompt) => {
	const s = await LanguageModel.create({ initialPrompts, tools, backend: { ...recording, strict: true } });
	try {
		await s.prompt(prompt);
		return "resolved";
	} catch (e) {
		return e.name + ": " + e.message + (s.history.length === initialPrompts.length ? "" : " (history changed)");
	}
};
let notRecording;
try { r.recording(); } catch (e) { notRecording = e.name; }
return {
	answer, replayed,
	sameHistory: JSON.stringify(r.history) === JSON.stringify(s.history),
	usage: r.contextUsage === s.contextUsage,
	turns: recording.turns.map((t) => Object.keys(t).sort().join()),
	kind: recording.kind, version: recording.version,
	secrets: [KEY, "hush", "x-secret", "Bearer", "/r/record-"].filter((x) => text.includes(x)),
	systemPrompt: await rejects([{ role: "system", content: "You were brief." }], tools(), "Weather in Paris?"),
	toolSchema: await rejects(system, tools("number"), "Weather in Paris?"),
	message: await rejects(system, tools(), "Weather in Oslo?"),
	notRecording,
};`

const recordWant = `{"answer":"Sunny in Paris, 21°C.","replayed":"Sunny in Paris, 21°C.",
	"sameHistory":true,"usage":true,"turns":["calls,request,usage","chunks,request,usage"],"kind":"scripted","version":1,"secrets":[],
	"systemPrompt":"DataError: the request differs from the recording: step 1: messages[0].content[0].value: recorded \"You are brief.\", got \"You were brief.\"",
	"toolSchema":"DataError: the request differs from the recording: step 1: tools[0].inputSchema.properties.city.type: recorded \"string\", got \"number\"",
	"message":"DataError: the request differs from the recording: step 1: messages[1].content[0].value: recorded \"Weather in Paris?\", got \"Weather in Oslo?\"",
	"notRecording":"InvalidStateError"}`

func TestModule_Recording(t *testing.T) {
	requireJSON(t, recordWant, playModule(t, "", recordJS))
}

func TestBrowser_Recording(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		base := serve(t, "")
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				requireJSON(t, recordWant, playBrowser(t, b, base, m.prelude(), recordJS))
			})
		}
	})
}

// TestModule_RecordingVersions replays, strictly, every recording the project has kept,
// one per version of the format (testdata/recordings: a closed-loop turn recorded
// against the openai test server), in the real module under wazero: a recording made
// by one version must replay in every later one.
func TestModule_RecordingVersions(t *testing.T) {
	files, err := filepath.Glob("testdata/recordings/v*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rec, err := os.ReadFile(f)
			require.NoError(t, err)
			h := newHost(t)
			h.Set("REC", string(rec))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			v, err := h.Eval(ctx, `
				const s = await lm.LanguageModel.create({ initialPrompts: [{ role: "system", content: "You are brief." }],
					tools: [{ name: "get_weather", description: "Weather in a city", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, execute: async (a) => "21°C in " + a.city }],
					backend: { ...JSON.parse(REC), strict: true } });
				return [await s.prompt("Weather in Paris?"), s.contextUsage];`)
			require.NoError(t, err)
			requireJSON(t, `["Sunny in Paris, 21°C.",53]`, v)
		})
	}
}

// TestModule_RecordingBackends: record wraps any backend given as data or with the
// page's functions (a custom generate), the default when it names none, and refuses
// what it cannot send (a gguf model's wllama module); a recording of a later version is
// refused by the scripted backend.
func TestModule_RecordingBackends(t *testing.T) {
	requireJSON(t, `{"default":["You said: hi",1],"custom":["from custom",[["from custom"]]],
		"gguf":"TypeError: a function cannot be sent to the language model",
		"v2":"TypeError: invalid backend: scripted backend: version must be 1 (a recording this module reads)"}`, playModule(t, "", `
		const { LanguageModel } = lm;
		const caught = (p) => p.then(() => "created", (e) => e.name + ": " + e.message);
		const d = await LanguageModel.create({ backend: { kind: "record" } });
		const c = await LanguageModel.create({ backend: { kind: "record", backend: { kind: "custom", generate: () => "from custom" } } });
		return {
			default: [(await d.prompt("hi")).split("\n")[0], d.recording().turns.length],
			custom: [await c.prompt("hi"), c.recording().turns.map((t) => t.chunks)],
			gguf: await caught(LanguageModel.create({ backend: { kind: "record", backend: { kind: "gguf", model: "x.gguf", wllama: { Wllama: function () {}, CacheManager: function () {} }, paths: { default: "x" } } } })),
			v2: await caught(LanguageModel.create({ backend: { kind: "scripted", version: 2, turns: [] } })),
		};`))
}
