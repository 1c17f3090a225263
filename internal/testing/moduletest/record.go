//go:build !js

package moduletest

// The recording round trip every host plays: a closed-loop turn recorded from a replayed
// OpenAI stream, then replayed offline, and what it must return.

// RecordJS records a closed-loop session against the openai backend's test server
// (internal/testing/replay: a call, then an answer, with usage), with an API key and a header,
// and replays the recording through the scripted backend, strictly: the same answer,
// history and usage, and a request that differs rejecting with DataError naming the
// first difference. It runs in the module under wazero and in every browser, with the
// module on the page and in a Worker.
const RecordJS = `
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

const RecordWant = `{"answer":"Sunny in Paris, 21°C.","replayed":"Sunny in Paris, 21°C.",
	"sameHistory":true,"usage":true,"turns":["calls,request,usage","chunks,request,usage"],"kind":"scripted","version":1,"secrets":[],
	"systemPrompt":"DataError: the request differs from the recording: step 1: messages[0].content[0].value: recorded \"You are brief.\", got \"You were brief.\"",
	"toolSchema":"DataError: the request differs from the recording: step 1: tools[0].inputSchema.properties.city.type: recorded \"string\", got \"number\"",
	"message":"DataError: the request differs from the recording: step 1: messages[1].content[0].value: recorded \"Weather in Paris?\", got \"Weather in Oslo?\"",
	"notRecording":"InvalidStateError"}`
