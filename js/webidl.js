// Conversion of what the page passes (messages, create()'s options, backends) into the
// plain data that crosses the channel. The rules live in the engine: this file only reads
// the page's values the way WebIDL does (property access, getters and toJSON run, their
// exceptions propagate) and refuses what JSON cannot carry.

import { fromModelContext } from "./webmcp.js";
import { base64, isAudioBuffer, isBlob, isImageSource, png, wav } from "./media.js";
import { wireEngine } from "./engine.js";
import { stash } from "./stash.js";

// plain returns a JSON-safe deep copy of value, as JSON.stringify would see it, but
// refusing what JSON.stringify silently drops or throws on: functions, symbols, BigInt and
// cycles become `kind` errors (DataError for messages, TypeError for declarations).
// Getters and toJSON run; what they throw propagates unchanged. With blobs (a Map), each
// Blob is recorded there and replaced by what the map holds for it (see wireInput).
export function plain(value, kind = "DataError", blobs = null) {
  // What needs no walk (a prompt's text, an option left out) skips making one.
  if (value === undefined || typeof value === "string" || typeof value === "boolean") return value;
  const stack = [];
  const fail = (what) => {
    const msg = `${what} cannot be sent to the language model`;
    throw kind === "TypeError" ? new TypeError(msg) : new DOMException(msg, kind);
  };
  const walk = (v, key) => {
    if (v !== null && (typeof v === "object" || typeof v === "bigint") && typeof v.toJSON === "function") v = v.toJSON(key);
    switch (typeof v) {
      case "undefined":
        return undefined;
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : null;
      case "bigint":
        return fail("a BigInt");
      case "function":
        return fail("a function");
      case "symbol":
        return fail("a symbol");
    }
    if (v === null) return null;
    // A plain object or array (what a history is made of) is neither bytes nor media: the
    // checks below ask a dozen globals each, which a long history would pay per message.
    const proto = Object.getPrototypeOf(v);
    const ordinary = proto === Object.prototype || proto === Array.prototype || proto === null;
    if (!ordinary && (v instanceof ArrayBuffer || ArrayBuffer.isView(v))) return { type: "bytes", base64: base64(v) };
    if (!ordinary && blobs && (isBlob(v) || isImageSource(v) || isAudioBuffer(v))) {
      if (!blobs.has(v)) blobs.set(v, null);
      return blobs.get(v);
    }
    if (stack.includes(v)) return fail("a circular structure");
    stack.push(v);
    let out;
    if (Array.isArray(v)) {
      out = [];
      for (let i = 0; i < v.length; i++) {
        const x = walk(v[i], String(i));
        out.push(x === undefined ? null : x);
      }
    } else {
      out = {};
      for (const k of Object.keys(v)) {
        const x = walk(v[k], k);
        if (x !== undefined) out[k] = x;
      }
    }
    stack.pop();
    return out;
  };
  return walk(value, "");
}

// wireInput is plain(value) for messages, with Blobs (and Files) read: {type: "bytes",
// mimeType, base64}, as ArrayBuffers cross with the Blob's type added. The other image
// sources Chrome's API takes (ImageBitmap, <img>, <canvas>, <video>, ImageData…) are
// drawn and cross as PNG; an AudioBuffer crosses as 16-bit WAV. It returns the copy, or a Promise of it when value holds any of
// these, since reading them is asynchronous; the channel sends such a request once it is
// ready, still in order (Channel.request).
export function wireInput(value) {
  if (typeof value === "string") return value; // a text prompt: nothing to read
  const blobs = new Map();
  const copy = plain(value, "DataError", blobs);
  if (blobs.size === 0) return copy;
  const read = async (v) => {
    const b = isBlob(v) ? v : isAudioBuffer(v) ? wav(v) : await png(v);
    const data = base64(await b.arrayBuffer());
    blobs.set(v, b.type ? { type: "bytes", mimeType: b.type, base64: data } : { type: "bytes", base64: data });
  };
  return Promise.all([...blobs.keys()].map(read)).then(() => plain(value, "DataError", blobs));
}

// ---------------------------------------------------------------- WebIDL types

