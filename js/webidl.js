// Conversion of what the page passes (messages, create()'s options, backends) into the
// plain data that crosses the channel. The rules live in the engine: this file only reads
// the page's values the way WebIDL does (property access, getters and toJSON run, their
// exceptions propagate) and refuses what JSON cannot carry.

import { base64, isAudioBuffer, isBlob, isImageSource, png, wav } from "./media.js";
import { stash } from "./stash.js";

// plain returns a JSON-safe deep copy of value, as JSON.stringify would see it, but
// refusing what JSON.stringify silently drops or throws on: functions, symbols, BigInt and
// cycles become `kind` errors (DataError for messages, TypeError for declarations).
// Getters and toJSON run; what they throw propagates unchanged. With blobs (a Map), each
// Blob is recorded there and replaced by what the map holds for it (see wireInput).
export function plain(value, kind = "DataError", blobs = null) {
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
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return { type: "bytes", base64: base64(v) };
    if (blobs && (isBlob(v) || isImageSource(v) || isAudioBuffer(v))) {
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

// wireOptions turns create()'s options into data: execute and approve go to the stash.
export function wireOptions(options, st) {
  const tools = new Map();
  const ids = [];
  let wireTools = options.tools;
  if (wireTools != null && typeof wireTools === "object" && typeof wireTools[Symbol.iterator] === "function") {
    wireTools = [];
    for (const t of options.tools) {
      if (t === null || typeof t !== "object") {
        wireTools.push(t); // the engine names the problem
        continue;
      }
      const { name, description, inputSchema, annotations, execute } = t;
      if (execute !== undefined && typeof execute !== "function") throw new TypeError(`tool ${name}: execute must be a function`);
      const id = stash.store(execute);
      if (id > 0) ids.push(id);
      tools.set(name, t);
      wireTools.push({
        name: plain(name, "TypeError"),
        description: plain(description, "TypeError"),
        inputSchema: plain(inputSchema, "TypeError"),
        annotations: plain(annotations, "TypeError"),
        hasExecute: typeof execute === "function",
        execute: id,
      });
    }
  } else {
    wireTools = plain(wireTools, "TypeError");
  }
  let use = options.toolUseConfig;
  if (use != null) {
    const { enabled, maxToolCalls, parallel, onLimit, approve } = use;
    if (approve !== undefined && typeof approve !== "function") throw new TypeError("toolUseConfig.approve must be a function");
    const id = approve ? stash.store({ approve, tools }) : -1;
    if (id > 0) ids.push(id);
    use = plain({ enabled, maxToolCalls, parallel, onLimit, approve: id }, "TypeError");
  }
  const backend = options.backend === undefined ? st.backend : wireBackend(options.backend, ids, st);
  const wire = {
    backend,
    initialPrompts: wireInput(options.initialPrompts),
    expectedInputs: plain(options.expectedInputs, "TypeError"),
    expectedOutputs: plain(options.expectedOutputs, "TypeError"),
    tools: wireTools,
    toolUseConfig: use,
    samplingMode: plain(options.samplingMode, "TypeError"),
    toolChoice: plain(options.toolChoice, "TypeError"),
  };
  const expectsToolCalls = Array.isArray(options.expectedOutputs) && options.expectedOutputs.some((o) => o?.type === "tool-call");
  return { wire, tools, ids, expectsToolCalls };
}

// wireBackend turns a backend option into data: generate goes to the stash (its id into
// ids, released with the session), and "browser" gets js/'s driver of the native model.
export function wireBackend(backend, ids, st) {
  if (backend === null || typeof backend !== "object") return plain(backend, "TypeError"); // the engine names the problem
  const { generate, ...rest } = backend;
  const wire = plain(rest, "TypeError");
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

