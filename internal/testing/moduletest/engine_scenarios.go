//go:build !js

package moduletest

// The engine backend's scenarios ({kind: "engine", engine}, DESIGN.md §4), played by every
// host like the others (allScenarios): over page-side stand-ins of an in-page engine that
// stream what wllama 3.13.0 streams (llama-server's chunks with id "" and model "": a first
// tool delta with id and name, then the arguments in fragments, a finish_reason, and a
// {choices: [], usage} chunk when stream_options.include_usage), in wllama's shape
// (createChatCompletion with abortSignal) and in WebLLM's (chat.completions.create,
// interruptGenerate). Hand-written async iterators, not async generators, so that the
// goja host plays them too.

// fakeEngines defines the stand-ins: wllama(turns) and webllm(turns), each turn a list of
// chunks (HANG waits for the abort, an Error is thrown there), one turn per call; each
// logs its requests and counts the aborts it heard.
const fakeEngines = `
const chunk = (delta, finish) => ({ id: "", model: "", object: "chat.completion.chunk", created: 0, choices: [{ index: 0, delta, finish_reason: finish ?? null }] });
const pieces = (s, n) => { const out = []; for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n)); return out; };
const calls = (...cs) => [
	chunk({ role: "assistant", content: null }),
	...cs.flatMap(([id, name, args], index) => [
		chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] }),
		...pieces(JSON.stringify(args), 3).map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] })),
	]),
	chunk({}, "tool_calls"),
];
const text = (s) => [...pieces(s, 4).map((t) => chunk({ content: t })), chunk({}, "stop")];
const HANG = {};
const abortError = () => Object.assign(new Error("The operation was aborted."), { name: "AbortError" });
// stream is an engine's async iterable of one turn's chunks; stopped() is the engine's
// own abort (its signal, or interruptGenerate).
const stream = (engine, chunks, stopped) => ({ [Symbol.asyncIterator]() {
	let i = 0, over = false; // over: it threw, and is done from then on, as a generator is
	const stop = (e) => { over = true; throw e; };
	return {
		next: async () => {
			await sleep(0);
			if (over) return { done: true, value: undefined };
			if (stopped.aborted) { engine.aborts++; stop(abortError()); }
			const c = chunks[i++];
			if (c === undefined) return { done: true, value: undefined };
			if (c === HANG) { await stopped.wait(); engine.aborts++; stop(abortError()); }
			if (c instanceof Error) stop(c);
			return { done: false, value: c };
		},
		return: async () => ({ done: true, value: undefined }),
	};
} });
const usage = (req, n) => req.stream_options?.include_usage ? [{ id: "", model: "", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 100 + 10 * n, completion_tokens: 7, total_tokens: 107 + 10 * n } }] : [];
const wllama = (...turns) => {
	const engine = { requests: [], aborts: 0, async createChatCompletion(req) {
		const { abortSignal, ...rest } = req;
		engine.requests.push({ ...rest, abortSignal: abortSignal instanceof AbortSignal });
		const n = engine.requests.length;
		const chunks = [...turns.shift(), ...usage(req, n)];
		return stream(engine, chunks, { get aborted() { return abortSignal.aborted; }, wait: () => new Promise((r) => abortSignal.addEventListener("abort", r)) });
	} };
	return engine;
};
const webllm = (...turns) => {
	let stop = null, stopped = false;
	const engine = { requests: [], aborts: 0, interrupts: 0,
		interruptGenerate() { engine.interrupts++; stopped = true; stop?.(); },
		chat: { completions: { async create(req) {
			engine.requests.push(req);
			stopped = false;
			const chunks = [...turns.shift(), ...usage(req, engine.requests.length)];
			return stream(engine, chunks, { get aborted() { return stopped; }, wait: () => new Promise((r) => (stop = r)) });
		} } } };
	return engine;
};
const until = async (f) => { for (let i = 0; i < 400 && !f(); i++) await sleep(5); return f(); };
`