// toPrompt converts a prompt argument as WebIDL converts a (sequence<LanguageModelMessage>
// or DOMString): an object with a Symbol.iterator method is iterated into an array (a
// Set, a generator…); anything else becomes its string, so prompt({}) prompts
// "[object Object]", prompt(null) "null" and prompt(undefined) "undefined". The messages'
// own rules are the engine's.
export function toPrompt(input) {
  if (input !== null && (typeof input === "object" || typeof input === "function")) {
    const method = input[Symbol.iterator];
    if (method !== undefined && method !== null) {
      if (typeof method !== "function") throw new TypeError("The prompt's Symbol.iterator is not a function.");
      return sequence(input, method).map((m, i) => message(m, i));
    }
  }
  return domString(input);
}

// message reads a LanguageModelMessage as WebIDL reads a dictionary: content, prefix and
// role by property access (a getter on a class works; what it throws propagates), content
// given as any iterable as a sequence of parts (each read by contentPart), as one content
// object (a dictionary with a type, as the explainer writes it) as a one-part sequence,
// and as a number or boolean as its string, prefix as
// a boolean. Other members cross as they are, for the engine to judge, as do messages
// that are not objects (it names the problem).
function message(m, i) {
  if (m === null || typeof m !== "object") return m;
  const out = { ...m };
  const content = m.content;
  if (typeof content === "number" || typeof content === "boolean") {
    out.content = String(content);
  } else if (content !== null && typeof content === "object") {
    const method = content[Symbol.iterator];
    if (typeof method === "function") out.content = sequence(content, method).map((p, j) => contentPart(p, i, j));
    else out.content = content.type !== undefined ? [contentPart(content, i, 0)] : content;
  } else {
    out.content = content; // a string, or what the engine refuses by name
  }
  const prefix = m.prefix;
  if (prefix !== undefined) out.prefix = Boolean(prefix);
  const role = m.role;
  if (role !== undefined) out.role = domString(role);
  return out;
}

// hasToolResponse reports whether a converted prompt (toPrompt's) holds a tool response,
// in either message form.
export function hasToolResponse(prompt) {
  if (!Array.isArray(prompt)) return false;
  for (const m of prompt) {
    if (m === null || typeof m !== "object") continue;
    if (m.role === "tool-result" || m.role === "tool-response") return true;
    if (Array.isArray(m.content) && m.content.some((p) => p?.type === "tool-response" || p?.type === "tool-result")) return true;
  }
  return false;
}

// textOnly reports whether msgs (converted by message) are all {role, content, prefix?}
// with a string role and a content that is a string or parts {type, value} of two
// strings: what a history passed back is made of, as a page writes it or as
// session.history exports it. They cross as they are, without wireInput's deep copy,
// which would copy them unchanged (message and contentPart made every array and part
// afresh, so none holds a toJSON or a cycle) and, for ten thousand of them, cost as much
// as the engine's whole reading of them.
function textOnly(msgs) {
  if (!Array.isArray(msgs)) return false;
  for (const m of msgs) {
    if (m === null || typeof m !== "object" || typeof m.role !== "string") return false;
    const content = m.content;
    if (typeof content !== "string") {
      if (!Array.isArray(content)) return false;
      for (const p of content) {
        if (p === null || typeof p !== "object" || typeof p.type !== "string" || typeof p.value !== "string") return false;
        for (const k in p) if (k !== "type" && k !== "value") return false;
      }
    }
    for (const k in m) if (k !== "role" && k !== "content" && k !== "prefix") return false;
  }
  return true;
}

// contentPart reads a LanguageModelMessageContent as WebIDL reads a dictionary: type and
// value by property access, in that order (getters of a class work; what they throw
// propagates), both required (TypeError when missing), type as a DOMString. The value's
// own rules (a string for text, a dictionary for a tool call…) are the engine's, as is the
// type's enum, which names the module's alias tool-result too; other members cross as
// they are.
function contentPart(p, i, j) {
  const where = `message ${i} part ${j}`;
  if (p !== undefined && p !== null && typeof p !== "object" && typeof p !== "function") {
    throw new TypeError(`${where} is not an object.`);
  }
  const type = p?.type;
  if (type === undefined) throw new TypeError(`${where}: the required member type is missing.`);
  const value = p.value;
  if (value === undefined) throw new TypeError(`${where}: the required member value is missing.`);
  return { ...p, type: domString(type), value };
}

