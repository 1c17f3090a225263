//go:build !js

package moduletest

// The conformance suite: one row per rule of the Prompt API spec (webmachinelearning/
// prompt-api, index.bs and README.md) and of the writing-assistance APIs it builds on
// that it relies on, each row naming the section it checks. Every row runs through the
// real module and the real face, under wazero (TestModule_Conformance) and in Chromium
// (TestBrowser_Conformance), after the same prelude as the scenarios plus conformHelpers.

// ConformHelpers is prepended to every row, after common.
const ConformHelpers = `
// echo is a backend that answers with the text of the last message it was sent.
const echo = { kind: "custom", generate: (req) => req.messages.at(-1).content.map((p) => p.value ?? "").join("") };
// hang is a backend that answers only when its signal aborts (then it throws the reason).
const hang = { kind: "custom", generate: (req, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))) };
const thrown = async (p) => { try { await p; return "resolved"; } catch (e) { return e; } };
const same = async (p, reason) => (await thrown(p)) === reason;
`

// conformRow is one rule: section names where the spec says it, js returns what want
// holds (JSON). setup runs before install() (e.g. to take ReadableStream's own async
// iterator away, as in WebKit); browserOnly rows need what the wazero host lacks (a
// download with real progress).
type conformRow struct {
	Name, Section, JS, Want string
	Setup                   string
	BrowserOnly             bool
}

// NoStreamIterator makes the page's ReadableStream what WebKit's is: no
// Symbol.asyncIterator, no values().
const NoStreamIterator = `delete ReadableStream.prototype[Symbol.asyncIterator]; delete ReadableStream.prototype.values;`