var engineScenarios = withFakeEngines([]hostScenario{
	{Scenario: Scenario{"engine: closed loop, two turns, over wllama's shape", `
		const engine = wllama(calls(["call_a", "get_weather", { city: "Paris" }]), text("It is sunny in Paris."), text("You are welcome."));
		const log = [];
		const s = await LanguageModel.create({ backend: { kind: "engine", engine, contextWindow: 2048 }, tools: [getWeather((a) => "sunny in " + a.city)] });
		s.ontoolcall = (e) => log.push("call " + e.detail.call.name + " " + JSON.stringify(e.detail.call.arguments));
		s.ontoolresult = (e) => log.push("result " + JSON.stringify(e.detail.result.result));
		const first = await s.prompt("Weather in Paris?");
		const usageAfterFirst = s.contextUsage;
		const second = await s.prompt("Thanks!");
		const r = engine.requests;
		const availability = await LanguageModel.availability({ backend: { kind: "engine", engine } });
		return { first, second, log, availability, window: s.contextWindow, usage: [usageAfterFirst, s.contextUsage], history: s.history.map((m) => m.role),
			request: { model: "model" in r[0], stream: r[0].stream, options: r[0].stream_options, abortSignal: r[0].abortSignal,
				tools: r[0].tools.map((t) => t.type + ":" + t.function.name), messages: r[1].messages, third: r[2].messages.map((m) => m.role) } };`,
		`{"first":"It is sunny in Paris.","second":"You are welcome.","log":["call get_weather {\"city\":\"Paris\"}","result [{\"type\":\"text\",\"value\":\"sunny in Paris\"}]"],
		  "availability":"available","window":2048,"usage":[127,137],"history":["user","tool-call","tool-result","assistant","user","assistant"],
		  "request":{"model":false,"stream":true,"options":{"include_usage":true},"abortSignal":true,"tools":["function:get_weather"],
		    "messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"HdMxbSLRT","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","content":"sunny in Paris","tool_call_id":"HdMxbSLRT","name":"get_weather"}],
		    "third":["user","assistant","tool","assistant","user"]}}`}},

	{Scenario: Scenario{"engine: open loop, streamed, over WebLLM's shape", `
		const engine = webllm([chunk({ content: "Let me check. " }), ...calls(["c1", "get_weather", { city: "Paris" }]).slice(1)], text("Sunny."));
		const s = await LanguageModel.create({
			backend: { kind: "engine", engine, model: "Qwen2.5-0.5B-Instruct-q4f16_1-MLC" },
			expectedInputs: [{ type: "tool-response" }],
			expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			tools: [getWeather(undefined)],
		});
		const got = await read(s.promptStreaming("Weather in Paris?"));
		const call = got[1].value;
		const answer = await s.prompt([{ role: "user", content: [{ type: "tool-response", value: new LanguageModelToolSuccess({ callId: call.callId, name: call.name, result: [{ type: "text", value: "sunny" }] }) }] }]);
		return { got: got.map((c) => typeof c === "string" ? c : [c.type, c.value instanceof LanguageModelToolCall, c.value.callID, c.value.name, c.value.arguments]),
			answer, model: engine.requests[0].model, second: engine.requests[1].messages.map((m) => m.role), history: s.history.length };`,
		`{"got":["Let me check. ",["tool-call",true,"c1","get_weather",{"city":"Paris"}]],"answer":[{"type":"text","value":"Sunny."}],
		  "model":"Qwen2.5-0.5B-Instruct-q4f16_1-MLC","second":["user","assistant","tool"],"history":5}`}},

	{Scenario: Scenario{"engine: wllama's n_ctx is the context window, unless the page gives one", `
		const loaded = (info) => Object.assign(wllama(text("Hi.")), { getLoadedContextInfo: info });
		const windowOf = async (engine, extra) => (await LanguageModel.create({ backend: { kind: "engine", engine, ...extra } })).contextWindow;
		return [await windowOf(loaded(() => ({ n_ctx: 4096, n_ctx_train: 32768 }))), await windowOf(loaded(() => ({ n_ctx: 4096 })), { contextWindow: 1000 }),
			await windowOf(loaded(() => { throw new Error("no model loaded"); })), await windowOf(wllama(text("Hi.")))];`,
		`[4096,1000,32768,32768]`}},

	{Scenario: Scenario{"engine: a responseConstraint as each engine takes it", `
		const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
		const out = {};
		for (const [name, make] of [["wllama", wllama], ["webllm", webllm]]) {
			const engine = make([...text("{\"city\": \"Paris\"}")]);
			const s = await LanguageModel.create({ backend: { kind: "engine", engine } });
			out[name] = [await s.prompt("Which city?", { responseConstraint: schema }), engine.requests[0].response_format];
		}
		return out;`,
		`{"wllama":["{\"city\": \"Paris\"}",{"type":"json_schema","json_schema":{"name":"response","schema":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}}}],
		  "webllm":["{\"city\": \"Paris\"}",{"type":"json_object","schema":"{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"}]}`}},

	{Scenario: Scenario{"engine: samplingMode as each engine's samplers", `
		const modes = ["most-predictable", "predictable", "slightly-predictable", "balanced", "slightly-creative", "creative", "most-creative"];
		const out = {};
		for (const [name, make] of [["wllama", wllama], ["webllm", webllm]]) {
			const engine = make(...modes.map(() => text("Hi.")));
			for (const samplingMode of modes) await (await LanguageModel.create({ backend: { kind: "engine", engine }, samplingMode })).prompt("Hi");
			out[name] = engine.requests.map((r) => [r.temperature, r.top_k, r.top_p, r.min_p]);
		}
		return out;`,
		`{"wllama":[[0,1,null,null],[0.3,20,0.8,0.1],[0.5,30,0.9,0.05],[null,null,null,null],[0.9,60,0.95,0.05],[1.1,100,0.98,0.02],[1.3,0,1,0.01]],
		  "webllm":[[0,null,null,null],[0.3,null,0.8,null],[0.5,null,0.9,null],[null,null,null,null],[0.9,null,0.95,null],[1.1,null,0.98,null],[1.3,null,1,null]]}`}},

	{Scenario: Scenario{"engine: chunks that show nothing yet are joined, the rest cross as they are", `
		// Text between a call's fragments, two calls' fragments interleaved, a call with
		// no index and its arguments as an object (Ollama's shape: not joined), the end,
		// the usage: the same calls and text, in order, as chunk by chunk.
		const c = (delta, finish) => chunk(delta, finish);
		const frag = (index, f, id) => c({ tool_calls: [{ index, ...(id ? { id, type: "function" } : {}), function: f }] });
		const engine = wllama([c({ role: "assistant", content: null }), frag(0, { name: "get_", arguments: "" }, "a"), c({ content: "One " }),
			frag(0, { name: "weather", arguments: "{\"city\":" }), frag(1, { name: "get_weather", arguments: "{\"ci" }, "b"), frag(0, { arguments: "\"Paris\"}" }),
			c({ content: "moment. " }), frag(1, { arguments: "ty\":\"Oslo\"}" }),
			c({ tool_calls: [{ id: "o", function: { name: "get_weather", arguments: { city: "Rome" } } }] }), c({}, "tool_calls")]);
		const s = await LanguageModel.create({ backend: { kind: "engine", engine }, tools: [getWeather()],
			expectedInputs: [{ type: "tool-response" }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }] });
		const got = await read(s.promptStreaming("Weather?"));
		return { got: got.map((p) => typeof p === "string" ? p : [p.value.callID, p.value.name, p.value.arguments]), usage: s.contextUsage };`,
		`{"got":["One ","moment. ",["a","get_weather",{"city":"Paris"}],["b","get_weather",{"city":"Oslo"}],["o","get_weather",{"city":"Rome"}]],"usage":117}`}},

	{Scenario: Scenario{"engine: parallel calls, maxToolCalls, hybrid", `
		const out = {};
		const ran = [];
		const two = () => calls(["a", "get_weather", { city: "Paris" }], ["b", "get_weather", { city: "Oslo" }]);
		let s = await LanguageModel.create({ backend: { kind: "engine", engine: wllama(two(), text("Both sunny.")) }, tools: [getWeather((a) => { ran.push(a.city); return "sun"; })] });
		out.parallel = [await s.prompt("Paris and Oslo?"), ran, s.history.map((m) => m.role)];
		s = await LanguageModel.create({ backend: { kind: "engine", engine: wllama(two()) }, tools: [getWeather(() => "sun")], toolUseConfig: { maxToolCalls: 1 } });
		try { await s.prompt("Paris and Oslo?"); } catch (e) { out.limit = [e.name, e.message, s.history.length]; }
		s = await LanguageModel.create({
			backend: { kind: "engine", engine: wllama(calls(["a", "get_weather", { city: "Paris" }], ["b", "book", { city: "Paris" }])) },
			expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			tools: [getWeather(() => "sun"), { name: "book", description: "Book a trip", inputSchema: { type: "object", properties: { city: { type: "string" } } } }],
		});
		const r = await s.prompt("Go where it is sunny");
		out.hybrid = [r.map((p) => p.type + ":" + p.value.name), s.history.map((m) => m.role)];
		return out;`,
		`{"parallel":["Both sunny.",["Paris","Oslo"],["user","tool-call","tool-call","tool-result","tool-result","assistant"]],
		  "limit":["OperationError","tool call limit reached: maxToolCalls is 1 and the model asked for call 2 (get_weather)",0],
		  "hybrid":[["tool-call:book"],["user","tool-call","tool-call","tool-result"]]}`}},

	{Scenario: Scenario{"engine: abort mid-generation stops the engine", `
		const out = {};
		for (const [name, make] of [["wllama", wllama], ["webllm", webllm]]) {
			const engine = make([chunk({ content: "Once" }), HANG], text("Next."));
			const s = await LanguageModel.create({ backend: { kind: "engine", engine } });
			const ac = new AbortController();
			const reader = s.promptStreaming("Tell a story", { signal: ac.signal }).getReader();
			const first = (await reader.read()).value;
			ac.abort();
			const r = await caught(reader.read());
			await until(() => engine.aborts > 0);
			out[name] = { first, r, aborts: engine.aborts, interrupts: engine.interrupts ?? null, history: s.history.length, next: await s.prompt("Again"), after: s.history.length };
		}
		return out;`,
		`{"wllama":{"first":"Once","r":"AbortError","aborts":1,"interrupts":null,"history":0,"next":"Next.","after":2},
		  "webllm":{"first":"Once","r":"AbortError","aborts":1,"interrupts":1,"history":0,"next":"Next.","after":2}}`}},

	{Scenario: Scenario{"engine: an engine that throws mid-stream", `
		const out = {};
		const fails = (p) => p.then(() => "resolved", (e) => e.name + ": " + e.message);
		const engine = wllama(text("Hello."), [chunk({ content: "It is" }), new Error("memory access out of bounds")],
			[...calls(["a", "get_weather", { city: "Paris" }]).slice(0, 3), new Error("llama_decode failed")],
			[Object.assign(new Error("the model is not loaded"), { name: "InvalidStateError" })], text("Still here."));
		const s = await LanguageModel.create({ backend: { kind: "engine", engine }, tools: [getWeather(() => "sun")] });
		await s.prompt("Hi");
		const before = JSON.stringify(s.history);
		out.text = await fails(s.prompt("Weather?"));
		out.call = await fails(s.prompt("Weather?"));
		out.named = await fails(s.prompt("Weather?"));
		out.unchanged = JSON.stringify(s.history) === before;
		out.next = await s.prompt("Weather?");
		out.bad = await Promise.all([{ kind: "engine" }, { kind: "engine", engine: {} }, { kind: "engine", engine: { chat: {} } }]
			.map((backend) => fails(LanguageModel.create({ backend }))));
		return out;`,
		`{"text":"OperationError: the model failed: the in-page engine failed: memory access out of bounds",
		  "call":"OperationError: the model failed: the in-page engine failed: llama_decode failed",
		  "named":"InvalidStateError: the model failed: the in-page engine failed: the model is not loaded",
		  "unchanged":true,"next":"Still here.",
		  "bad":["TypeError: invalid backend: backend.engine must be an object with createChatCompletion() (wllama) or chat.completions.create() (WebLLM)",
		    "TypeError: invalid backend: backend.engine must be an object with createChatCompletion() (wllama) or chat.completions.create() (WebLLM)",
		    "TypeError: invalid backend: backend.engine must be an object with createChatCompletion() (wllama) or chat.completions.create() (WebLLM)"]}`}},

	{Scenario: Scenario{"engine: wllama's reasoning_content crosses piece by piece, before the answer, apart from it", `
		const think = (s) => pieces(s, 5).map((t) => chunk({ content: null, reasoning_content: t }));
		const engine = wllama([chunk({ role: "assistant", content: null }), ...think("Ask the tool."), ...calls(["call_a", "get_weather", { city: "Paris" }]).slice(1)],
			[...think("It is sunny."), ...text("Sunny in Paris.")]);
		const log = [];
		const s = await LanguageModel.create({ backend: { kind: "engine", engine }, tools: [getWeather((a) => "sunny in " + a.city)] });
		s.addEventListener("reasoning", (e) => log.push("r:" + e.detail.text));
		const r = s.promptStreaming("Weather in Paris?").getReader();
		for (;;) { const { done, value } = await r.read(); if (done) break; log.push("t:" + value); }
		return log;`,
		`["r:Ask t","r:he to","r:ol.","r:It is","r: sunn","r:y.","t:Sunn","t:y in","t: Par","t:is."]`}, OwnPage: exactPieces},

	{Scenario: Scenario{"toolcalldelta: an in-page engine passes a call's fragments on as they come once listened for", `
		const run = async (listen) => {
			const engine = wllama(calls(["call_a", "get_weather", { city: "Paris" }]), text("Sunny."));
			const s = await LanguageModel.create({ backend: { kind: "engine", engine, contextWindow: 2048 }, tools: [getWeather((a) => "sunny in " + a.city)] });
			const seen = [];
			if (listen) s.ontoolcalldelta = (e) => seen.push(e.detail.argumentsText);
			s.ontoolcall = (e) => seen.push("toolcall " + e.detail.call.callID);
			const answer = await s.prompt("Weather in Paris?");
			return { seen, answer };
		};
		return [await run(true), await run(false)];`,
		`[{"seen":["","{\"c","{\"city","{\"city\":\"","{\"city\":\"Par","{\"city\":\"Paris\"","{\"city\":\"Paris\"}","toolcall call_a"],"answer":"Sunny."},
		  {"seen":["toolcall call_a"],"answer":"Sunny."}]`}, OwnPage: exactPieces},
})

// withFakeEngines prepends fakeEngines to each scenario's script.
func withFakeEngines(scs []hostScenario) []hostScenario {
	for i := range scs {
		scs[i].JS = fakeEngines + scs[i].JS
	}
	return scs
}