// expected reads a LanguageModelExpected (an entry of expectedInputs or expectedOutputs)
// as WebIDL reads a dictionary: languages, then type (required), by property access;
// languages is a sequence<DOMString> (any iterable, each entry converted with String();
// anything else is a TypeError), type a DOMString whose enum the engine checks.
function expected(e, option, i) {
  const where = `${option}[${i}]`;
  if (e !== undefined && e !== null && typeof e !== "object" && typeof e !== "function") {
    throw new TypeError(`${where} is not an object.`);
  }
  const languages = e?.languages;
  const type = e?.type;
  if (type === undefined) throw new TypeError(`${where}: the required member type is missing.`);
  const out = { type: domString(type) };
  if (languages !== undefined) {
    const method = languages !== null && typeof languages === "object" ? languages[Symbol.iterator] : undefined;
    if (typeof method !== "function") throw new TypeError(`${where}.languages is not a sequence.`);
    out.languages = sequence(languages, method).map(domString);
  }
  return out;
}

// expectedList converts expectedInputs or expectedOutputs: a sequence of expected.
function expectedList(v, option) {
  const list = iterableToArray(v);
  return Array.isArray(list) ? list.map((e, i) => expected(e, option, i)) : list;
}

// sequence iterates an iterable into an array, as WebIDL's sequence<T> conversion.
function sequence(value, method = value[Symbol.iterator]) {
  const it = method.call(value);
  if (it === null || typeof it !== "object") throw new TypeError("The iterator is not an object.");
  const out = [];
  for (;;) {
    const r = it.next();
    if (r === null || typeof r !== "object") throw new TypeError("The iterator result is not an object.");
    if (r.done) return out;
    out.push(r.value);
  }
}

// iterableToArray converts a sequence-typed option given as any iterable (a Set, say) to
// an array; an array, or what is not iterable, is left for the engine to judge.
function iterableToArray(v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const method = v[Symbol.iterator];
  return typeof method === "function" ? sequence(v, method) : v;
}

function domString(v) {
  if (typeof v === "symbol") throw new TypeError("Cannot convert a Symbol value to a string.");
  return String(v);
}

// unrestrictedDouble is WebIDL's unrestricted double: ToNumber (a Symbol or a BigInt
// throws TypeError).
function unrestrictedDouble(v) {
  if (typeof v === "bigint") throw new TypeError("Cannot convert a BigInt value to a number.");
  return Number(v);
}

// dictionary checks a dictionary argument: undefined and null are the empty dictionary,
// any other non-object is a TypeError.
export function dictionary(v, what) {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" && typeof v !== "function") throw new TypeError(`${what} is not an object.`);
  return v;
}

// signalOf reads a dictionary's signal: absent, or an AbortSignal (TypeError otherwise).
export function signalOf(options, what) {
  const signal = options.signal;
  if (signal === undefined) return undefined;
  const isSignal = typeof AbortSignal === "function" && signal instanceof AbortSignal;
  if (!isSignal && Object.prototype.toString.call(signal) !== "[object AbortSignal]") {
    throw new TypeError(`${what}: signal is not an AbortSignal.`);
  }
  return signal;
}

// promptOptions converts LanguageModelPromptOptions (prompt, promptStreaming,
// measureContextUsage), members read once each in WebIDL's order, toolChoice (beyond the
// spec) last.
export function promptOptions(options, what) {
  const o = dictionary(options, what);
  const omitResponseConstraintInput = Boolean(o.omitResponseConstraintInput);
  const responseConstraint = o.responseConstraint;
  if (responseConstraint !== undefined && (responseConstraint === null || (typeof responseConstraint !== "object" && typeof responseConstraint !== "function"))) {
    throw new TypeError(`${what}: responseConstraint is not an object.`);
  }
  const signal = signalOf(o, what);
  if (regExpSource(responseConstraint) !== undefined) regExpFlags(responseConstraint, what);
  const activeTools = o.activeTools;
  if (activeTools !== undefined && !toolNames(activeTools)) throw new TypeError(`${what}: activeTools must be a list of tool names`);
  return { omitResponseConstraintInput, responseConstraint, signal, toolChoice: o.toolChoice, activeTools };
}

