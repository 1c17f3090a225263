//go:build !js

package main

import (
	"testing"

	"langmodel/internal/testing/browsertest"
)

// The conformance suite: one row per rule of the Prompt API spec (webmachinelearning/
// prompt-api, index.bs and README.md) and of the writing-assistance APIs it builds on
// that it relies on, each row naming the section it checks. Every row runs through the
// real module and the real face, under wazero (TestModule_Conformance) and in Chromium
// (TestBrowser_Conformance), after the same prelude as the scenarios plus conformHelpers.

// conformHelpers is prepended to every row, after common.
const conformHelpers = `
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
	name, section, js, want string
	setup                   string
	browserOnly             bool
}

// noStreamIterator makes the page's ReadableStream what WebKit's is: no
// Symbol.asyncIterator, no values().
const noStreamIterator = `delete ReadableStream.prototype[Symbol.asyncIterator]; delete ReadableStream.prototype.values;`

var conformance = []conformRow{
	// ---- the prompt argument: (sequence<LanguageModelMessage> or DOMString)
	{name: "an object that is not iterable is its string", section: "§ The API, LanguageModelPrompt; WebIDL § union conversion (ToString)", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt({}), await s.prompt({ role: "system", content: "foo" }), await s.prompt({ toString: () => "mine" })];`,
		want: `["[object Object]","[object Object]","mine"]`},
	{name: "null and undefined are their strings", section: "§ The API, LanguageModelPrompt; WebIDL § union conversion (ToString)", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt(null), await s.prompt(undefined), await s.prompt(42)];`,
		want: `["null","undefined","42"]`},
	{name: "no argument is a TypeError", section: "WebIDL § overload resolution (required argument)", js: `
		const s = await LanguageModel.create({ backend: echo });
		const e = await thrown(s.prompt());
		const st = (() => { try { s.promptStreaming(); return "returned"; } catch (e) { return e.name; } })();
		return [e.name, (await thrown(s.append())).name, (await thrown(s.measureContextUsage())).name, st, s.history.length];`,
		want: `["TypeError","TypeError","TypeError","TypeError",0]`},
	{name: "a Symbol is a TypeError", section: "WebIDL § DOMString conversion", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt(Symbol("x")))).name, s.history.length];`,
		want: `["TypeError",0]`},
	{name: "any iterable is a sequence of messages", section: "§ The API, LanguageModelPrompt; WebIDL § sequence conversion", js: `
		const s = await LanguageModel.create({ backend: echo });
		function* gen() { yield { role: "user", content: "from a generator" }; }
		const a = await s.prompt(new Set([{ role: "user", content: "from a set" }]));
		const b = await s.prompt(gen());
		await s.append(new Set([{ role: "user", content: "appended" }]));
		return [a, b, s.history.at(-1).content[0].value];`,
		want: `["from a set","from a generator","appended"]`},
	{name: "a message is read by property access: getters of a class work", section: "WebIDL § dictionary conversion (LanguageModelMessage)", js: `
		class Message { get role() { return "user"; } get content() { return "from a getter"; } }
		const s = await LanguageModel.create({ backend: echo, initialPrompts: [new Message()] });
		return [await s.prompt([new Message()]), s.history.length];`,
		want: `["from a getter",3]`},
	{name: "a message's content: any iterable is a sequence, a number its string", section: "§ The API, LanguageModelMessage.content (DOMString or sequence<LanguageModelMessageContent>)", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [await s.prompt([{ role: "user", content: new Set([{ type: "text", value: "from a set" }]) }]), await s.prompt([{ role: "user", content: 42 }])];`,
		want: `["from a set","42"]`},
	{name: "a content part is read by property access: getters of a class work, type is its string", section: "§ The API, LanguageModelMessageContent (dictionary: type, value); WebIDL § dictionary conversion", js: `
		class Part { get type() { return "text"; } get value() { return "from a getter"; } }
		const s = await LanguageModel.create({ backend: echo, initialPrompts: [{ role: "system", content: [new Part()] }] });
		const a = await s.prompt([{ role: "user", content: [new Part()] }]);
		const b = await s.prompt([{ role: "user", content: new Set([{ type: { toString: () => "text" }, value: "a type converted" }]) }]);
		return [a, b, s.history[0].content[0].value, s.history.length];`,
		want: `["from a getter","a type converted","from a getter",5]`},
	{name: "a content part without type or value is a TypeError; a throwing getter rejects with its exception", section: "§ The API, LanguageModelMessageContent (required type, required value); WebIDL § dictionary conversion", js: `
		const s = await LanguageModel.create({ backend: echo });
		const err = async (content) => { const e = await thrown(s.prompt([{ role: "user", content }])); return e instanceof TypeError ? e.message : e; };
		const boom = new RangeError("boom");
		return [await err([{ type: "text" }]), await err([{ value: "x" }]), await err([null]), await err(["text"]),
			(await thrown(s.append([{ role: "user", content: [{ type: "text", get value() { throw boom; } }] }]))) === boom,
			(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: [{ value: "x" }] }] }))).name, s.history.length];`,
		want: `["message 0 part 0: the required member value is missing.","message 0 part 0: the required member type is missing.",
			"message 0 part 0: the required member type is missing.","message 0 part 0 is not an object.",true,"TypeError",0]`},
	{name: "expected languages are a sequence<DOMString>: any iterable, each its string; anything else a TypeError", section: "§ The API, LanguageModelExpected.languages (sequence<DOMString>); WebIDL § sequence conversion", js: `
		const unk = { toString: () => "unk" };
		class Expected { get type() { return "text"; } get languages() { return new Set(["unk"]); } }
		const answers = [await LanguageModel.availability({ backend: echo, expectedInputs: [{ type: "text", languages: new Set(["unk"]) }] }),
			await LanguageModel.availability({ backend: echo, expectedOutputs: [{ type: "text", languages: [unk] }] }),
			await LanguageModel.availability({ backend: echo, expectedInputs: [new Expected()] }),
			await LanguageModel.availability({ backend: echo, expectedInputs: [{ type: "text", languages: new Set(["EN"]) }] })];
		const err = async (o) => { const e = await thrown(LanguageModel.create({ backend: echo, ...o })); return e instanceof TypeError ? e.message : e; };
		return [answers, await err({ expectedInputs: [{ type: "text", languages: "en" }] }), await err({ expectedOutputs: [{ type: "text", languages: { 0: "en", length: 1 } }] }),
			await err({ expectedInputs: [{ languages: ["en"] }] }), await err({ expectedInputs: [{ type: "text", languages: [Symbol("en")] }] })];`,
		want: `[["unavailable","unavailable","unavailable","available"],"expectedInputs[0].languages is not a sequence.","expectedOutputs[0].languages is not a sequence.",
			"expectedInputs[0]: the required member type is missing.","Cannot convert a Symbol value to a string."]`},
	{name: "prefix is converted to a boolean", section: "§ The API, LanguageModelMessage.prefix (boolean)", js: `
		const s = await LanguageModel.create({ backend: echo });
		const e = await thrown(s.prompt([{ role: "user", content: "a", prefix: "yes" }]));
		await s.append([{ role: "user", content: "b", prefix: 0 }]);
		return [e.name, s.history.length];`,
		want: `["SyntaxError",1]`},
	{name: "a throwing Symbol.iterator rejects with its exception", section: "WebIDL § union conversion (GetMethod @@iterator)", js: `
		const s = await LanguageModel.create({ backend: echo });
		const boom = new Error("iterator");
		const input = { get [Symbol.iterator]() { throw boom; } };
		return [await same(s.prompt(input), boom), s.history.length];`,
		want: `[true,0]`},
	{name: "options that are not an object are a TypeError", section: "WebIDL § dictionary conversion", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt("x", 5))).name, (await thrown(s.prompt("x", { signal: {} }))).name,
			(await thrown(s.prompt("x", { responseConstraint: "json" }))).name, (await thrown(LanguageModel.create("x"))).name, s.history.length];`,
		want: `["TypeError","TypeError","TypeError","TypeError",0]`},

	// ---- validate and canonicalize a prompt (the engine's rules, as a page sees them)
	{name: "a prefix message that is not the assistant's is a SyntaxError", section: "§ validate and canonicalize a prompt, step 6.2.1", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: "a", prefix: true }]))).name, s.history.length];`,
		want: `["SyntaxError",0]`},
	{name: "a prefix message that is not the last is a SyntaxError", section: "§ validate and canonicalize a prompt, step 6.2.2", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "assistant", content: "a", prefix: true }, { role: "user", content: "b" }]))).name, s.history.length];`,
		want: `["SyntaxError",0]`},
	{name: "a system message after input is a TypeError", section: "§ validate and canonicalize a prompt, step 6.3.1 (hasAppendedInput)", js: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append("first");
		return [(await thrown(s.prompt([{ role: "system", content: "late" }]))).name, (await thrown(s.prompt([{ role: "user", content: "a" }, { role: "system", content: "b" }]))).name, s.history.length];`,
		want: `["TypeError","TypeError",1]`},
	{name: "a text part whose value is not a string is a TypeError", section: "§ validate and canonicalize a prompt, step 6.5.2", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "text", value: new ArrayBuffer(2) }] }]))).name, s.history.length];`,
		want: `["TypeError",0]`},
	{name: "an image without image in expectedInputs is a NotSupportedError", section: "§ validate and canonicalize a prompt, step 6.5.3.1", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "image", value: new Uint8Array([1, 2]) }] }]))).name, s.history.length];`,
		want: `["NotSupportedError",0]`},
	{name: "audio without audio in expectedInputs is a NotSupportedError", section: "§ validate and canonicalize a prompt, step 6.5.4.1", js: `
		const s = await LanguageModel.create({ backend: echo });
		return [(await thrown(s.prompt([{ role: "user", content: [{ type: "audio", value: new Uint8Array([1, 2]) }] }]))).name, s.history.length];`,
		want: `["NotSupportedError",0]`},
	{name: "an empty content list is one empty text part", section: "§ validate and canonicalize a prompt, step 6.4", js: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append([{ role: "user", content: [] }]);
		return s.history.map((m) => m.content);`,
		want: `[[{"type":"text","value":""}]]`},
	{name: "contiguous text parts are collapsed, with nothing added", section: "§ validate and canonicalize a prompt, step 6.6–6.8", js: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append([{ role: "user", content: [{ type: "text", value: "foo" }, { type: "text", value: "bar" }] }]);
		return s.history[0].content;`,
		want: `[{"type":"text","value":"foobar"}]`},
	{name: "initialPrompts are validated with the session's expected inputs", section: "§ validate and canonicalize language model options, step 3", js: `
		return [(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: [{ type: "image", value: new Uint8Array([1]) }] }] }))).name,
			(await thrown(LanguageModel.create({ backend: echo, initialPrompts: [{ role: "user", content: "a", prefix: true }] }))).name];`,
		want: `["NotSupportedError","SyntaxError"]`},

	// ---- abort: the signal's own reason, before or during
	{name: "prompt: aborted before, rejects with the reason itself", section: "writing-assistance-apis § get an aggregated AI model result (signal aborted)", js: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const ac = new AbortController(); ac.abort(reason);
		return [await same(s.prompt("x", { signal: ac.signal }), reason), s.history.length];`,
		want: `[true,0]`},
	{name: "prompt: aborted during, rejects with the reason itself and leaves the history", section: "writing-assistance-apis § get an aggregated AI model result (abort steps); README § Aborting a specific prompt", js: `
		const s = await LanguageModel.create({ backend: hang });
		const reason = new DOMException("stop", "TimeoutError");
		const ac = new AbortController();
		const p = s.prompt("x", { signal: ac.signal });
		await sleep(5);
		ac.abort(reason);
		return [await same(p, reason), s.history.length];`,
		want: `[true,0]`},
	{name: "prompt: aborted while queued, rejects with the reason; the prompt before it goes on", section: "README § Aborting a specific prompt (queued: removed from the queue)", js: `
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
		want: `[true,"first","third",4]`},
	{name: "append and measureContextUsage: the reason itself, before", section: "§ append(), measureContextUsage(); writing-assistance-apis § measure AI model input usage", js: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		return [await same(s.append("x", { signal: before.signal }), reason), await same(s.measureContextUsage("x", { signal: before.signal }), reason), s.history.length];`,
		want: `[true,true,0]`},
	{name: "append and clone queued behind a prompt: aborted there, the reason itself", section: "writing-assistance-apis § get an aggregated AI model result (abort steps); § clone a language model (abort steps)", js: `
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
		want: `[true,true,true,0]`},
	{name: "clone: the reason itself, before", section: "§ clone a language model, step 9", js: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		return await same(s.clone({ signal: before.signal }), reason);`,
		want: `true`},
	{name: "create: the reason itself, before and during", section: "writing-assistance-apis § create an AI model object (signal)", js: `
		const reason = new Error("mine");
		const before = new AbortController(); before.abort(reason);
		const during = new AbortController();
		const c = LanguageModel.create({ backend: echo, signal: during.signal });
		during.abort(reason);
		return [await same(LanguageModel.create({ backend: echo, signal: before.signal }), reason), await same(c, reason)];`,
		want: `[true,true]`},
	{name: "promptStreaming: an aborted signal throws the reason synchronously", section: "writing-assistance-apis § get a streaming AI model result (signal aborted: throw)", js: `
		const s = await LanguageModel.create({ backend: echo });
		const reason = new Error("mine");
		const ac = new AbortController(); ac.abort(reason);
		let got;
		try { s.promptStreaming("x", { signal: ac.signal }); got = "returned a stream"; } catch (e) { got = e === reason; }
		return [got, s.history.length];`,
		want: `[true,0]`},
	{name: "promptStreaming: aborting later errors the stream with the reason", section: "writing-assistance-apis § get a streaming AI model result (abort steps: error the stream)", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }) });
		const reason = new Error("mine");
		const ac = new AbortController();
		const reader = s.promptStreaming("x", { signal: ac.signal }).getReader();
		const first = await reader.read();
		ac.abort(reason);
		return [first.value, await same(reader.read(), reason), s.history.length];`,
		want: `["a",true,0]`},
	{name: "stream.cancel() aborts the prompt as its signal would", section: "writing-assistance-apis § get a streaming AI model result (cancel algorithm); DESIGN.md §3", js: `
		const w = waitingTool();
		const s = await LanguageModel.create({
			backend: script({ calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "after" }),
			tools: [w.tool],
		});
		const stream = s.promptStreaming("weather?");
		await w.started;
		await stream.cancel(new Error("not interested"));
		return [await w.aborted(), s.history.length, await s.prompt("again")];`,
		want: `["AbortError",0,"after"]`},
	{name: "create's signal ties the session: calls in flight and later reject with its reason", section: "README § Session destruction; writing-assistance-apis § create an AI model object", js: `
		const reason = new Error("gone");
		const ac = new AbortController();
		const s = await LanguageModel.create({ backend: hang, signal: ac.signal });
		const inflight = s.prompt("x");
		const reader = s.promptStreaming("y").getReader();
		await sleep(5);
		ac.abort(reason);
		return [await same(inflight, reason), await same(reader.read(), reason), await same(s.prompt("later"), reason), await same(s.append("later"), reason)];`,
		want: `[true,true,true,true]`},
	{name: "downloadprogress stops once create's signal aborted", section: "README § Session destruction (before create() settles: no further downloadprogress)", browserOnly: true, js: `
		const installing = lm.install({ wasm: "/langmodel.wasm" });
		const ac = new AbortController();
		let before = 0, after = 0;
		const created = LanguageModel.create({ signal: ac.signal, monitor(m) { m.addEventListener("downloadprogress", () => { if (ac.signal.aborted) after++; else { before++; ac.abort(); } }); } });
		const r = await thrown(created);
		await installing;
		return [before, after, r.name];`,
		want: `[1,0,"AbortError"]`},

	// ---- tools: declarations read by property access
	{name: "a Proxy trap on inputSchema.properties rejects create() with its exception", section: "§ The API, LanguageModelTool (inputSchema read as type, properties, required)", js: `
		const boom = new Error("trap");
		const inputSchema = new Proxy({ type: "object" }, { get(t, k) { if (k === "properties") throw boom; return Reflect.get(t, k); } });
		return await same(LanguageModel.create({ backend: echo, tools: [{ name: "t", description: "d", inputSchema, execute() {} }] }), boom);`,
		want: `true`},
	{name: "a throwing getter on inputSchema.required rejects create() with its exception", section: "§ The API, LanguageModelTool (inputSchema read as type, properties, required)", js: `
		const boom = new Error("getter");
		const inputSchema = Object.defineProperty({ type: "object" }, "required", { get() { throw boom; } });
		return await same(LanguageModel.create({ backend: echo, tools: [{ name: "t", description: "d", inputSchema, execute() {} }] }), boom);`,
		want: `true`},

	// ---- events
	{name: "quotaoverflow fires with contextoverflow, once each", section: "§ The LanguageModel class, event handlers (oncontextoverflow, onquotaoverflow)", js: `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }, { text: "ok" }, { text: "ok" }], window: 40 } });
		const log = [];
		s.addEventListener("contextoverflow", () => log.push("context"));
		s.addEventListener("quotaoverflow", () => log.push("quota"));
		s.onquotaoverflow = () => log.push("onquota");
		s.oncontextoverflow = () => log.push("oncontext");
		for (let i = 0; i < 3; i++) await s.prompt("x".repeat(40));
		const n = (what) => log.filter((x) => x === what).length;
		return [log.slice(0, 4), n("context") > 0 && n("context") === n("quota") && n("quota") === n("onquota") && n("onquota") === n("oncontext"), s.onquotaoverflow !== s.oncontextoverflow];`,
		want: `[["context","oncontext","quota","onquota"],true,true]`},

	// ---- options converted as WebIDL declares them
	{name: "temperature reads back as a float", section: "§ The API, LanguageModel.temperature (float)", js: `
		const s = await LanguageModel.create({ backend: echo, temperature: 0.6, topK: 5 });
		const d = await LanguageModel.create({ backend: echo });
		return [s.temperature === Math.fround(0.6), s.temperature !== 0.6, s.topK, d.temperature, d.topK];`,
		want: `[true,true,5,1,3]`},
	{name: "a session without samplingMode reports balanced", section: "§ The API, LanguageModelSamplingMode (no default in the spec: the module reports balanced)", js: `
		const s = await LanguageModel.create({ backend: echo });
		return s.samplingMode;`,
		want: `"balanced"`},
	{name: "append resolves to undefined, destroy returns undefined", section: "§ The API, append() (Promise<undefined>); DestroyableModel", js: `
		const s = await LanguageModel.create({ backend: echo });
		const a = await s.append("x");
		return [a === undefined, s.destroy() === undefined];`,
		want: `[true,true]`},
}

// engineRows are the rules the engine holds (merged from conf-engine), played through
// the real module and face: what a page sees of them.
var engineRows = []conformRow{
	{name: "a caller-supplied tool call needs tool-call in expectedInputs", section: "§ validate and canonicalize a prompt (expected types: NotSupportedError)", js: `
		const call = { role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] };
		const bare = await LanguageModel.create({ backend: echo });
		const e = await thrown(bare.append([call]));
		const declared = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await declared.append([call]);
		return [e.name, bare.history.length, declared.history.length];`,
		want: `["NotSupportedError",0,1]`},
	{name: "a caller-supplied tool response needs tool-response in expectedInputs", section: "§ validate and canonicalize a prompt (expected types: NotSupportedError)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		const e = await thrown(s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [{ type: "text", value: "ok" }] } }] }]));
		return [e.name, /tool-response/.test(e.message), s.history.length];`,
		want: `["NotSupportedError",true,1]`},
	{name: "tool-call arguments that are not a dictionary are a DataError", section: "§ The API, LanguageModelMessageValue (tool-call arguments: a dictionary)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		const e = await thrown(s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: [] } }] }]));
		return [e.name, s.history.length];`,
		want: `["DataError",0]`},
	{name: "a text result part with an object value is its JSON text", section: "§ The API, LanguageModelMessageValue (tool results: text parts)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		await s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [{ type: "text", value: { a: [1, 2] } }] } }] }]);
		return s.history.at(-1).content[0].value.result;`,
		want: `[{"type":"text","value":"{\"a\":[1,2]}"}]`},
	{name: "a value check comes before pairing: a cycle in a response for no call is a DataError", section: "§ validate and canonicalize a prompt (value checks before the module's pairing rule, docs/decisions.md)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		const cyc = {}; cyc.self = cyc;
		const e = await thrown(s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "nope", name: "w", result: [{ type: "object", value: cyc }] } }] }]));
		return [e.name, s.history.length];`,
		want: `["DataError",0]`},
	{name: "a response for a call the session never made is kept, unpaired", section: "docs/decisions.md (Chrome's own tests supply such responses)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-response" }] });
		await s.append([{ role: "user", content: [{ type: "tool-response", value: new LanguageModelToolSuccess({ callId: "never", name: "w", result: [{ type: "text", value: "ok" }] }) }] }]);
		return s.history.map((m) => m.role);`,
		want: `["tool-result"]`},
	{name: "append([]) adds nothing", section: "DESIGN.md §3 (an empty sequence appends nothing)", js: `
		const s = await LanguageModel.create({ backend: echo });
		await s.append("x");
		const before = s.contextUsage;
		await s.append([]);
		return [s.contextUsage === before, s.history.length];`,
		want: `[true,1]`},
	{name: "prompt([]) prompts one empty user message", section: "§ validate and canonicalize a prompt, step 4 (an empty list)", js: `
		const s = await LanguageModel.create({ backend: script({ text: "yes?" }) });
		return [await s.prompt([]), s.history.map((m) => [m.role, m.content[0].value])];`,
		want: `["yes?",[["user",""],["assistant","yes?"]]]`},
	{name: "measureContextUsage measures a system message on a session with history", section: "§ measureContextUsage(input, options), step 3 (hasAppendedInput false)", js: `
		const s = await LanguageModel.create({ backend: echo });
		await s.prompt("hello");
		const n = await s.measureContextUsage([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]);
		return [typeof n, n > 0, s.history.length];`,
		want: `["number",true,2]`},
	{name: "contextoverflow fires once per overflow", section: "§ The LanguageModel class, contextoverflow", js: `
		const s = await LanguageModel.create({ backend: { kind: "scripted", turns: [{ text: "ok" }, { text: "ok" }, { text: "ok" }, { text: "ok" }], window: 60 } });
		const per = [];
		let n = 0;
		s.oncontextoverflow = () => n++;
		for (let i = 0; i < 4; i++) { n = 0; await s.prompt("x".repeat(40)); per.push(n); }
		return per.every((k) => k <= 1) && per.some((k) => k === 1);`,
		want: `true`},
	{name: "responseConstraint holds on a backend that ignores it: one repair, then SyntaxError, history unchanged", section: "§ prompt(input, options) (responseConstraint)", js: `
		const answers = ["not json at all", "still not", "not json", "{\"ok\":true}"];
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => answers.shift() } });
		const e = await thrown(s.prompt("x", { responseConstraint: { type: "object", required: ["ok"] } }));
		const ok = await s.prompt("y", { responseConstraint: { type: "object", required: ["ok"] } });
		return [e.name, ok, s.history.length];`,
		want: `["SyntaxError","{\"ok\":true}",2]`},
	{name: "a RegExp constraint with a flag the module cannot honour is a NotSupportedError naming it, sent nowhere", section: "README § Structured output with JSON schema or RegExp constraints (the answer matches the RegExp); docs/decisions.md (RegExp flags)", js: `
		let calls = 0;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => { calls++; return "abc"; } } });
		const e = await thrown(s.prompt("x", { responseConstraint: /ABC/i }));
		const st = (() => { try { s.promptStreaming("x", { responseConstraint: /^abc$/my }); return "returned"; } catch (e) { return e.name + ": " + e.message; } })();
		const m = await thrown(s.measureContextUsage("x", { responseConstraint: /a.c/s }));
		return [e instanceof DOMException, e.name, e.message, st, m.name, calls, s.history.length];`,
		want: `[true,"NotSupportedError","LanguageModel.prompt(): the responseConstraint /ABC/i has the flag \"i\", which the module cannot honour: only \"d\", \"g\" and \"u\" are.",
			"NotSupportedError: LanguageModel.promptStreaming(): the responseConstraint /^abc$/my has the flags \"m\", \"y\", which the module cannot honour: only \"d\", \"g\" and \"u\" are.",
			"NotSupportedError",0,0]`},
	{name: "a RegExp constraint with the flags d, g or u holds as without them", section: "README § Structured output with JSON schema or RegExp constraints; docs/decisions.md (RegExp flags)", js: `
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => "abc" } });
		const ok = [await s.prompt("x", { responseConstraint: /b/g }), await s.prompt("x", { responseConstraint: /^a.c$/u }), await s.prompt("x", { responseConstraint: /abc/gu })];
		const e = await thrown(s.prompt("x", { responseConstraint: /ABC/g }));
		return [ok, e.name, s.history.length];`,
		want: `[["abc","abc","abc"],"SyntaxError",6]`},
	{name: "a RegExp constraint valid only outside Unicode mode is a NotSupportedError naming the u flag", section: "README § Structured output with JSON schema or RegExp constraints; docs/decisions.md (RegExp flags)", browserOnly: true, js: `
		await lm.install({ wasm: "/langmodel.wasm" }); // goja's RegExp takes \- in Unicode mode: a browser's does not
		let calls = 0;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => { calls++; return "555-1234"; } } });
		const e = await thrown(s.prompt("x", { responseConstraint: /^\d{3}\-\d{4}$/ }));
		return [e.name, e.message.startsWith("LanguageModel.prompt(): the responseConstraint /^\\d{3}\\-\\d{4}$/ is read in Unicode mode (the \"u\" flag)"), calls, s.history.length,
			await s.prompt("x", { responseConstraint: /^\d{3}-\d{4}$/ })];`,
		want: `["NotSupportedError",true,0,0,"555-1234"]`},
	{name: "a RegExp constraint from another realm (an iframe's) is a RegExp, not the schema {}", section: "README § Structured output with JSON schema or RegExp constraints (a RegExp object); WebIDL § object (any realm)", browserOnly: true, js: `
		await lm.install({ wasm: "/langmodel.wasm" });
		const frame = document.createElement("iframe");
		document.documentElement.append(frame);
		const Other = frame.contentWindow.RegExp;
		const s = await LanguageModel.create({ backend: { kind: "custom", generate: () => "abd" } });
		const e = await thrown(s.prompt("x", { responseConstraint: new Other("^abc$") }));
		const f = await thrown(s.prompt("x", { responseConstraint: new Other("abd", "i") }));
		return [new Other("x") instanceof RegExp, e.name, f.name, await s.prompt("x", { responseConstraint: new Other("^abd$") }), s.history.length];`,
		want: `[false,"SyntaxError","NotSupportedError","abd",2]`},
	{name: "omitResponseConstraintInput without a responseConstraint is a TypeError", section: "§ measureContextUsage(input, options), step 1; README § Structured output", js: `
		const s = await LanguageModel.create({ backend: echo });
		const p = await thrown(s.prompt("x", { omitResponseConstraintInput: true }));
		const m = await thrown(s.measureContextUsage("x", { omitResponseConstraintInput: true }));
		return [p.name, m.name, s.history.length, typeof await s.measureContextUsage("x", { omitResponseConstraintInput: true, responseConstraint: { type: "object" } })];`,
		want: `["TypeError","TypeError",0,"number"]`},
	{name: "an invalid language tag is a RangeError in create() and availability()", section: "§ validate and canonicalize language model options (Validate and canonicalize language tags)", js: `
		const o = { backend: echo, expectedInputs: [{ type: "text", languages: ["en-abc-invalid"] }] };
		const kind = (e) => [e instanceof RangeError, e instanceof DOMException, e.name];
		return [kind(await thrown(LanguageModel.create(o))), kind(await thrown(LanguageModel.availability(o)))];`,
		want: `[[true,false,"RangeError"],[true,false,"RangeError"]]`},
	{name: "a temperature below 0 or a topK below 1 is a RangeError, an ECMAScript one, in create()", section: "README § Configuration per session (temperature below 0, topK below 1: RangeError); WebIDL § simple exceptions", js: `
		const kind = (e) => [e instanceof RangeError, e instanceof DOMException, e.name];
		return [kind(await thrown(LanguageModel.create({ backend: echo, temperature: -0.5 }))), kind(await thrown(LanguageModel.create({ backend: echo, topK: 0 })))];`,
		want: `[[true,false,"RangeError"],[true,false,"RangeError"]]`},
	{name: "a history fed back as initialPrompts: the new session's calls take ids the history does not have", section: "DESIGN.md §3 (session.history, call ids unique within the session)", js: `
		const opts = { tools: [{ name: "w", description: "d", inputSchema: { type: "object" } }], expectedOutputs: [{ type: "text" }, { type: "tool-call" }],
			expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }] };
		const a = await LanguageModel.create({ ...opts, backend: script({ calls: [{ name: "w", arguments: { n: 1 } }] }, { text: "one" }) });
		const [first] = await a.prompt("x");
		await a.prompt([{ role: "tool-result", content: { type: "tool-result", value: { callID: first.value.callID, name: "w", result: "r" } } }]);
		const b = await LanguageModel.create({ ...opts, initialPrompts: a.history, backend: script({ calls: [{ name: "w", arguments: { n: 2 } }, { callID: "call_1", name: "w", arguments: { n: 3 } }] }) });
		const next = (await b.prompt("y")).map((p) => p.value.callID);
		const ids = b.history.filter((m) => m.role === "tool-call").map((m) => m.content[0].value.callID);
		return [first.value.callID, next.includes(first.value.callID), new Set(ids).size === ids.length, ids.length];`,
		want: `["call_1",false,true,3]`},
	{name: "availability() with sampling values out of range answers unavailable", section: "§ LanguageModelCreateCoreOptions (topK, temperature: custom out-of-range handling); Chrome's tests (ai/language_model availability)", js: `
		return [await LanguageModel.availability({ backend: echo, temperature: -0.1 }), await LanguageModel.availability({ backend: echo, topK: -3, temperature: 0.5 }),
			await LanguageModel.availability({ backend: echo, topK: 0.5 }), await LanguageModel.availability({ backend: echo, topK: 2.5 }),
			await LanguageModel.availability({ backend: echo, topK: 3, temperature: 0.5 })];`,
		want: `["unavailable","unavailable","unavailable","available","available"]`},
	{name: "samplingMode is null on a session created with topK or temperature", section: "§ The API, LanguageModel.samplingMode; Chrome's tests", js: `
		const t = await LanguageModel.create({ backend: echo, temperature: 0.5 }), k = await LanguageModel.create({ backend: echo, topK: 3 });
		return [t.samplingMode, k.samplingMode, (await k.clone()).samplingMode, (await LanguageModel.create({ backend: echo, samplingMode: "predictable" })).samplingMode];`,
		want: `[null,null,null,"predictable"]`},
	{name: "a platform object as an object tool result is a DataError, history unchanged", section: "§ LanguageModelMessageValue; DESIGN.md §3 (values that cannot be serialised: DataError); Chrome's tests", js: `
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
		want: `[["DataError"],1]`},
	{name: "a text tool result takes any JSON value, as its JSON text", section: "§ LanguageModelMessageValue; Chrome's tests (tool-response text parts holding objects and arrays)", js: `
		const s = await LanguageModel.create({ backend: echo, expectedInputs: [{ type: "tool-call" }, { type: "tool-response" }] });
		await s.append([{ role: "assistant", content: [{ type: "tool-call", value: { callID: "c1", name: "w", arguments: {} } }] }]);
		await s.append([{ role: "user", content: [{ type: "tool-response", value: { callID: "c1", name: "w", result: [
			{ type: "text", value: { temp: 12, sky: ["sun"] } }, { type: "text", value: [1, "a"] }, { type: "text", value: 3 }, { type: "text", value: true }, { type: "text", value: null }, { type: "text", value: "plain" }] } }] }]);
		return s.history.at(-1).content[0].value.result.map((p) => p.value);`,
		want: `["{\"sky\":[\"sun\"],\"temp\":12}","[1,\"a\"]","3","true","null","plain"]`},
	{name: "availability follows the languages: unknown is unavailable", section: "§ Availability (compute language model options availability)", js: `
		return [await LanguageModel.availability({ expectedInputs: [{ type: "text", languages: ["unk"] }] }), await LanguageModel.availability({ expectedInputs: [{ type: "text", languages: ["EN"] }] })];`,
		want: `["unavailable","available"]`},
	{name: "samplingMode with temperature or topK is a TypeError in create() and availability()", section: "§ The API, LanguageModelCreateCoreOptions (samplingMode)", js: `
		const a = { backend: echo, samplingMode: "creative", temperature: 0.5 }, b = { backend: echo, samplingMode: "balanced", topK: 3 };
		return [(await thrown(LanguageModel.create(a))).name, (await thrown(LanguageModel.availability(a))).name, (await thrown(LanguageModel.create(b))).name,
			(await LanguageModel.create({ backend: echo, samplingMode: "creative" })).samplingMode];`,
		want: `["TypeError","TypeError","TypeError","creative"]`},
}

// streamRows are the Streams standard's async iteration of the stream promptStreaming()
// returns. Each runs twice: with the engine's own iterator, and with
// it taken away as WebKit has it, so the face's fallback is tested in every browser.
var streamRows = []conformRow{
	{name: "for await reads every chunk", section: "Streams § ReadableStream async iteration", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["Hel", "lo"] }) });
		const out = [];
		for await (const c of s.promptStreaming("hi")) out.push(c);
		return [out, s.history.length];`,
		want: `[["Hel","lo"],2]`},
	{name: "break cancels the stream, which aborts the prompt: history unchanged, the tool's signal fires", section: "Streams § async iterator return (cancel); writing-assistance-apis § get a streaming AI model result (cancel)", js: `
		const w = waitingTool();
		const s = await LanguageModel.create({
			backend: script({ chunks: ["Let me check."], calls: [{ name: "weather", arguments: { city: "Oslo" } }] }, { text: "Sunny." }, { text: "next" }),
			tools: [w.tool],
		});
		const stream = s.promptStreaming("weather?");
		for await (const c of stream) { await w.started; break; }
		return [await w.aborted(), s.history.length, stream.locked, await s.prompt("again")];`,
		want: `["AbortError",0,false,"Sunny."]`},
	{name: "a throw inside for await cancels like break", section: "Streams § async iterator return (cancel)", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }, { text: "next" }) });
		let caughtIt;
		try { for await (const c of s.promptStreaming("x")) throw new Error("page bug"); } catch (e) { caughtIt = e.message; }
		await sleep(5);
		return [caughtIt, s.history.length, await s.prompt("y")];`,
		want: `["page bug",0,"next"]`},
	{name: "values({preventCancel: true}): break leaves the prompt running", section: "Streams § ReadableStream values() (preventCancel)", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a", "b", "c"] }) });
		const stream = s.promptStreaming("x");
		const out = [];
		for await (const c of stream.values({ preventCancel: true })) { out.push(c); break; }
		out.push(...await read(stream));
		return [out, s.history.length];`,
		want: `[["a","b","c"],2]`},
	{name: "an error ends the iteration with the stream's error", section: "Streams § async iterator next (errored stream)", js: `
		const s = await LanguageModel.create({ backend: script({ chunks: ["a"], hang: true }) });
		const reason = new Error("mine");
		const ac = new AbortController();
		const out = [];
		let got;
		try { for await (const c of s.promptStreaming("x", { signal: ac.signal })) { out.push(c); ac.abort(reason); } } catch (e) { got = e === reason; }
		return [out, got, s.history.length];`,
		want: `[["a"],true,0]`},
	{name: "a stream never read still runs its prompt: history and events agree with what it holds", section: "docs/decisions.md (a stream nobody reads)", js: `
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
		want: `[["user","assistant","tool-call","tool-result","assistant"],1,"Let me check.Sunny.","Sunny."]`},
}

// allConformance is every row, the stream rows twice.
func allConformance() []conformRow {
	out := append(append(append([]conformRow{}, conformance...), engineRows...), explainerRows()...)
	for _, r := range streamRows {
		native := r
		native.name += " (the engine's own iterator)"
		fallback := r
		fallback.name += " (no Symbol.asyncIterator, as in WebKit)"
		fallback.setup = noStreamIterator
		out = append(out, native, fallback)
	}
	return out
}

// TestModule_Conformance plays every row in the real .wasm under wazero.
func TestModule_Conformance(t *testing.T) {
	for _, r := range allConformance() {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			t.Logf("checks %s", r.section)
			if r.browserOnly {
				t.Skip("needs a real download with progress; Chromium plays it")
			}
			requireJSON(t, r.want, playModule(t, r.setup, common+conformHelpers+r.js))
		})
	}
}

// TestBrowser_Conformance plays every row in every engine $BROWSERS selects, with the
// module on the page and in a Worker.
func TestBrowser_Conformance(t *testing.T) {
	browsertest.Each(t, func(t *testing.T, b *browsertest.Browser) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				base := serve(t, "") // a replay server per mode: rows count requests by nonce
				for _, r := range allConformance() {
					t.Run(r.name, func(t *testing.T) {
						t.Parallel()
						t.Logf("checks %s", r.section)
						prelude := r.setup + m.prelude()
						if r.browserOnly { // the row installs the module itself
							prelude = r.setup + "globalThis.LLM = location.origin;\n" + m.face
						}
						requireJSON(t, r.want, playBrowser(t, b, base, prelude, common+conformHelpers+r.js))
					})
				}
			})
		}
	})
}