var conformance = []conformRow{
	// ---- the prompt argument: (sequence<LanguageModelMessage> or DOMString)
	{Name: "an object that is not iterable is its string", Section: "§ The API, LanguageModelPrompt; WebIDL § union conversion (ToString)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt({}), await s.prompt({ role: "system", content: "foo" }), await s.prompt({ toString: () => "mine" })];`,
		Want: `["[object Object]","[object Object]","mine"]`},
	{Name: "null and undefined are their strings", Section: "§ The API, LanguageModelPrompt; WebIDL § union conversion (ToString)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt(null), await s.prompt(undefined), await s.prompt(42)];`,
		Want: `["null","undefined","42"]`},
	{Name: "no argument is a TypeError", Section: "WebIDL § overload resolution (required argument)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const e = await thrown(s.prompt());
		const st = (() => { try { s.promptStreaming(); return "returned"; } catch (e) { return e.name; } })();
		return [e.name, (await thrown(s.append())).name, (await thrown(s.measureContextUsage())).name, st, s.history.length];`,
		Want: `["TypeError","TypeError","TypeError","TypeError",0]`},
	{Name: "a Symbol is a TypeError", Section: "WebIDL § DOMString conversion", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt(Symbol("x")))).name, s.history.length];`,
		Want: `["TypeError",0]`},
	{Name: "any iterable is a sequence of messages", Section: "§ The API, LanguageModelPrompt; WebIDL § sequence conversion", JS: `
		const s = await LanguageModel.create({ backend: echo });
		function* gen() { yield { role: "user", content: "from a generator" }; }
		const a = await s.prompt(new Set([{ role: "user", content: "from a set" }]));
		const b = await s.prompt(gen());
		await s.append(new Set([{ role: "user", content: "appended" }]));
		return [a, b, s.history.at(-1).content[0].value];`,
		Want: `["from a set","from a generator","appended"]`},
	{Name: "a message is read by property access: getters of a class work", Section: "WebIDL § dictionary conversion (LanguageModelMessage)", JS: `
		class Message { get role() { return "user"; } get content() { return "from a getter"; } }
		const s = await LanguageModel.create({ backend: echo, initialPrompts: [new Message()] });
		return [await s.prompt([new Message()]), s.history.length];`,
		Want: `["from a getter",3]`},
	{Name: "a message's content: any iterable is a sequence, a number its string", Section: "§ The API, LanguageModelMessage.content (DOMString or sequence<LanguageModelMessageContent>)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt([{ role: "user", content: new Set([{ type: "text", value: "from a set" }]) }]), await s.prompt([{ role: "user", content: 42 }])];`,
		Want: `["from a set","42"]`},
	{Name: "a content part is read by property access: getters of a class work, type is its string", Section: "§ The API, LanguageModelMessageContent (dictionary: type, value); WebIDL § dictionary conversion", JS: `
		class Part { get type() { return "text"; } get value() { return "from a getter"; } }
		const s = await LanguageModel.create({ backend: echo, initialPrompts: [{ role: "system", content: [new Part()] }] });
		const a = await s.prompt([{ role: "user", content: [new Part()] }]);
		const b = await s.prompt([{ role: "user", content: new Set([{ type: { toString: () => "text" }, value: "a type converted" }]) }]);
		return [a, b, s.history[0].content[0].value, s.history.length];`,
		Want: `["from a getter","a type converted","from a getter",5]`},
	{Name: "a content part without type or value is a TypeError; a throwing getter rejects with its exception", Section: "§ The API, LanguageModelMessageContent (required type, required value); WebIDL § dictionary conversion", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const err = async (content) => { const e = await thrown(s.prompt([{ role: "user", content }])); return e instanceof TypeError ? e.message : e; };
		const boom = new RangeError("boom");
		return [await err([{ type: "text" }]), await err([{ value: "x" }]), await err([null]), await err(["text"]),
			(await thrown(s.append([{ role: "user", content: [{ type: "text", get value() { throw boom; } }] }]))) === boom,
			(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: [{ value: "x" }] }] }))).name, s.history.length];`,
		Want: `["message 0 part 0: the required member value is missing.","message 0 part 0: the required member type is missing.",
			"message 0 part 0: the required member type is missing.","message 0 part 0 is not an object.",true,"TypeError",0]`},
	{Name: "expected languages are a sequence<DOMString>: any iterable, each its string; anything else a TypeError", Section: "§ The API, LanguageModelExpected.languages (sequence<DOMString>); WebIDL § sequence conversion", JS: `
		const unk = { toString: () => "unk" };
		class Expected { get type() { return "text"; } get languages() { return new Set(["unk"]); } }
		const answers = [await LanguageModel.availability({ backend: echo, expectedInputs: [{ type: "text", languages: new Set(["unk"]) }] }),
			await LanguageModel.availability({ backend: echo, expectedOutputs: [{ type: "text", languages: [unk] }] }),
			await LanguageModel.availability({ backend: echo, expectedInputs: [new Expected()] }),
			await LanguageModel.availability({ backend: echo, expectedInputs: [{ type: "text", languages: new Set(["EN"]) }] })];
		const err = async (o) => { const e = await thrown(LanguageModel.create({ backend: echo, ...o })); return e instanceof TypeError ? e.message : e; };
		return [answers, await err({ expectedInputs: [{ type: "text", languages: "en" }] }), await err({ expectedOutputs: [{ type: "text", languages: { 0: "en", length: 1 } }] }),
			await err({ expectedInputs: [{ languages: ["en"] }] }), await err({ expectedInputs: [{ type: "text", languages: [Symbol("en")] }] })];`,
		Want: `[["unavailable","unavailable","unavailable","available"],"expectedInputs[0].languages is not a sequence.","expectedOutputs[0].languages is not a sequence.",
			"expectedInputs[0]: the required member type is missing.","Cannot convert a Symbol value to a string."]`},
	{Name: "prefix is converted to a boolean", Section: "§ The API, LanguageModelMessage.prefix (boolean)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const e = await thrown(s.prompt([{ role: "user", content: "a", prefix: "yes" }]));
		await s.append([{ role: "user", content: "b", prefix: 0 }]);
		return [e.name, s.history.length];`,
		Want: `["SyntaxError",1]`},
	{Name: "a throwing Symbol.iterator rejects with its exception", Section: "WebIDL § union conversion (GetMethod @@iterator)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const boom = new Error("iterator");
		const input = { get [Symbol.iterator]() { throw boom; } };
		return [await same(s.prompt(input), boom), s.history.length];`,
		Want: `[true,0]`},
	{Name: "options that are not an object are a TypeError", Section: "WebIDL § dictionary conversion", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt("x", 5))).name, (await thrown(s.prompt("x", { signal: {} }))).name,
			(await thrown(s.prompt("x", { responseConstraint: "json" }))).name, (await thrown(LanguageModel.create("x"))).name, s.history.length];`,
		Want: `["TypeError","TypeError","TypeError","TypeError",0]`},

	// ---- validate and canonicalize a prompt (the engine's rules, as a page sees them)
	{Name: "a prefix message that is not the assistant's is a SyntaxError", Section: "§ validate and canonicalize a prompt, step 6.2.1", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: "a", prefix: true }]))).name, s.history.length];`,
		Want: `["SyntaxError",0]`},
	{Name: "a prefix message that is not the last is a SyntaxError", Section: "§ validate and canonicalize a prompt, step 6.2.2", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "assistant", content: "a", prefix: true }, { role: "user", content: "b" }]))).name, s.history.length];`,
		Want: `["SyntaxError",0]`},
	{Name: "a system message after input is a TypeError", Section: "§ validate and canonicalize a prompt, step 6.3.1 (hasAppendedInput)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append("first");
		return [(await thrown(s.prompt([{ role: "system", content: "late" }]))).name, (await thrown(s.prompt([{ role: "user", content: "a" }, { role: "system", content: "b" }]))).name, s.history.length];`,
		Want: `["TypeError","TypeError",1]`},
	{Name: "a text part whose value is not a string is a TypeError", Section: "§ validate and canonicalize a prompt, step 6.5.2", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "text", value: new ArrayBuffer(2) }] }]))).name, s.history.length];`,
		Want: `["TypeError",0]`},
	{Name: "an image without image in expectedInputs is a NotSupportedError", Section: "§ validate and canonicalize a prompt, step 6.5.3.1", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "image", value: new Uint8Array([1, 2]) }] }]))).name, s.history.length];`,
		Want: `["NotSupportedError",0]`},
	{Name: "audio without audio in expectedInputs is a NotSupportedError", Section: "§ validate and canonicalize a prompt, step 6.5.4.1", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "audio", value: new Uint8Array([1, 2]) }] }]))).name, s.history.length];`,
		Want: `["NotSupportedError",0]`},
	{Name: "an empty content list is one empty text part", Section: "§ validate and canonicalize a prompt, step 6.4", JS: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append([{ role: "user", content: [] }]);
		return s.history.map((m) => m.content);`,
		Want: `[[{"type":"text","value":""}]]`},
	{Name: "contiguous text parts are collapsed, with nothing added", Section: "§ validate and canonicalize a prompt, step 6.6–6.8", JS: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append([{ role: "user", content: [{ type: "text", value: "foo" }, { type: "text", value: "bar" }] }]);
		return s.history[0].content;`,
		Want: `[{"type":"text","value":"foobar"}]`},
	{Name: "initialPrompts are validated with the session's expected inputs", Section: "§ validate and canonicalize language model options, step 3", JS: `
		return [(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: [{ type: "image", value: new Uint8Array([1]) }] }] }))).name,
			(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: "a", prefix: true }] }))).name];`,
		Want: `["NotSupportedError","SyntaxError"]`},

	// ---- abort: the signal's own reason, before or during
	{Name: "prompt: aborted before, rejects with the reason itself", Section: "writing-assistance-apis § get an aggregated AI model result (signal aborted)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const ac = new AbortController(); ac.abort(reason);
		return [await same(s.prompt("x", { signal: ac.signal }), reason), s.history.length];`,
		Want: `[true,0]`},
	{Name: "prompt: aborted during, rejects with the reason itself and leaves the history", Section: "writing-assistance-apis § get an aggregated AI model result (abort steps); README § Aborting a specific prompt", JS: `
		const s = await LanguageModel.create({ backend: hang });
		const reason = new DOMException("stop", "TimeoutError");
		const ac = new AbortController();
		const p = s.prompt("x", { signal: ac.signal });
		await sleep(5);
		ac.abort(reason);
		return [await same(p, reason), s.history.length];`,
		Want: `[true,0]`},
	{Name: "prompt: aborted while queued, rejects with the reason; the prompt before it goes on", Section: "README § Aborting a specific prompt (queued: removed from the queue)", JS: `
		let release;
		const gate = new Promise((r) => { release = r; });
		const answers = [gate.then(() => "first"), "third"];
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => answers.shift() } });
		const reason = new Error("mine");
		const ac = new AbortController();
		const first = s.prompt("1");
		const second = s.prompt("2", { signal: ac.signal });
		await sleep(5);
		ac.abort(reason);
		const r2 = await same(second, reason);
		release();
		return [r2, await first, await s.prompt("3"), s.history.length];`,
		Want: `[true,"first","third",4]`},
	{Name: "append and measureContextUsage: the reason itself, before", Section: "§ append(), measureContextUsage(); writing-assistance-apis § measure AI model input usage", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		return [await same(s.append("x", { signal: before.signal }), reason), await same(s.measureContextUsage("x", { signal: before.signal }), reason), s.history.length];`,
		Want: `[true,true,0]`},
	{Name: "append and clone queued behind a prompt: aborted there, the reason itself", Section: "writing-assistance-apis § get an aggregated AI model result (abort steps); § clone a language model (abort steps)", JS: `
		const s = await LanguageModel.create({ backend: hang });
		const reason = new Error("mine");
		const stop = new AbortController();
		const first = s.prompt("block", { signal: stop.signal });
		const ac = new AbortController();
		const a = s.append("x", { signal: ac.signal }), c = s.clone({ signal: ac.signal });
		await sleep(5);
		ac.abort(reason);
		const got = [await same(a, reason), await same(c, reason)];
		stop.abort(reason);
		return [...got, await same(first, reason), s.history.length];`,
		Want: `[true,true,true,0]`},
	{Name: "clone: the reason itself, before", Section: "§ clone a language model, step 9", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		return await same(s.clone({ signal: before.signal }), reason);`,
		Want: `true`},
	{Name: "create: the reason itself, before and during", Section: "writing-assistance-apis § create an AI model object (signal)", JS: `
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		const during = new AbortController();
		const c = LanguageModel.create({ backend: echo, signal: during.signal });
		during.abort(reason);
		return [await same(LanguageModel.create({ backend: echo, signal: before.signal }), reason), await same(c, reason)];`,
		Want: `[true,true]`},
	{Name: "promptStreaming: an aborted signal throws the reason synchronously", Section: "writing-assistance-apis § get a streaming AI model result (signal aborted: throw)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const ac = new AbortController(); ac.abort(reason);
		let got;
		try { s.promptStreaming("x", { signal: ac.signal }); got = "returned a stream"; } catch (e) { got = e === reason; }
		return [got, s.history.length];`,
		Want: `[true,0]`},
	{Name: "promptStreaming: aborting later errors the stream with the reason", Section: "writing-assistance-apis § get a streaming AI model result (abort steps: error the stream)", JS: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }) });
		const reason = new Error("mine");
		const ac = new AbortController();
		const reader = s.promptStreaming("x", { signal: ac.signal }).getReader();
		const first = await reader.read();
		ac.abort(reason);
		return [first.value, await same(reader.read(), reason), s.history.length];`,
		Want: `["a",true,0]`},
	{Name: "stream.cancel() aborts the prompt as its signal would", Section: "writing-assistance-apis § get a streaming AI model result (cancel algorithm); DESIGN.md §3", JS: `
		const w = waitingTool();
		const s = await LanguageModel.create({
			backend: script({ calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "after" }),
			tools: [w.tool],
		});
		const stream = s.promptStreaming("weather?");
		await w.started;
		await stream.cancel(new Error("not interested"));
		return [await w.aborted(), s.history.length, await s.prompt("again")];`,
		Want: `["AbortError",0,"after"]`},
	{Name: "create's signal ties the session: calls in flight and later reject with its reason", Section: "README § Session destruction; writing-assistance-apis § create an AI model object", JS: `
		const reason = new Error("gone");
		const ac = new AbortController();
		const s = await LanguageModel.create({ backend: hang, signal: ac.signal });
		const inflight = s.prompt("x");
		const reader = s.promptStreaming("y").getReader();
		await sleep(5);
		ac.abort(reason);
		return [await same(inflight, reason), await same(reader.read(), reason), await same(s.prompt("later"), reason), await same(s.append("later"), reason)];`,
		Want: `[true,true,true,true]`},
	{Name: "downloadprogress stops once create's signal aborted", Section: "README § Session destruction (before create() settles: no further downloadprogress)", BrowserOnly: true, JS: `
		const installing = lm.install({ wasm: "/langmodel.wasm" });
		const ac = new AbortController();
		let before = 0, after = 0;
		const created = LanguageModel.create({ signal: ac.signal, monitor(m) { m.addEventListener("downloadprogress", () => { if (ac.signal.aborted) after++; else { before++; ac.abort(); } }); } });
		const r = await thrown(created);
		await installing;
		return [before, after, r.name];`,
		Want: `[1,0,"AbortError"]`},

	// ---- tools: declarations read by property access
	{Name: "a Proxy trap on inputSchema.properties rejects create() with its exception", Section: "§ The API, LanguageModelTool (inputSchema read as type, properties, required)", JS: `
		const boom = new Error("trap");
		const inputSchema = new Proxy({ type: "object" }, { get(t, k) { if (k === "properties") throw boom; return Reflect.get(t, k); } });
		return await same(LanguageModel.create({ backend: echo, tools: [{ name: "t", description: "d", inputSchema, execute() {} }] }), boom);`,
		Want: `true`},
	{Name: "a throwing getter on inputSchema.required rejects create() with its exception", Section: "§ The API, LanguageModelTool (inputSchema read as type, properties, required)", JS: `
		const boom = new Error("getter");
		const inputSchema = Object.defineProperty({ type: "object" }, "required", { get() { throw boom; } });
		return await same(LanguageModel.create({ backend: echo, tools: [{ name: "t", description: "d", inputSchema, execute() {} }] }), boom);`,
		Want: `true`},

	// ---- events
	{Name: "quotaoverflow fires with contextoverflow, once each", Section: "§ The LanguageModel class, event handlers (oncontextoverflow, onquotaoverflow)", JS: `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }, { text: "ok" }, { text: "ok" }], window: 40 } });
		const log = [];
		s.addEventListener("contextoverflow", () => log.push("context"));
		s.addEventListener("quotaoverflow", () => log.push("quota"));
		s.onquotaoverflow = () => log.push("onquota");
		s.oncontextoverflow = () => log.push("oncontext");
		for (let i = 0; i < 3; i++) await s.prompt("x".repeat(40));
		const n = (what) => log.filter((x) => x === what).length;
		return [log.slice(0, 4), n("context") > 0 && n("context") === n("quota") && n("quota") === n("onquota") && n("onquota") === n("oncontext"), s.onquotaoverflow !== s.oncontextoverflow];`,
		Want: `[["context","oncontext","quota","onquota"],true,true]`},

	// ---- options converted as WebIDL declares them
	{Name: "temperature reads back as a float", Section: "§ The API, LanguageModel.temperature (float)", JS: `
		const s = await LanguageModel.create({ backend: echo, temperature: 0.6, topK: 5 });
		const d = await LanguageModel.create({ backend: echo });
		return [s.temperature === Math.fround(0.6), s.temperature !== 0.6, s.topK, d.temperature, d.topK];`,
		Want: `[true,true,5,1,3]`},
	{Name: "a session without samplingMode reports balanced", Section: "§ The API, LanguageModelSamplingMode (no default in the spec: the module reports balanced)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		return s.samplingMode;`,
		Want: `"balanced"`},
	{Name: "append resolves to undefined, destroy returns undefined", Section: "§ The API, append() (Promise<undefined>); DestroyableModel", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const a = await s.append("x");
		return [a === undefined, s.destroy() === undefined];`,
		Want: `[true,true]`},
}

// engineRows are the rules the engine holds (merged from conf-engine), played through
// the real module and face: what a page sees of them.
var engineRows = []conformRow{
	{Name: "a caller-supplied tool call needs tool-call in expectedInputs", Section: "§ validate and canonicalize a prompt (expected types: NotSupportedError)", JS: `
		const call = { role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] };
		const bare = await LanguageModel.create({ backend: echo });
		const e = await thrown(bare.append([call]));
		const declared = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await declared.append([call]);
		return [e.name, bare.history.length, declared.history.length];`,
		Want: `["NotSupportedError",0,1]`},
	{Name: "a caller-supplied tool response needs tool-response in expectedInputs", Section: "§ validate and canonicalize a prompt (expected types: NotSupportedError)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		const e = await thrown(s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [{ type: "text", value: "ok" }] } }] }]));
		return [e.name, /tool-response/.test(e.message), s.history.length];`,
		Want: `["NotSupportedError",true,1]`},
	{Name: "tool-call arguments that are not a dictionary are a DataError", Section: "§ The API, LanguageModelMessageValue (tool-call arguments: a dictionary)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		const e = await thrown(s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: [] } }] }]));
		return [e.name, s.history.length];`,
		Want: `["DataError",0]`},
	{Name: "a text result part with an object value is its JSON text", Section: "§ The API, LanguageModelMessageValue (tool results: text parts)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		await s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [{ type: "text", value: { a: [1, 2] } }] } }] }]);
		return s.history.at(-1).content[0].value.result;`,
		Want: `[{"type":"text","value":"{\"a\":[1,2]}"}]`},
	{Name: "a value check comes before pairing: a cycle in a response for no call is a DataError", Section: "§ validate and canonicalize a prompt (value checks before the module's pairing rule, docs/decisions.md)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		const cyc = {}; cyc.self = cyc;
		const e = await thrown(s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "nope", name: "w", result: [{ type: "object", value: cyc }] } }] }]));
		return [e.name, s.history.length];`,
		Want: `["DataError",0]`},
	{Name: "a response for a call the session never made is kept, unpaired", Section: "docs/decisions.md (Chrome's own tests supply such responses)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-response" }] });
		await s.append([{ role: "user", content: [{ type: "tool-response", value: new LanguageModelToolSuccess({ callId: "never", name: "w", result: [{ type: "text", value: "ok" }] }) }] }]);
		return s.history.map((m) => m.role);`,
		Want: `["tool-result"]`},
	{Name: "append([]) adds nothing", Section: "DESIGN.md §3 (an empty sequence appends nothing)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append("x");
		const before = s.contextUsage;
		await s.append([]);
		return [s.contextUsage === before, s.history.length];`,
		Want: `[true,1]`},
	{Name: "prompt([]) prompts one empty user message", Section: "§ validate and canonicalize a prompt, step 4 (an empty list)", JS: `
		const s = await LanguageModel.create({ backend: script({ text: "yes?" }) });
		return [await s.prompt([]), s.history.map((m) => [m.role, m.content[0].value])];`,
		Want: `["yes?",[["user",""],["assistant","yes?"]]]`},
	{Name: "measureContextUsage measures a system message on a session with history", Section: "§ measureContextUsage(input, options), step 3 (hasAppendedInput false)", JS: `
		const s = await LanguageModel.create({ backend: echo });
		await s.prompt("hello");
		const n = await s.measureContextUsage([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]);
		return [typeof n, n > 0, s.history.length];`,
		Want: `["number",true,2]`},
	{Name: "contextoverflow fires once per overflow", Section: "§ The LanguageModel class, contextoverflow", JS: `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }, { text: "ok" }, { text: "ok" }, { text: "ok" }], window: 60 } });
		const per = [];
		let n = 0;
		s.oncontextoverflow = () => n++;
		for (let i = 0; i < 4; i++) { n = 0; await s.prompt("x".repeat(40)); per.push(n); }
		return per.every((k) => k <= 1) && per.some((k) => k === 1);`,
		Want: `true`},
	{Name: "responseConstraint holds on a backend that ignores it: one repair, then SyntaxError, history unchanged", Section: "§ prompt(input, options) (responseConstraint)", JS: `
		const answers = ["not json at all", "still not", "not json", "{\"ok\":true}"];
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => answers.shift() } });
		const e = await thrown(s.prompt("x", { responseConstraint: { type: "object", required: ["ok"] } }));
		const ok = await s.prompt("y", { responseConstraint: { type: "object", required: ["ok"] } });
		return [e.name, ok, s.history.length];`,
		Want: `["SyntaxError","{\"ok\":true}",2]`},
	{Name: "a RegExp constraint with a flag the module cannot honour is a NotSupportedError naming it, sent nowhere", Section: "README § Structured output with JSON schema or RegExp constraints (the answer matches the RegExp); docs/decisions.md (RegExp flags)", JS: `
		let calls = 0;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => { calls++; return "abc"; } } });
		const e = await thrown(s.prompt("x", { responseConstraint: /ABC/i }));
		const st = (() => { try { s.promptStreaming("x", { responseConstraint: /^abc$/my }); return "returned"; } catch (e) { return e.name + ": " + e.message; } })();
		const m = await thrown(s.measureContextUsage("x", { responseConstraint: /a.c/s }));
		return [e instanceof DOMException, e.name, e.message, st, m.name, calls, s.history.length];`,
		Want: `[true,"NotSupportedError","LanguageModel.prompt(): the responseConstraint /ABC/i has the flag \"i\", which the module cannot honour: only \"d\", \"g\" and \"u\" are.",
			"NotSupportedError: LanguageModel.promptStreaming(): the responseConstraint /^abc$/my has the flags \"m\", \"y\", which the module cannot honour: only \"d\", \"g\" and \"u\" are.",
			"NotSupportedError",0,0]`},
	{Name: "a RegExp constraint with the flags d, g or u holds as without them", Section: "README § Structured output with JSON schema or RegExp constraints; docs/decisions.md (RegExp flags)", JS: `
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => "abc" } });
		const ok = [await s.prompt("x", { responseConstraint: /b/g }), await s.prompt("x", { responseConstraint: /^a.c$/u }), await s.prompt("x", { responseConstraint: /abc/gu })];
		const e = await thrown(s.prompt("x", { responseConstraint: /ABC/g }));
		return [ok, e.name, s.history.length];`,
		Want: `[["abc","abc","abc"],"SyntaxError",6]`},
	{Name: "a RegExp constraint valid only outside Unicode mode is a NotSupportedError naming the u flag", Section: "README § Structured output with JSON schema or RegExp constraints; docs/decisions.md (RegExp flags)", BrowserOnly: true, JS: `
		await lm.install({ wasm: "/langmodel.wasm" }); // goja's RegExp takes \- in Unicode mode: a browser's does not
		let calls = 0;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => { calls++; return "555-1234"; } } });
		const e = await thrown(s.prompt("x", { responseConstraint: /^\d{3}\-\d{4}$/ }));
		return [e.name, e.message.startsWith("LanguageModel.prompt(): the responseConstraint /^\\d{3}\\-\\d{4}$/ is read in Unicode mode (the \"u\" flag)"), calls, s.history.length,
			await s.prompt("x", { responseConstraint: /^\d{3}-\d{4}$/ })];`,
		Want: `["NotSupportedError",true,0,0,"555-1234"]`},
	{Name: "a RegExp constraint from another realm (an iframe's) is a RegExp, not the schema {}", Section: "README § Structured output with JSON schema or RegExp constraints (a RegExp object); WebIDL § object (any realm)", BrowserOnly: true, JS: `
		await lm.install({ wasm: "/langmodel.wasm" });
		const frame = document.createElement("iframe");
		document.documentElement.append(frame);
		const Other = frame.contentWindow.RegExp;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => "abd" } });
		const e = await thrown(s.prompt("x", { responseConstraint: new Other("^abc$") }));
		const f = await thrown(s.prompt("x", { responseConstraint: new Other("abd", "i") }));
		return [new Other("x") instanceof RegExp, e.name, f.name, await s.prompt("x", { responseConstraint: new Other("^abd$") }), s.history.length];`,
		Want: `[false,"SyntaxError","NotSupportedError","abd",2]`},
	{Name: "omitResponseConstraintInput without a responseConstraint is a TypeError", Section: "§ measureContextUsage(input, options), step 1; README § Structured output", JS: `
		const s = await LanguageModel.create({ backend: echo });
		const p = await thrown(s.prompt("x", { omitResponseConstraintInput: true }));
		const m = await thrown(s.measureContextUsage("x", { omitResponseConstraintInput: true }));
		return [p.name, m.name, s.history.length, typeof await s.measureContextUsage("x", { omitResponseConstraintInput: true, responseConstraint: { type: "object" } })];`,
		Want: `["TypeError","TypeError",0,"number"]`},
	{Name: "an invalid language tag is a RangeError in create() and availability()", Section: "§ validate and canonicalize language model options (Validate and canonicalize language tags)", JS: `
		const o = { backend: echo, expectedInputs: [{ type: "text", languages: ["en-abc-invalid"] }] };
		const kind = (e) => [e instanceof RangeError, e instanceof DOMException, e.name];
		return [kind(await thrown(LanguageModel.create(o))), kind(await thrown(LanguageModel.availability(o)))];`,
		Want: `[[true,false,"RangeError"],[true,false,"RangeError"]]`},
	{Name: "a temperature below 0 or a topK below 1 is a RangeError, an ECMAScript one, in create()", Section: "README § Configuration per session (temperature below 0, topK below 1: RangeError); WebIDL § simple exceptions", JS: `
		const kind = (e) => [e instanceof RangeError, e instanceof DOMException, e.name];
		return [kind(await thrown(LanguageModel.create({ backend: echo, temperature: -0.5 }))), kind(await thrown(LanguageModel.create({ backend: echo, topK: 0 })))];`,
		Want: `[[true,false,"RangeError"],[true,false,"RangeError"]]`},
	{Name: "a history fed back as initialPrompts: the new session's calls take ids the history does not have", Section: "DESIGN.md §3 (session.history, call ids unique within the session)", JS: `
		const opts = { tools: [{ name: "w", description: "d", inputSchema: { type: "object" } }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }] };
		const a = await LanguageModel.create({ ...opts, backend: script({ calls: [{ name: "w", arguments: { n: 1 } }] }, { text: "one" }) });
		const [first] = await a.prompt("x");
		await a.prompt([{ role: "tool-result", content: { type: "tool-result", value: { callID: first.value.callID, name: "w", result: "r" } } }]);
		const b = await LanguageModel.create({ ...opts, initialPrompts: a.history, backend: script({ calls: [{ name: "w", arguments: { n: 2 } }, { callID: "call_1", name: "w", arguments: { n: 3 } }] }) });
		const next = (await b.prompt("y")).map((p) => p.value.callID);
		const ids = b.history.filter((m) => m.role === "tool-call").map((m) => m.content[0].value.callID);
		return [first.value.callID, next.includes(first.value.callID), new Set(ids).size === ids.length, ids.length];`,
		Want: `["call_1",false,true,3]`},
	{Name: "availability() with sampling values out of range answers unavailable", Section: "§ LanguageModelCreateCoreOptions (topK, temperature: custom out-of-range handling); Chrome's tests (ai/language_model availability)", JS: `
		return [await LanguageModel.availability({ backend: echo, temperature: -0.1 }), await LanguageModel.availability({ backend: echo, topK: -3, temperature: 0.5 }),
			await LanguageModel.availability({ backend: echo, topK: 0.5 }), await LanguageModel.availability({ backend: echo, topK: 2.5 }),
			await LanguageModel.availability({ backend: echo, topK: 3, temperature: 0.5 })];`,
		Want: `["unavailable","unavailable","unavailable","available","available"]`},
	{Name: "samplingMode is null on a session created with topK or temperature", Section: "§ The API, LanguageModel.samplingMode; Chrome's tests", JS: `
		const t = await LanguageModel.create({ backend: echo, temperature: 0.5 }), k = await LanguageModel.create({ backend: echo, topK: 3 });
		return [t.samplingMode, k.samplingMode, (await k.clone()).samplingMode, (await LanguageModel.create({ backend: echo, samplingMode: "predictable" })).samplingMode];`,
		Want: `[null,null,null,"predictable"]`},
	{Name: "a platform object as an object tool result is a DataError, history unchanged", Section: "§ LanguageModelMessageValue; DESIGN.md §3 (values that cannot be serialised: DataError); Chrome's tests", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		const values = [new Uint8Array([1, 2]), new Uint8Array([1]).buffer];
		if (typeof Blob === "function") values.push(new Blob(["x"]));
		if (typeof createImageBitmap === "function") values.push(await createImageBitmap(new ImageData(1, 1)));
		const names = new Set();
		for (const value of values) {
			const e = await thrown(s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [{ type: "object", value }] } }] }]));
			names.add(e.name);
		}
		return [[...names], s.history.length];`,
		Want: `[["DataError"],1]`},
	{Name: "a text tool result takes any JSON value, as its JSON text", Section: "§ LanguageModelMessageValue; Chrome's tests (tool-response text parts holding objects and arrays)", JS: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		await s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [
			{ type: "text", value: { temp: 12, sky: ["sun"] } }, { type: "text", value: [1, "a"] }, { type: "text", value: 3 }, { type: "text", value: true }, { type: "text", value: null }, { type: "text", value: "plain" }] } }] }]);
		return s.history.at(-1).content[0].value.result.map((p) => p.value);`,
		Want: `["{\"sky\":[\"sun\"],\"temp\":12}","[1,\"a\"]","3","true","null","plain"]`},
	{Name: "availability follows the languages: unknown is unavailable", Section: "§ Availability (compute language model options availability)", JS: `
		return [await LanguageModel.availability({ expectedInputs: [{ type: "text", languages: ["unk"] }] }), await LanguageModel.availability({ expectedInputs: [{ type: "text", languages: ["EN"] }] })];`,
		Want: `["unavailable","available"]`},
	{Name: "samplingMode with temperature or topK is a TypeError in create() and availability()", Section: "§ The API, LanguageModelCreateCoreOptions (samplingMode)", JS: `
		const a = { backend: echo, samplingMode: "creative", temperature: 0.5 }, b = { backend: echo, samplingMode: "balanced", topK: 3 };
		return [(await thrown(LanguageModel.create(a))).name, (await thrown(LanguageModel.availability(a))).name, (await thrown(LanguageModel.create(b))).name,
			(await LanguageModel.create({ backend: echo, samplingMode: "creative" })).samplingMode];`,
		Want: `["TypeError","TypeError","TypeError","creative"]`},
}

// streamRows are the Streams standard's async iteration of the stream promptStreaming()
// returns. Each runs twice: with the engine's own iterator, and with
// it taken away as WebKit has it, so the face's fallback is tested in every browser.
var streamRows = []conformRow{
	{Name: "for await reads every chunk", Section: "Streams § ReadableStream async iteration", JS: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["Hel", "lo"] }) });
		const out = [];
		for await (const c of s.promptStreaming("hi")) out.push(c);
		return [out, s.history.length];`,
		Want: `[["Hel","lo"],2]`},
	{Name: "break cancels the stream, which aborts the prompt: history unchanged, the tool's signal fires", Section: "Streams § async iterator return (cancel); writing-assistance-apis § get a streaming AI model result (cancel)", JS: `
		const w = waitingTool();
		const s = await LanguageModel.create({
			backend: script({ chunks: ["Let me check."], calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "Sunny." }, { text: "next" }),
			tools: [w.tool],
		});
		const stream = s.promptStreaming("weather?");
		for await (const c of stream) { await w.started; break; }
		return [await w.aborted(), s.history.length, stream.locked, await s.prompt("again")];`,
		Want: `["AbortError",0,false,"Sunny."]`},
	{Name: "a throw inside for await cancels like break", Section: "Streams § async iterator return (cancel)", JS: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }, { text: "next" }) });
		let caughtIt;
		try { for await (const c of s.promptStreaming("x")) throw new Error("page bug"); } catch (e) { caughtIt = e.message; }
		await sleep(5);
		return [caughtIt, s.history.length, await s.prompt("y")];`,
		Want: `["page bug",0,"next"]`},
	{Name: "values({preventCancel: true}): break leaves the prompt running", Section: "Streams § ReadableStream values() (preventCancel)", JS: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a", "b", "c"] }) });
		const stream = s.promptStreaming("x");
		const out = [];
		for await (const c of stream.values({ preventCancel: true })) { out.push(c); break; }
		out.push(...await read(stream));
		return [out, s.history.length];`,
		Want: `[["a","b","c"],2]`},
	{Name: "an error ends the iteration with the stream's error", Section: "Streams § async iterator next (errored stream)", JS: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }) });
		const reason = new Error("mine");
		const ac = new AbortController();
		const out = [];
		let got;
		try { for await (const c of s.promptStreaming("x", { signal: ac.signal })) { out.push(c); ac.abort(reason); } } catch (e) { got = e === reason; }
		return [out, got, s.history.length];`,
		Want: `[["a"],true,0]`},
	{Name: "a stream never read still runs its prompt: history and events agree with what it holds", Section: "docs/decisions.md (a stream nobody reads)", JS: `
		const s = await LanguageModel.create({
			backend: script({ chunks: ["Let me check."], calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { chunks: ["Sun", "ny."] }),
			tools: [weather(() => "sunny")],
		});
		const events = [];
		s.ontoolresult = (e) => events.push(e.detail.result.callID);
		const stream = s.promptStreaming("weather?");
		for (let i = 0; i < 100 && s.history.length < 5; i++) await sleep(5);
		const chunks = [];
		for await (const c of stream) chunks.push(c);
		const last = s.history.at(-1);
		return [s.history.map((m) => m.role), events.length, chunks.join(""), last.content[0].value];`,
		Want: `[["user","assistant","tool-call","tool-result","assistant"],1,"Let me check.Sunny.","Sunny."]`},
}

// AllConformance is every row, the stream rows twice.
func AllConformance() []conformRow {
	out := append(append(append([]conformRow{}, conformance...), engineRows...), explainerRows()...)
	for _, r := range streamRows {
		native := r
		native.Name += " (the engine's own iterator)"
		fallback := r
		fallback.Name += " (no Symbol.asyncIterator, as in WebKit)"
		fallback.Setup = NoStreamIterator
		out = append(out, native, fallback)
	}
	return out
}