// toolNames reports whether v is an array of strings (tool names).
const toolNames = (v) => Array.isArray(v) && v.every((n) => typeof n === "string");

// toolSearchOption checks toolUseConfig.toolSearch (docs/small-windows.md): true, false,
// or {share, pinned}; the engine reads it as checked here (wasm/toolsearch.go).
function toolSearchOption(t) {
  if (t === undefined || typeof t === "boolean") return;
  if (t === null || typeof t !== "object") throw new TypeError("toolUseConfig.toolSearch must be true, false or {share, pinned}");
  const { share, pinned } = t;
  if (share !== undefined && !(typeof share === "number" && share > 0 && share <= 1)) {
    throw new TypeError(`toolUseConfig.toolSearch.share must be a number above 0 and at most 1, not ${String(share)}`);
  }
  if (pinned !== undefined && !toolNames(pinned)) throw new TypeError("toolUseConfig.toolSearch.pinned must be a list of tool names");
}

// unicodeMode throws NotSupportedError for a RegExp without "u" whose source is not valid
// in Unicode mode, where the module reads it (an identity escape such as \- or a lone ]
// or {): the page's RegExp is valid, so the engine's SyntaxError would misname it.
function unicodeMode(re, what) {
  const src = regExpSource(re);
  if (String(re.flags).includes("u")) return;
  try {
    new RegExp(src, "u");
  } catch (e) {
    throw new DOMException(
      `${what}: the responseConstraint /${src}/ is read in Unicode mode (the "u" flag), where it is not valid (${e.message}); write it as it would be with "u".`,
      "NotSupportedError",
    );
  }
}

const sourceOf = Object.getOwnPropertyDescriptor(RegExp.prototype, "source").get;

// regExpSource returns the source of a RegExp (any realm's: the check is the internal
// slot's, as the browser's IsRegExp, not instanceof, which an iframe's RegExp fails and
// would then cross as the JSON Schema {}, which holds for any answer), else undefined.
export function regExpSource(v) {
  if (v === null || typeof v !== "object" || v === RegExp.prototype) return undefined;
  try {
    return sourceOf.call(v);
  } catch {
    return undefined;
  }
}

// The flags of a RegExp responseConstraint that leave what the module checks unchanged:
// the answer is tested whole, from its start, by relin, which reads the source in Unicode
// mode and has no flags of its own. "d" (indices) and "g" (lastIndex, which a test from
// the start ignores) change nothing about whether the answer matches, and "u" is the
// mode relin reads. The others would be dropped silently: "i", "m", "s" and "v" change
// what matches, "y" anchors the match at the start (docs/decisions.md).
const HONOURED_FLAGS = "dgu";

// regExpFlags throws NotSupportedError naming the flags of a RegExp constraint the
// module cannot honour, before anything is sent.
function regExpFlags(re, what) {
  const flags = String(re.flags);
  const refused = [...flags].filter((f) => !HONOURED_FLAGS.includes(f));
  if (refused.length === 0) {
    unicodeMode(re, what);
    return;
  }
  const names = refused.map((f) => `"${f}"`).join(", ");
  throw new DOMException(
    `${what}: the responseConstraint /${regExpSource(re)}/${flags} has the flag${refused.length > 1 ? "s" : ""} ${names}, which the module cannot honour: only "d", "g" and "u" are.`,
    "NotSupportedError",
  );
}

