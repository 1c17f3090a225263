//go:build !js

package moduletest

// The backends' scenarios (DESIGN.md §4), played by every host like those of
// scenarios.go. The openai ones reach a replay server of recorded streams
// (internal/testing/replay) at globalThis.LLM: through a fetch made of Go's net/http under
// wazero, through the page's real fetch in Chromium. Each uses its own nonce in the URL,
// so that scenarios running at once keep their counts apart.

// nativeStandIn is a stand-in for Chrome's built-in LanguageModel, installed before
// install() (this Chromium has no model behind its own): availability, create with
// initialPrompts and a signal, promptStreaming with message input, destroy. It answers
// a tool call in the text protocol's canonical block first, and text once it sees a
// tool result; it logs what it was asked.
const nativeStandIn = nativeConstrained + `
globalThis.nativeLog = [];
globalThis.LanguageModel = class FakeLanguageModel {
	static async availability() { return "available"; }
	static async create(options = {}) {
		nativeLog.push(["create", options.initialPrompts ?? null, options.signal instanceof AbortSignal]);
		return new FakeLanguageModel();
	}
	promptStreaming(input, options = {}) {
		nativeLog.push(["prompt", input.map((m) => m.role)]);
		const text = constrained(options.responseConstraint, input.at(-1).content.includes("tool_result") ? "Sunny in Oslo."
			: "I will check.\n` + "```" + `tool_call\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}\n` + "```" + `");
		const chunks = text.match(/[\s\S]{1,5}/g);
		return new ReadableStream({ pull(c) { if (chunks.length) c.enqueue(chunks.shift()); else c.close(); } });
	}
	destroy() { nativeLog.push(["destroy"]); }
};
`

// nativeConstrained is how the stand-ins answer under a responseConstraint, as Chrome
// does: a RegExp constrains the text itself; any other object is a JSON Schema, so the
// answer is JSON (a {pattern} object, a schema for a string, gets the text as a JSON
// string, which a RegExp anchored at its start no longer matches).
const nativeConstrained = `
globalThis.constrained = (rc, text) => rc === undefined || rc instanceof RegExp ? text : JSON.stringify(text);
`

// nativeToolStandIn is a stand-in for a Chrome whose built-in model has native tool use:
// it also defines the three tool classes before install(). Its prompt answers with a
// tool call (Chrome's newest form: an array of content parts) until it sees a tool
// response, then with text; it logs the tools and expectations it was created with and
// the shape of each input.
const nativeToolStandIn = nativeConstrained + `
globalThis.nativeLog = [];
const keep = (kind) => class { constructor(v) { Object.assign(this, v); this.kind = kind; } };
globalThis.LanguageModelToolCall = keep("call");
globalThis.LanguageModelToolSuccess = keep("success");
globalThis.LanguageModelToolError = keep("error");
globalThis.LanguageModel = class FakeLanguageModel {
	#inputs;
	constructor(inputs) { this.#inputs = inputs; }
	static async availability() { return "available"; }
	static async create(options = {}) {
		const inputs = (options.expectedInputs ?? []).map((e) => e.type);
		nativeLog.push(["create", (options.tools ?? []).map((t) => t.name), inputs, (options.expectedOutputs ?? []).map((e) => e.type)]);
		return new FakeLanguageModel(inputs);
	}
	async prompt(input, options = {}) {
		nativeLog.push(["prompt", input.map((m) => m.role + ":" + (typeof m.content === "string" ? "text" : m.content.map((p) => p.type + (p.value?.kind ? "/" + p.value.kind : "")).join("+")))]);
		// The spec: a content type the session's expectedInputs do not declare is a NotSupportedError.
		for (const m of input) for (const p of typeof m.content === "string" ? [] : m.content) {
			if (p.type !== "text" && !this.#inputs.includes(p.type)) throw new DOMException("expectedInputs lacks " + p.type, "NotSupportedError");
		}
		const last = input.at(-1);
		if (Array.isArray(last.content) && last.content.some((p) => p.type === "tool-response")) return constrained(options.responseConstraint, "Sunny in " + last.content[0].value.result[0].value + ".");
		return [{ type: "text", value: "Checking." }, { type: "tool-call", value: new LanguageModelToolCall({ callId: "n1", name: "weather", arguments: { city: "Oslo" } }) }];
	}
	promptStreaming(input) {
		nativeLog.push(["stream", input.map((m) => m.role)]);
		return new ReadableStream({ start(c) { c.enqueue("Hello."); c.close(); } });
	}
	destroy() { nativeLog.push(["destroy"]); }
};
`