// schemaData serialises a tool's inputSchema as Chrome reads it: type, properties and
// required by property access first (getters and Proxy traps run, and what they throw
// rejects create()), then the whole object as JSON.stringify would see it.
function schemaData(schema) {
  if (schema === null || typeof schema !== "object") return plain(schema, "TypeError");
  const read = { type: schema.type, properties: schema.properties, required: schema.required };
  const out = plain(schema, "TypeError");
  if (out === null || typeof out !== "object" || Array.isArray(out)) return out; // a toJSON replaced it
  for (const [k, v] of Object.entries(read)) {
    if (v !== undefined && !Object.prototype.hasOwnProperty.call(out, k)) out[k] = plain(v, "TypeError");
  }
  return out;
}

// wireToolList turns the tools option into data: each execute goes to the stash (its id
// into ids), each tool into tools by name.
export function wireToolList(toolsOption, tools, ids) {
  if (!Array.isArray(toolsOption)) return plain(toolsOption, "TypeError");
  const wireTools = [];
  for (const t of toolsOption) {
    if (t === null || typeof t !== "object") {
      wireTools.push(t); // the engine names the problem
      continue;
    }
    const { annotations, description, execute, inputSchema, name, title } = t;
    if (execute !== undefined && typeof execute !== "function") throw new TypeError(`tool ${name}: execute must be a function`);
    const data = {
      name: plain(name, "TypeError"),
      description: plain(description, "TypeError"),
      inputSchema: schemaData(inputSchema),
      annotations: plain(annotations, "TypeError"),
      hasExecute: typeof execute === "function",
      execute: -1,
    };
    if (title !== undefined) data.title = plain(title, "TypeError"); // WebMCP's
    if (t[fromModelContext]) data.mcpResult = true; // js/webmcp.js
    data.execute = stash.store(execute);
    if (data.execute > 0) ids.push(data.execute);
    tools.set(name, t);
    wireTools.push(data);
  }
  return wireTools;
}

// wireOptions turns create()'s options (availability()'s too) into data: execute and
// approve go to the stash. Members are read in WebIDL's order (the core options, then
// create's own), each once; the module's own options (backend, toolUseConfig,
// toolChoice) come after.
export function wireOptions(options, st) {
  const expectedInputs = expectedList(options.expectedInputs, "expectedInputs");
  const expectedOutputs = expectedList(options.expectedOutputs, "expectedOutputs");
  const samplingMode = options.samplingMode === undefined ? undefined : domString(options.samplingMode);
  const temperature = options.temperature === undefined ? undefined : unrestrictedDouble(options.temperature);
  const toolsOption = iterableToArray(options.tools);
  const topK = options.topK === undefined ? undefined : unrestrictedDouble(options.topK);
  let initialPrompts = iterableToArray(options.initialPrompts);
  if (Array.isArray(initialPrompts)) initialPrompts = initialPrompts.map((m, i) => message(m, i));
  const tools = new Map();
  const ids = [];
  const wireTools = wireToolList(toolsOption, tools, ids);
  let use = options.toolUseConfig;
  if (use != null) {
    const { enabled, maxToolCalls, maxRepeatedCalls, maxTokens, parallel, onLimit, approve, toolSearch } = use;
    if (approve !== undefined && typeof approve !== "function") throw new TypeError("toolUseConfig.approve must be a function");
    // 0 turns either stop off; Infinity or false would cross as null, the default, so
    // they are refused rather than read as the opposite of what they say.
    for (const [k, v] of [["maxRepeatedCalls", maxRepeatedCalls], ["maxTokens", maxTokens]]) {
      if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new TypeError(`toolUseConfig.${k} must be a whole number, 0 or more (0: no limit), not ${String(v)}`);
    }
    toolSearchOption(toolSearch);
    const id = approve ? stash.store({ approve, tools }) : -1;
    if (id > 0) ids.push(id);
    use = plain({ enabled, maxToolCalls, maxRepeatedCalls, maxTokens, parallel, onLimit, approve: id, toolSearch }, "TypeError");
  }
  const keepReasoning = options.keepReasoning;
  if (keepReasoning !== undefined && typeof keepReasoning !== "boolean") throw new TypeError(`keepReasoning must be true or false, not ${String(keepReasoning)}`);
  const backend = options.backend === undefined ? st.backend : wireBackend(options.backend, ids, st);
  const wire = {
    backend,
    initialPrompts: textOnly(initialPrompts) ? initialPrompts : wireInput(initialPrompts),
    expectedInputs: plain(expectedInputs, "TypeError"),
    expectedOutputs: plain(expectedOutputs, "TypeError"),
    tools: wireTools,
    toolUseConfig: use,
    samplingMode,
    temperature,
    topK,
    toolChoice: plain(options.toolChoice, "TypeError"),
    mcpServers: plain(options.mcpServers, "TypeError"), // the engine reads them (wasm/mcp.go)
    keepReasoning,
    compactOnOverflow: compactOnOverflow(options.compactOnOverflow),
  };
  const expectsToolCalls = Array.isArray(expectedOutputs) && expectedOutputs.some((o) => o?.type === "tool-call");
  // Whether the session takes its model's calls' responses only by the exception Chrome
  // does not make (DESIGN.md §3): tool-call among the outputs, tool-response not declared.
  const undeclaredResponses =
    expectsToolCalls && !(Array.isArray(expectedInputs) && expectedInputs.some((o) => o?.type === "tool-response" || o?.type === "tool-result"));
  // The session's sampling attributes: temperature is a WebIDL float, read back rounded.
  const params = { samplingMode, temperature: temperature === undefined ? undefined : Math.fround(temperature), topK };
  return { wire, tools, ids, expectsToolCalls, undeclaredResponses, params };
}

// compactRules reads compaction's rules (compact(), compactOnOverflow) as WebIDL reads a
// dictionary: keepTurns a whole number (Infinity or a fraction would cross as something
// else), the others booleans. The engine checks them again (wasm/options.go compaction).
export function compactRules(o, what) {
  if (o === null || typeof o !== "object") throw new TypeError(`${what} must be a dictionary`);
  const { dropToolResults, keepTurns, summarize } = o;
  if (keepTurns !== undefined && !(Number.isSafeInteger(keepTurns) && keepTurns >= 0)) {
    throw new TypeError(`${what}: keepTurns must be a whole number, 0 or more, not ${String(keepTurns)}`);
  }
  return { keepTurns, dropToolResults: dropToolResults === undefined ? undefined : !!dropToolResults, summarize: summarize === undefined ? undefined : !!summarize };
}

// compactOnOverflow reads create()'s compactOnOverflow: true (the default rules), false
// or absent (none), or the rules.
function compactOnOverflow(v) {
  if (v === undefined || v === null || v === false) return undefined;
  return compactRules(v === true ? {} : v, "compactOnOverflow");
}

// wireBackend turns a backend option into data: generate goes to the stash (its id into
// ids, released with the session), and "browser" gets js/'s driver of the native model.
export function wireBackend(backend, ids, st) {
  if (backend === null || typeof backend !== "object") return plain(backend, "TypeError"); // the engine names the problem
  const { generate, engine, ...rest } = backend;
  if (rest.kind === "record") {
    // The recorded backend is a backend like any (absent: the default); js/record.js.
    const { backend: inner, ...own } = rest;
    return { ...plain(own, "TypeError"), backend: inner === undefined ? st.backend : wireBackend(inner, ids, st) };
  }
  if (rest.kind === "chain") {
    // The members a create() uses, the others null (js/chain.js).
    const { backends, ...own } = rest;
    return { ...plain(own, "TypeError"), backends: backends.map((m) => m && wireBackend(m, ids, st)) };
  }
  const wire = plain(rest, "TypeError");
  if (wire.kind === "engine") wireEngine(engine, wire, ids, stash); // js/engine.js
  if (generate !== undefined) {
    if (typeof generate !== "function") throw new TypeError("invalid backend: backend.generate must be a function");
    wire.generate = stash.store(generate);
    ids.push(wire.generate);
  }
  if (wire.kind === "browser") {
    delete wire.generate;
    // Native tool use where the browser has it, unless the page asks for the text protocol.
    wire.nativeTools = st.nativeTools && wire.nativeTools !== false;
    const fn = wire.nativeTools ? st.browserToolsFn : st.browserFn;
    if (fn > 0) wire.generate = fn;
  }
  return wire;
}