var backendScenarios = []hostScenario{
	{Scenario: Scenario{"openai: closed loop over a recorded stream", `
		const s = await LanguageModel.create({ backend: openai("closed", "ollama.sse,vllm.sse"), tools: [getWeather(async (args) => "21°C, sunny in " + args.city)] });
		const events = [];
		s.ontoolcall = (e) => events.push("call " + e.detail.call.name + " " + JSON.stringify(e.detail.call.arguments));
		s.ontoolresult = (e) => events.push("result " + JSON.stringify(e.detail.result.result));
		const answer = await s.prompt("Weather in Paris?");
		const st = await stats("closed");
		return { answer, usage: s.contextUsage, events, requests: st.requests, auth: st.auth.map((a) => a === "Bearer " + KEY),
			tool: st.bodies[1].messages[2], history: s.history.map((m) => m.role), leak: JSON.stringify(s.history).includes(KEY) };`,
		`{"answer":"Sunny in Paris, 21°C.","usage":53,"events":["call get_weather {\"city\":\"Paris\"}","result [{\"type\":\"text\",\"value\":\"21°C, sunny in Paris\"}]"],
		  "requests":2,"auth":[true,true],"tool":{"role":"tool","tool_call_id":"NT4rMLm3s","content":"21°C, sunny in Paris"},
		  "history":["user","tool-call","tool-result","assistant"],"leak":false}`}},

	{Scenario: Scenario{"openai: a stream read to its end is not aborted", `
		// The SSE reader stops at [DONE]; the body ends a moment later and must not be
		// aborted (that failed the page's fetch with net::ERR_ABORTED and dropped the
		// keep-alive connection every turn). Counted on the page's own fetch signals.
		const real = globalThis.fetch, signals = [];
		globalThis.fetch = (url, init) => { signals.push(init.signal); return real(url, init); };
		try {
			const s = await LanguageModel.create({ backend: openai("ends", "llamacpp_call.sse,llamacpp_text.sse"), tools: [getWeather(async (a) => "21°C in " + a.city)] });
			const answer = await s.prompt("Weather in Paris?");
			await sleep(1500); // past the grace after which a body that never ends is aborted
			return { answer, fetches: signals.length, aborted: signals.filter((x) => x.aborted).length };
		} finally { globalThis.fetch = real; }`,
		`{"answer":"Sunny in Paris, 21°C.","fetches":2,"aborted":0}`}},

	{Scenario: Scenario{"openai: open loop with parallel calls", `
		const s = await LanguageModel.create({ backend: openai("open", "openai_parallel.sse,vllm.sse"), expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }], tools: [getWeather()] });
		const r1 = await s.prompt("Weather in Paris and Tokyo?");
		const results = r1.map(({ value: c }) => new LanguageModelToolSuccess({ callID: c.callID, name: c.name, result: [{ type: "text", value: c.arguments.city + ": 21°C" }] }));
		const r2 = await s.prompt([{ role: "tool-result", content: results.map((value) => ({ type: "tool-result", value })) }]);
		const st = await stats("open");
		return { r1: r1.map((p) => [p.type, p.value.callId, p.value.arguments.city]), r2,
			sent: st.bodies[1].messages.slice(1).map((m) => m.role + ":" + (m.tool_call_id ?? m.tool_calls.length)) };`,
		`{"r1":[["tool-call","call_paris","Paris"],["tool-call","call_tokyo","Tokyo"]],"r2":[{"type":"text","value":"Sunny in Paris, 21°C."}],
		  "sent":["assistant:2","tool:z78mnKoq3","tool:KBTd76iRt"]}`}},

	{Scenario: Scenario{"openai: streaming, characters split across chunks", `
		const s = await LanguageModel.create({ backend: openai("stream", "llamacpp.sse"), expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			tools: [{ name: "search", description: "Search", inputSchema: { type: "object", properties: { q: { type: "string" } } } }] });
		const chunks = await read(s.promptStreaming("search"));
		return chunks.map((c) => typeof c === "string" ? c : [c.type, c.value.name, c.value.arguments.q]);`,
		`["Let"," me"," check",".",["tool-call","search","say \"hi\" été"]]`}},

	{Scenario: Scenario{"openai: text protocol (nativeTools false)", `
		const s = await LanguageModel.create({ backend: openai("text", "textproto_call.sse,vllm.sse", { nativeTools: false }), tools: [getWeather((a) => "21°C in " + a.city)] });
		const chunks = await read(s.promptStreaming("Weather in Paris?"));
		const st = await stats("text");
		return { text: chunks.join(""), tools: "tools" in st.bodies[0], first: st.bodies[0].messages[0].role, history: s.history.map((m) => m.role) };`,
		`{"text":"Let me check.\nSunny in Paris, 21°C.","tools":false,"first":"system","history":["user","assistant","tool-call","tool-result","assistant"]}`}},

	{Scenario: Scenario{"openai: 429 then success, errors, the key", `
		const out = {};
		const s = await LanguageModel.create({ backend: openai("retry", "429+vllm.sse") });
		out.answer = await s.prompt("hi");
		out.requests = (await stats("retry")).requests;
		const t = await LanguageModel.create({ backend: openai("key", "echo401") });
		try { await t.prompt("hi"); } catch (e) { out.denied = [e.name, e.message.includes(KEY.slice(8)), e.message]; }
		out.bad = await Promise.all([{ kind: "openai", model: "m" }, { kind: "openai", baseURL: "ftp://x", model: "m" }, { kind: "openai", baseURL: "/v1", model: "m", apiKey: 5 },
			{ kind: "custom" }, { kind: "custom", generate: "no" }, { kind: "llama" }]
			.map((backend) => LanguageModel.create({ backend }).then(() => "created", (e) => e.name + ": " + e.message)));
		out.availability = await Promise.all([openai("a", "vllm.sse"), { kind: "custom", generate() {} }, { kind: "llama" }].map((backend) => LanguageModel.availability({ backend })));
		return out;`,
		`{"answer":"Sunny in Paris, 21°C.","requests":2,
		  "denied":["NotAllowedError",false,"the model failed: the server answered 401: Incorrect API key provided: [redacted] (header: [redacted])"],
		  "bad":["TypeError: invalid backend: backend.baseURL is required","TypeError: invalid backend: backend.baseURL must start with http://, https:// or /",
		         "TypeError: invalid backend: backend.apiKey must be a non-empty string","TypeError: invalid backend: backend.generate must be a function",
		         "TypeError: invalid backend: backend.generate must be a function","NotSupportedError: invalid backend: unknown backend kind \"llama\""],
		  "availability":["available","available","unavailable"]}`}},

	{Scenario: Scenario{"openai: abort mid-stream", `
		const s = await LanguageModel.create({ backend: openai("stall", "stall:vllm.sse") });
		const ac = new AbortController();
		const reader = s.promptStreaming("hi", { signal: ac.signal }).getReader();
		const first = await reader.read();
		ac.abort();
		const r = await caught(reader.read());
		let canceled = 0;
		for (let i = 0; i < 500 && canceled === 0; i++) { await sleep(5); canceled = (await stats("stall")).canceled; }
		return { first: first.value, r, canceled, history: s.history.length };`,
		`{"first":"Sunny","r":"AbortError","canceled":1,"history":0}`}},

	{Scenario: Scenario{"openai: a server that never answers, then abort", `
		const s = await LanguageModel.create({ backend: openai("hang", "hang") });
		const ac = new AbortController();
		const p = caught(s.prompt("hi", { signal: ac.signal }));
		for (let i = 0; i < 500 && (await stats("hang")).requests === 0; i++) await sleep(5);
		ac.abort();
		const r = await p;
		let canceled = 0;
		for (let i = 0; i < 500 && canceled === 0; i++) { await sleep(5); canceled = (await stats("hang")).canceled; }
		return { r, canceled };`,
		`{"r":"AbortError","canceled":1}`}},

	{Scenario: Scenario{"custom: every kind of return", `
		const kinds = {
			string: () => "plain",
			promise: async () => "later",
			array: () => ["a", { type: "text", value: "b" }],
			piece: () => ({ type: "text", value: "one piece" }),
			iterable: () => {
				const chunks = ["it", "er", "able"];
				return { [Symbol.asyncIterator]() { return { next: async () => { await sleep(1); return chunks.length ? { value: chunks.shift(), done: false } : { done: true }; } }; } };
			},
			promiseOfIterable: async () => ({ [Symbol.asyncIterator]() { let i = 0; return { next: async () => (i < 2 ? { value: "x" + i++, done: false } : { done: true }) }; } }),
			nothing: () => undefined,
		};
		const out = {};
		let seen;
		for (const [name, generate] of Object.entries(kinds)) {
			const s = await LanguageModel.create({ backend: { kind: "custom", generate: (req, ctx) => { seen = [req, ctx.signal instanceof AbortSignal]; return generate(); } } });
			out[name] = name === "iterable" ? await read(s.promptStreaming("hi")) : await s.prompt("hi");
			s.destroy();
		}
		out.request = seen;
		return out;`,
		`{"string":"plain","promise":"later","array":"ab","piece":"one piece","iterable":["it","er","able"],"promiseOfIterable":"x0x1","nothing":"",
		  "request":[{"messages":[{"role":"user","content":[{"type":"text","value":"hi"}]}],"toolChoice":"auto"},true]}`}},

	{Scenario: Scenario{"custom: structured calls (nativeTools)", `
		const requests = [];
		const steps = [
			[{ type: "text", value: "Checking. " }, { type: "tool-call", value: new LanguageModelToolCall("c1", "weather", { city: "Oslo" }) }, { type: "usage", value: { inputTokens: 30, outputTokens: 5 } }],
			["Sunny ", "in Oslo."],
		];
		const s = await LanguageModel.create({
			backend: { kind: "custom", nativeTools: true, contextWindow: 1000, generate: (req) => { requests.push(req); return steps.shift(); } },
			tools: [weather((a) => "sun in " + a.city)],
		});
		const answer = await s.prompt("Weather in Oslo?");
		return { answer, window: s.contextWindow, tools: requests[0].tools.map((t) => t.name), second: requests[1].messages.map((m) => m.role),
			result: requests[1].messages[3].content[0].value.result };`,
		`{"answer":"Sunny in Oslo.","window":1000,"tools":["weather"],"second":["user","assistant","tool-call","tool-result"],"result":[{"type":"text","value":"sun in Oslo"}]}`}},

	{Scenario: Scenario{"custom: the text protocol by default", `
		const requests = [];
		const steps = ["Let me look.\n` + "```" + `tool_call\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}\n` + "```" + `", "Sunny."];
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: (req) => { requests.push(req); return steps.shift(); } }, tools: [weather((a) => "sun in " + a.city)] });
		const chunks = await read(s.promptStreaming("Weather in Oslo?"));
		return { text: chunks.join(""), tools: "tools" in requests[0], first: requests[0].messages[0].role,
			mentions: requests[0].messages[0].content[0].value.includes("weather"), second: requests[1].messages.map((m) => m.role) };`,
		`{"text":"Let me look.\nSunny.","tools":false,"first":"system","mentions":true,"second":["system","user","assistant","user"]}`}},

	{Scenario: Scenario{"custom: errors and abort", `
		const out = {};
		const make = (generate) => LanguageModel.create({ backend: { kind: "custom", nativeTools: true, generate } });
		const fails = (p) => p.then(() => "resolved", (e) => e.name + ": " + e.message);
		out.notSupported = await fails((await make(() => { throw new DOMException("no French", "NotSupportedError"); })).prompt("hi"));
		out.typeError = await fails((await make(async () => { throw new TypeError("x is undefined"); })).prompt("hi"));
		out.badPiece = await caught((await make(() => [42])).prompt("hi"));
		out.cycle = await fails((await make(() => { const o = { type: "text" }; o.value = o; return o; })).prompt("hi"));
		let signal, returned = false;
		const s = await make((req, ctx) => {
			signal = ctx.signal;
			let first = true;
			return { [Symbol.asyncIterator]() { return {
				next: () => first ? (first = false, Promise.resolve({ value: "par", done: false })) : new Promise((res) => ctx.signal.addEventListener("abort", () => res({ value: "late", done: false }))),
				return: async () => { returned = true; return { done: true }; },
			}; } };
		});
		const ac = new AbortController();
		const reader = s.promptStreaming("hi", { signal: ac.signal }).getReader();
		out.first = (await reader.read()).value;
		ac.abort();
		out.aborted = await caught(reader.read());
		for (let i = 0; i < 50 && !returned; i++) await sleep(1);
		out.signal = [signal.aborted, signal.reason?.name];
		out.returned = returned;
		out.history = s.history.length;
		return out;`,
		`{"notSupported":"NotSupportedError: the model failed: no French","typeError":"OperationError: the model failed: x is undefined","badPiece":"TypeError",
		  "cycle":"DataError: the model failed: a circular structure cannot be sent to the language model",
		  "first":"par","aborted":"AbortError","signal":[true,"AbortError"],"returned":true,"history":0}`}},

	{Scenario: Scenario{"custom: a generator that never stops is stopped at the context window", `
		let signal, pieces = 0;
		const s = await LanguageModel.create({ backend: { kind: "custom", contextWindow: 500, generate: (req, ctx) => {
			signal = ctx.signal;
			return { [Symbol.asyncIterator]() { return { next: async () => { pieces++; return { value: "la ".repeat(100), done: false }; } }; } };
		} } });
		const r = await s.prompt("sing").then(() => "resolved", (e) => e.name + ": " + e.message);
		for (let i = 0; i < 50 && !signal.aborted; i++) await sleep(1);
		return { r, aborted: signal.aborted, bounded: pieces < 20, history: s.history.length, usage: s.contextUsage };`,
		`{"r":"QuotaExceededError: the model's reply is longer than the context window",
		  "aborted":true,"bounded":true,"history":0,"usage":0}`}},

	{Scenario: Scenario{"toolChoice", `
		const requests = [];
		const s = await LanguageModel.create({ backend: { kind: "custom", nativeTools: true, generate: (req) => { requests.push(req.toolChoice); return "ok"; } },
			tools: [weather(() => "")], toolChoice: { name: "weather" } });
		await s.prompt("a");
		await s.prompt("b", { toolChoice: "none" });
		await read(s.promptStreaming("c", { toolChoice: { type: "tool", name: "weather" } }));
		await s.prompt("d", { toolChoice: "required" });
		const bad = await Promise.all([
			s.prompt("e", { toolChoice: "always" }), s.prompt("f", { toolChoice: { name: "stocks" } }),
			LanguageModel.create({ backend: script(), toolChoice: "required" }),
			LanguageModel.create({ tools: [weather(() => "")], toolChoice: { type: "function", name: "weather" } }),
		].map((p) => p.then(() => "ok", (e) => e.name + ": " + e.message)));
		return { requests, bad, n: s.history.length };`,
		`{"requests":[{"type":"tool","name":"weather"},"none",{"type":"tool","name":"weather"},"required"],
		  "bad":["TypeError: invalid option: toolChoice must be \"auto\", \"none\", \"required\" or {type: \"tool\", name}, not \"always\"",
		         "TypeError: invalid option: toolChoice names the tool \"stocks\", which the session does not declare",
		         "TypeError: invalid option: toolChoice \"required\" needs at least one tool",
		         "TypeError: invalid option: toolChoice {type, name}: type must be \"tool\""],"n":8}`}},

	{Scenario: Scenario{"approve gets a signal", `
		let seen = null;
		const ac = new AbortController();
		const s = await LanguageModel.create({
			backend: script({ calls: [{ name: "weather", arguments: { city: "A" } }] }, { text: "after" }),
			tools: [weather(() => "ran")],
			toolUseConfig: { approve: (call, tool, { signal }) => {
				setTimeout(() => ac.abort(), 1);
				return new Promise((res) => signal.addEventListener("abort", () => { seen = signal.reason.name; res(true); }));
			} },
		});
		const r = await caught(s.prompt("go", { signal: ac.signal }));
		await sleep(10);
		return { r, seen, history: s.history.length };`,
		`{"r":"AbortError","seen":"AbortError","history":0}`}},

	{Scenario: Scenario{"browser: the native model, through the text protocol", `
		const s = await LanguageModel.create({ backend: { kind: "browser" }, tools: [weather((a) => "sun in " + a.city)] });
		const chunks = await read(s.promptStreaming("Weather in Oslo?"));
		const log = nativeLog.map((e) => e[0] === "create" ? ["create", e[1].length, e[1][0].role, e[1][0].content.includes("weather"), e[2]] : e);
		const constrained = await read(s.promptStreaming("Weather in Oslo, again?", { responseConstraint: /^Sunny/ })).then((c) => c.join(""), (e) => e.name);
		return {
			availability: await LanguageModel.availability({ backend: { kind: "browser" } }),
			text: chunks.join(""), log, constrained,
			history: s.history.map((m) => m.role),
		};`,
		`{"availability":"available","text":"I will check.\nSunny in Oslo.",
		  "log":[["create",1,"system",true,true],["prompt",["user"]],["destroy"],["create",1,"system",true,true],["prompt",["user","assistant","user"]],["destroy"]],
		  "constrained":"I will check.\nSunny in Oslo.",
		  "history":["user","assistant","tool-call","tool-result","assistant","user","assistant","tool-call","tool-result","assistant"]}`},
		Setup: nativeStandIn},

	{Scenario: Scenario{"browser: native tool use where the browser has it", `
		const s = await LanguageModel.create({ backend: { kind: "browser" }, tools: [weather((a) => a.city)] });
		const answer = await s.prompt("Weather in Oslo?");
		const text = await LanguageModel.create({ backend: { kind: "browser", nativeTools: false }, tools: [weather((a) => a.city)] })
			.then((t) => t.prompt("hi")).then(() => "text protocol", (e) => e.name);
		const constrained = await s.prompt("Weather in Oslo, again?", { responseConstraint: /^Sunny/ }).catch((e) => e.name);
		return { answer, log: nativeLog.slice(0, 9), history: s.history.map((m) => m.role), text, constrained };`,
		`{"answer":"Sunny in Oslo.",
		  "log":[["create",["weather"],["text"],["text","tool-call"]],["prompt",["user:text"]],["destroy"],
		         ["create",["weather"],["text","tool-call","tool-response"],["text","tool-call"]],["prompt",["user:text","assistant:text","assistant:tool-call/call","user:tool-response/success"]],["destroy"],
		         ["create",[],[],[]],["stream",["user"]],["destroy"]],
		  "history":["user","assistant","tool-call","tool-result","assistant","user","assistant","tool-call","tool-result","assistant"],"text":"text protocol","constrained":"Sunny in Oslo."}`},
		Setup: nativeToolStandIn},

	{Scenario: Scenario{"browser: no native model", `
		return { availability: await LanguageModel.availability({ backend: { kind: "browser" } }),
			create: await LanguageModel.create({ backend: { kind: "browser" } }).then(() => "created", (e) => e.name) };`,
		`{"availability":"unavailable","create":"NotSupportedError"}`}},

	{BrowserOnly: true, Scenario: Scenario{"image input from a Blob: read, typed, in order", `
		// goja has no Blob: Chromium only.
		const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: "image/png" });
		const image = (value) => [{ role: "user", content: [{ type: "text", value: "what is it?" }, { type: "image", value }] }];
		const s = await LanguageModel.create({
			backend: script({ text: "one" }, { text: "two" }, { text: "three" }),
			expectedInputs: [{ type: "image" }],
			initialPrompts: [{ role: "system", content: "S" }, { role: "user", content: [{ type: "image", value: new Blob(["x"]) }] }, { role: "assistant", content: "seen" }],
		});
		const first = s.prompt(image(png));
		const second = s.prompt("and then?"); // sent after the Blob is read
		const out = { answers: [await first, await second] };
		const ac = new AbortController();
		const aborted = s.prompt(image(png), { signal: ac.signal });
		ac.abort();
		out.aborted = await caught(aborted);
		out.history = s.history.map((m) => m.role + ": " + m.content.map((p) => p.type === "text" ? p.value : JSON.stringify(p.value)).join(" | "));
		return out;`,
		`{"answers":["one","two"],"aborted":"AbortError","history":[
		  "system: S", "user: {\"base64\":\"eA==\",\"type\":\"bytes\"}", "assistant: seen",
		  "user: what is it? | {\"base64\":\"iVBORw==\",\"mimeType\":\"image/png\",\"type\":\"bytes\"}",
		  "assistant: one", "user: and then?", "assistant: two"]}`}},

	{BrowserOnly: true, DOM: true, Scenario: Scenario{"image sources Chrome takes cross as PNG", `
		const canvas = document.createElement("canvas");
		canvas.width = 3; canvas.height = 2;
		const g = canvas.getContext("2d");
		g.fillStyle = "red"; g.fillRect(0, 0, 3, 2);
		const offscreen = new OffscreenCanvas(3, 2);
		offscreen.getContext("2d").fillRect(0, 0, 3, 2);
		const sources = { canvas, imageData: g.getImageData(0, 0, 3, 2), bitmap: await createImageBitmap(canvas), offscreen };
		const s = await LanguageModel.create({ backend: script(...Object.keys(sources).map((k) => ({ text: k }))), expectedInputs: [{ type: "image" }] });
		const out = {};
		for (const [name, value] of Object.entries(sources)) {
			await s.prompt([{ role: "user", content: [{ type: "image", value }] }]);
			const v = s.history.at(-2).content[0].value;
			const bytes = Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0));
			const size = new DataView(bytes.buffer).getUint32(16) + "x" + new DataView(bytes.buffer).getUint32(20); // IHDR
			out[name] = [v.mimeType, v.base64.startsWith("iVBORw0KGgo"), size];
		}
		const before = s.history.length;
		out.unloaded = await caught(s.prompt([{ role: "user", content: [{ type: "image", value: new Image() }] }]));
		out.unchanged = s.history.length === before;
		return out;`,
		`{"canvas":["image/png",true,"3x2"],"imageData":["image/png",true,"3x2"],"bitmap":["image/png",true,"3x2"],"offscreen":["image/png",true,"3x2"],
		  "unloaded":"InvalidStateError","unchanged":true}`}},

	{BrowserOnly: true, DOM: true, Scenario: Scenario{"an AudioBuffer crosses as 16-bit WAV", `
		const buffer = new AudioBuffer({ length: 3, numberOfChannels: 2, sampleRate: 8000 });
		buffer.copyToChannel(new Float32Array([0, 1, -1]), 0);
		buffer.copyToChannel(new Float32Array([0.5, -0.5, 0]), 1);
		const s = await LanguageModel.create({ backend: script({ text: "heard" }), expectedInputs: [{ type: "audio" }] });
		await s.prompt([{ role: "user", content: [{ type: "audio", value: buffer }] }]);
		const v = s.history[0].content[0].value;
		const bytes = Uint8Array.from(atob(v.base64), (c) => c.charCodeAt(0));
		const d = new DataView(bytes.buffer);
		const text = (at, n) => String.fromCharCode(...bytes.slice(at, at + n));
		return { mimeType: v.mimeType, riff: text(0, 4), wave: text(8, 4), length: bytes.length, channels: d.getUint16(22, true), rate: d.getUint32(24, true),
			samples: [0, 1, 2, 3, 4, 5].map((i) => d.getInt16(44 + 2 * i, true)) };`,
		`{"mimeType":"audio/wav","riff":"RIFF","wave":"WAVE","length":56,"channels":2,"rate":8000,"samples":[0,16383,32767,-16384,-32768,0]}`}},
	{Scenario: Scenario{"chain: the browser's own model first; one that fails before its first token hands the step to a server", `
		const chain = { kind: "chain", backends: [{ kind: "browser" }, openai("chainnative", "vllm.sse,vllm.sse")] };
		const s = await LanguageModel.create({ backend: chain });
		const steps = [];
		s.onstepusage = (e) => steps.push(e.detail.backend);
		const answers = [await s.prompt("hi")];
		nativeBroken = true;
		answers.push(await s.prompt("again"));
		return { availability: await LanguageModel.availability({ backend: chain }), answers, steps, requests: (await stats("chainnative")).requests, history: s.history.length };`,
		`{"availability":"available","answers":["native","Sunny in Paris, 21°C."],"steps":[0,1],"requests":1,"history":4}`},
		Setup: `
globalThis.nativeBroken = false;
globalThis.LanguageModel = class {
	static async availability() { return "available"; }
	static async create() { return new this(); }
	promptStreaming() {
		return new ReadableStream({ pull(c) { if (nativeBroken) c.error(new DOMException("the model crashed", "UnknownError")); else { c.enqueue("native"); c.close(); } } });
	}
	destroy() {}
};
`},
}
