// The JS face of the module: the Prompt API's LanguageModel, its tool classes, and
// install(), over one message channel to the Go engine running as WebAssembly (see
// protocol.js). Every JS-ism lives here (Promises, ReadableStream, AbortSignal,
// EventTarget, DOMException, fetch, the browser's native LanguageModel); the rules live in
// the engine, so this file validates nothing the engine validates. Functions (execute,
// approve, generate) never cross the channel: they stay in a stash and travel as integer
// ids, as in esbuild's ObjectStash. The engine's HTTP goes out through fetch here, and
// page-supplied models run here, each streaming its answer back over the channel.
//
// It has no dependencies and no build step. Types: language-model.d.ts.

import { EVENT_TYPES, PROTOCOL_VERSION } from "./protocol.js";

// The browser's own LanguageModel, captured before install() may replace it, for the
// "browser" backend. Chromium 156 ships one that reports "unavailable" (no model). Its tool
// classes too: a browser that has LanguageModelToolCall has native tool use, and the
// browser backend then hands tools to it instead of going through the text protocol.
const nativeAtLoad = globalThis.LanguageModel;
const nativeToolsAtLoad = {
  call: globalThis.LanguageModelToolCall,
  success: globalThis.LanguageModelToolSuccess,
  error: globalThis.LanguageModelToolError,
};

// ---------------------------------------------------------------- errors

function abortReason(signal) {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function destroyedError() {
  return new DOMException("The session has been destroyed.", "InvalidStateError");
}

function setHidden(obj, key, value) {
  try {
    Object.defineProperty(obj, key, { value, writable: true, configurable: true, enumerable: false });
  } catch {
    // a frozen error: the extra is lost, the error stays right
  }
}

// makeError builds the exception for an error reply: a TypeError or a DOMException of
// the engine's name, with the extras attached (STYLE.md practice 7).
function makeError(wire) {
  const { name = "OperationError", message = "", fields } = wire ?? {};
  let err;
  if (name === "TypeError") {
    err = new TypeError(message);
  } else if (name === "QuotaExceededError" && typeof globalThis.QuotaExceededError === "function") {
    try {
      err = new globalThis.QuotaExceededError(message, { requested: fields?.requested, quota: fields?.quota });
    } catch {
      err = undefined;
    }
  }
  err ??= new DOMException(message, name);
  if (name === "QuotaExceededError") {
    if (err.requested !== fields?.requested) setHidden(err, "requested", fields?.requested);
    if (err.quota !== fields?.quota) setHidden(err, "quota", fields?.quota);
  }
  if (fields?.transcript) setHidden(err, "transcript", fields.transcript);
  return err;
}

function errorMessage(e) {
  if (e instanceof Error || (e && typeof e.message === "string")) return e.message || String(e.name ?? "Error");
  return String(e);
}

// ---------------------------------------------------------------- plain data

class Unserialisable extends Error {}

// plain returns a JSON-safe deep copy of value, as JSON.stringify would see it, but
// refusing what JSON.stringify silently drops or throws on: functions, symbols, BigInt and
// cycles become `kind` errors (DataError for messages, TypeError for declarations).
// Getters and toJSON run; what they throw propagates unchanged. With blobs (a Map), each
// Blob is recorded there and replaced by what the map holds for it (see wireInput).
function plain(value, kind = "DataError", blobs = null) {
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
function wireInput(value) {
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

function isBlob(v) {
  return typeof Blob === "function" && v instanceof Blob;
}

const IMAGE_SOURCES = ["ImageBitmap", "HTMLImageElement", "SVGImageElement", "HTMLCanvasElement", "OffscreenCanvas", "HTMLVideoElement", "VideoFrame", "ImageData"];

function isImageSource(v) {
  return IMAGE_SOURCES.some((name) => typeof globalThis[name] === "function" && v instanceof globalThis[name]);
}

function isAudioBuffer(v) {
  return typeof AudioBuffer === "function" && v instanceof AudioBuffer;
}

// wav encodes an AudioBuffer as a WAV Blob: 16-bit PCM, channels interleaved.
function wav(buffer) {
  const channels = buffer.numberOfChannels;
  const frames = buffer.length;
  const out = new DataView(new ArrayBuffer(44 + frames * channels * 2));
  const ascii = (at, s) => [...s].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  out.setUint32(4, 36 + frames * channels * 2, true);
  ascii(8, "WAVEfmt ");
  out.setUint32(16, 16, true); // the fmt chunk's size
  out.setUint16(20, 1, true); // PCM
  out.setUint16(22, channels, true);
  out.setUint32(24, buffer.sampleRate, true);
  out.setUint32(28, buffer.sampleRate * channels * 2, true); // bytes a second
  out.setUint16(32, channels * 2, true); // bytes a frame
  out.setUint16(34, 16, true); // bits a sample
  ascii(36, "data");
  out.setUint32(40, frames * channels * 2, true);
  const data = Array.from({ length: channels }, (_, c) => buffer.getChannelData(c));
  for (let f = 0, at = 44; f < frames; f++) {
    for (let c = 0; c < channels; c++, at += 2) {
      const x = Math.max(-1, Math.min(1, data[c][f]));
      out.setInt16(at, x < 0 ? x * 0x8000 : x * 0x7fff, true);
    }
  }
  return new Blob([out.buffer], { type: "audio/wav" });
}

// png draws an image source and encodes it as a PNG Blob. What the browser refuses (an
// <img> not yet loaded, a canvas tainted by another origin) rejects with its own error.
async function png(source) {
  const bitmap = await createImageBitmap(source);
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext("2d").drawImage(bitmap, 0, 0);
    return await canvas.convertToBlob({ type: "image/png" });
  } finally {
    bitmap.close();
  }
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function base64(buf) {
  const b = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let s = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < b.length ? B64[n & 63] : "=");
  }
  return s;
}

// ---------------------------------------------------------------- the stash

// Functions stay here; the engine sees their integer ids (-1 for none).
class ObjectStash {
  #map = new Map();
  #next = 1;
  store(value) {
    if (value === undefined) return -1;
    const id = this.#next++;
    this.#map.set(id, value);
    return id;
  }
  get(id) {
    return this.#map.get(id);
  }
  delete(id) {
    this.#map.delete(id);
  }
}

const stash = new ObjectStash();

// ---------------------------------------------------------------- tool classes

function callIDOf(init) {
  const id = init.callID ?? init.callId;
  if (typeof id !== "string" || id === "") throw new TypeError("callID must be a non-empty string");
  if (typeof init.name !== "string" || init.name === "") throw new TypeError("name must be a non-empty string");
  return id;
}

function initOf(init, rest, names) {
  if (init !== null && typeof init === "object") return init;
  if (init === undefined) throw new TypeError("missing tool call fields");
  const o = { callID: init };
  names.forEach((n, i) => (o[n] = rest[i]));
  return o;
}

/** A tool call: new LanguageModelToolCall({callID, name, arguments}) or (callID, name, arguments). */
export class LanguageModelToolCall {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "arguments"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    this.arguments = o.arguments ?? {};
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, arguments: this.arguments };
  }
}

/** A tool's result: new LanguageModelToolSuccess({callID, name, result}) or (callID, name, result). */
export class LanguageModelToolSuccess {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "result"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    if (o.result === undefined) throw new TypeError("result is required");
    this.result = o.result;
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, result: this.result };
  }
}

/** A tool's failure: new LanguageModelToolError({callID, name, errorMessage}) or (callID, name, errorMessage). */
export class LanguageModelToolError {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "errorMessage"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    if (typeof o.errorMessage !== "string") throw new TypeError("errorMessage must be a string");
    this.errorMessage = o.errorMessage;
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, errorMessage: this.errorMessage };
  }
}

function resultObject(r) {
  if (!r) return r;
  return r.errorMessage !== undefined ? new LanguageModelToolError(r) : new LanguageModelToolSuccess(r);
}

// ---------------------------------------------------------------- the channel

// Channel speaks protocol.js over the module's port {send, query, connect}. fetchFn
// returns the fetch the engine's requests go through.
class Channel {
  #port;
  #fetchFn;
  #next = 1;
  #pending = new Map(); // request id → {resolve, reject, onChunk}
  #running = new Map(); // engine call id → AbortController of a running execute/approve/fetch/generate
  #answered = new Set(); // request ids whose reply has arrived and waits for its microtask
  #aborting; // the request id whose abort is being sent
  #outbox = []; // requests to send once the page's synchronous code has run (see request)
  #flushing = false; // a microtask is sending the outbox
  #sessions = new Map(); // session key → event dispatcher
  #dead = null;

  constructor(port, fetchFn) {
    this.#port = port;
    this.#fetchFn = fetchFn;
    // Go may answer within send() itself: its scheduler runs the handler before it
    // returns to JS. Handling messages in a microtask keeps every answer asynchronous,
    // as a page expects (an abort right after prompt() rejects it), and keeps page code
    // (execute, event handlers) from running nested inside a Go call.
    port.connect((json) => {
      let m;
      try {
        m = JSON.parse(json);
      } catch (e) {
        console.error("language-model: a message from the engine is not JSON:", e);
        return;
      }
      // The reply is the engine's word on the request: an abort that comes after it
      // (in this task, before the microtask) must not contradict it.
      // A reply to the very abort being sent (the engine's AbortError) is not such a
      // word: the promise rejects with the signal's own reason (#aborting).
      if (m.type === "reply" && !(m.id === this.#aborting && m.error?.name === "AbortError")) this.#answered.add(m.id);
      queueMicrotask(() => this.#receive(m));
    });
  }

  // request sends msg with a fresh id and resolves with the reply's value.
  //
  // The engine can answer within the call that delivers a request (Go runs until it
  // blocks), so the promise must agree with the history however an abort falls:
  //  - requests leave in a microtask, in order: an abort in the page's same synchronous
  //    code (prompt() then abort(), as pages written for Chrome do) finds the request
  //    unsent, rejects, and the engine never sees it;
  //  - an abort after sending tells the engine, which rolls its work back, and rejects
  //    at once with the signal's reason;
  //  - unless the engine has replied already (the reply waits for its microtask, or
  //    arrives while the abort is being sent): then the reply settles the promise.
  //
  // msg may be a Promise of the message (inputs with Blobs being read): requests posted
  // after it wait, so the engine still gets them in order; if it rejects, so does this.
  request(msg, { signal, onChunk } = {}) {
    if (this.#dead) return Promise.reject(this.#dead);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      let onAbort;
      const settle = (fn) => (v) => {
        this.#pending.delete(id);
        signal?.removeEventListener("abort", onAbort);
        fn(v);
      };
      this.#pending.set(id, { resolve: settle(resolve), reject: settle(reject), onChunk });
      let sent = false;
      if (signal) {
        onAbort = () => {
          if (!this.#pending.has(id) || this.#answered.has(id)) return;
          if (sent) {
            this.#aborting = id;
            try {
              this.notify({ type: "abort", target: id });
            } finally {
              this.#aborting = undefined;
            }
          }
          if (this.#answered.has(id)) return;
          this.#pending.get(id).reject(abortReason(signal));
        };
        signal.addEventListener("abort", onAbort);
      }
      this.#post(msg, (m, failed, why) => {
        if (!this.#pending.has(id)) return; // aborted, failed or destroyed before it left
        if (failed) {
          this.#pending.get(id).reject(why);
          return;
        }
        sent = true;
        this.notify({ ...m, id });
      });
    });
  }

  // #post calls send(msg) in a microtask, after the sends posted before it. A msg that is
  // a Promise holds the queue until it settles; send then gets its value, or
  // (undefined, true, the reason) if it rejected.
  #post(msg, send) {
    this.#outbox.push({ msg, send });
    if (this.#flushing) return;
    this.#flushing = true;
    queueMicrotask(() => this.#flush());
  }

  async #flush() {
    try {
      while (this.#outbox.length > 0) {
        const { msg, send } = this.#outbox.shift();
        let m = msg;
        let failed = false;
        let why;
        if (msg instanceof Promise) {
          try {
            m = await msg;
          } catch (e) {
            failed = true;
            why = e;
          }
        }
        send(m, failed, why);
      }
    } finally {
      // A send that threw must not strand the requests behind it.
      if (this.#outbox.length > 0) queueMicrotask(() => this.#flush());
      else this.#flushing = false;
    }
  }

  // query asks history or usage synchronously.
  query(msg) {
    if (this.#dead) throw this.#dead;
    const r = JSON.parse(this.#port.query(JSON.stringify(msg)));
    if (r.error) throw makeError(r.error);
    return r.value;
  }

  notify(msg) {
    if (!this.#dead) this.#port.send(JSON.stringify(msg));
  }

  listen(key, dispatch) {
    this.#sessions.set(key, dispatch);
  }

  unlisten(key) {
    this.#sessions.delete(key);
  }

  // fail rejects everything pending with err, once and for all (the module stopped).
  fail(err) {
    this.#dead ??= err;
    for (const p of [...this.#pending.values()]) p.reject(err);
    for (const c of this.#running.values()) c.abort(err);
    this.#running.clear();
  }

  #receive(m) {
    try {
      switch (m.type) {
        case "reply": {
          this.#answered.delete(m.id);
          const p = this.#pending.get(m.id);
          if (!p) return; // aborted or failed already: dropped on purpose
          if (m.error) p.reject(makeError(m.error));
          else p.resolve(m.value);
          return;
        }
        case "chunk":
          this.#pending.get(m.id)?.onChunk?.(m.detail);
          return;
        case "tool-execute":
          this.#execute(m);
          return;
        case "tool-approve":
          this.#approve(m);
          return;
        case "fetch":
          this.#fetch(m);
          return;
        case "generate":
          this.#generate(m);
          return;
        case "tool-abort":
        case "fetch-abort":
        case "generate-abort": {
          const c = this.#running.get(m.id);
          this.#running.delete(m.id);
          c?.abort(new DOMException("The prompt that made this call was aborted.", "AbortError"));
          return;
        }
        default:
          // Events for a destroyed session find no listener: dropped on purpose.
          if (EVENT_TYPES.includes(m.type)) this.#sessions.get(m.session)?.(m.type, m.detail);
      }
    } catch (e) {
      console.error("language-model: while handling a message from the engine:", e);
    }
  }

  // #call runs fn for the engine call m and sends its tool-return, unless the engine
  // stopped waiting meanwhile (tool-abort).
  async #call(m, fn) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    let reply;
    try {
      reply = { type: "tool-return", id: m.id, value: await fn(ctrl.signal) };
    } catch (e) {
      reply = { type: "tool-return", id: m.id, error: { message: errorMessage(e) } };
    }
    if (this.#running.get(m.id) !== ctrl) return;
    this.#running.delete(m.id);
    this.notify(reply);
  }

  #execute(m) {
    this.#call(m, async (signal) => {
      const execute = stash.get(m.fn);
      if (typeof execute !== "function") throw new TypeError(`tool ${m.call.name} has no execute`);
      const progress = (value) => {
        if (!signal.aborted) this.notify({ type: "tool-progress", id: m.id, value: plain(value) });
      };
      const callID = m.call.callID;
      const result = await execute(m.call.arguments, { callID, callId: callID, signal, progress });
      if (result instanceof LanguageModelToolError) throw new Error(result.errorMessage);
      if (result instanceof LanguageModelToolSuccess) return plain(result.result);
      return plain(result);
    });
  }

  #approve(m) {
    this.#call(m, async (signal) => {
      const { approve, tools } = stash.get(m.fn) ?? {};
      const answer = await approve(new LanguageModelToolCall(m.call), tools?.get(m.tool), { signal });
      return typeof answer === "string" ? answer : Boolean(answer);
    });
  }

  // #fetch runs the engine's HTTP request and streams the response back: status and
  // headers, the body as text (one TextDecoder in stream mode, so a character split
  // across chunks arrives whole), then the end. fetch-abort aborts it. The request's
  // headers (the API key among them) go to fetch and nowhere else.
  async #fetch(m) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    const live = () => this.#running.get(m.id) === ctrl;
    const { method, url, headers, body } = m.request;
    let reader;
    try {
      const fetchFn = this.#fetchFn();
      const res = await fetchFn(url, { method, headers, body, signal: ctrl.signal });
      if (!live()) {
        res.body?.cancel().catch(() => {});
        return;
      }
      const h = {};
      res.headers.forEach((value, name) => (h[name.toLowerCase()] = value));
      this.notify({ type: "fetch-response", id: m.id, status: res.status, headers: h });
      if (res.body) {
        reader = res.body.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { done, value } = await reader.read();
          if (!live()) {
            reader.cancel().catch(() => {});
            return;
          }
          const data = done ? decoder.decode() : decoder.decode(value, { stream: true });
          if (data) this.notify({ type: "fetch-chunk", id: m.id, data });
          if (done) break;
        }
      }
      this.#running.delete(m.id);
      this.notify({ type: "fetch-end", id: m.id });
    } catch (e) {
      if (!live()) return; // aborted: the engine no longer listens
      this.#running.delete(m.id);
      this.notify({ type: "fetch-end", id: m.id, error: { message: errorMessage(e) } });
    }
  }

  // #generate runs a page-supplied model (or the built-in driver of the native one):
  // generate(request, {signal}) may return a string, a piece, an array of pieces, an
  // async iterable of them, or a Promise of any of these. Each piece crosses as it comes;
  // the engine reads them (DESIGN.md §4). generate-abort aborts the signal and stops the
  // iteration.
  async #generate(m) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    const live = () => this.#running.get(m.id) === ctrl;
    const piece = (value) => this.notify({ type: "generate-piece", id: m.id, value: plain(value) });
    const end = { type: "generate-end", id: m.id };
    try {
      const generate = stash.get(m.fn);
      if (typeof generate !== "function") throw new TypeError("the backend's generate function is gone");
      const out = await generate(m.request, { signal: ctrl.signal });
      if (!live()) return;
      if (out !== null && typeof out === "object" && typeof out[Symbol.asyncIterator] === "function") {
        const it = out[Symbol.asyncIterator]();
        let exhausted = false;
        try {
          for (;;) {
            const r = await it.next();
            if (!live()) return;
            if (r.done) {
              exhausted = true;
              break;
            }
            piece(r.value);
          }
        } finally {
          // Aborted, or a piece that cannot cross: let the iterator clean up.
          if (!exhausted) {
            try {
              Promise.resolve(it.return?.()).catch(() => {});
            } catch {
              // the iterator's own business
            }
          }
        }
      } else if (Array.isArray(out)) {
        out.forEach(piece);
      } else if (out !== undefined && out !== null) {
        piece(out);
      }
    } catch (e) {
      end.error = { name: typeof e?.name === "string" ? e.name : "Error", message: errorMessage(e) };
    }
    if (!live()) return;
    this.#running.delete(m.id);
    this.notify(end);
  }
}

// browserGenerate drives the browser's native LanguageModel as a generate function (the
// "browser" backend). Each step is one native session: system messages become its
// initialPrompts, the rest its prompt input, and the session is destroyed when the step
// ends or is abandoned. Without native tool use (no tool classes), the engine has already
// rendered tools, calls and results as text through its text protocol, and
// promptStreaming's chunks come back as text pieces. With it (classes given), the step's
// tools are declared to the native session, calls and results cross in Chrome's form
// (tool-call parts of assistant messages, tool-response parts of user messages, as the
// browser's own classes), and prompt()'s answer comes back as text and tool-call pieces.
function browserGenerate(native, classes) {
  return async (request, { signal }) => {
    const system = [];
    const input = [];
    const add = (role, part) => {
      const last = input.at(-1);
      if (last && last.role === role && Array.isArray(last.content) && part.type !== "text") last.content.push(part);
      else input.push({ role, content: [part] });
    };
    for (const m of request.messages) {
      if (classes && m.role === "tool-call") {
        const c = m.content[0].value;
        add("assistant", { type: "tool-call", value: new classes.call({ callId: c.callID, name: c.name, arguments: c.arguments }) });
        continue;
      }
      if (classes && m.role === "tool-result") {
        const r = m.content[0].value;
        const value = "errorMessage" in r
          ? new classes.error({ callId: r.callID, name: r.name, errorMessage: r.errorMessage })
          : new classes.success({ callId: r.callID, name: r.name, result: r.result });
        add("user", { type: "tool-response", value });
        continue;
      }
      const content = m.content
        .map((p) => {
          if (p.type !== "text") throw new DOMException(`The browser backend sends text only, not ${p.type}.`, "NotSupportedError");
          return p.value;
        })
        .join("");
      if (m.role === "system") system.push(content);
      else input.push(m.prefix ? { role: m.role, content, prefix: true } : { role: m.role, content });
    }
    const options = { signal };
    if (system.length > 0) options.initialPrompts = [{ role: "system", content: system.join("\n\n") }];
    const tools = classes ? request.tools ?? [] : [];
    if (classes) {
      options.expectedInputs = [{ type: "text" }, { type: "tool-response" }];
      options.expectedOutputs = [{ type: "text" }, { type: "tool-call" }];
      if (tools.length > 0) options.tools = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    }
    const session = await native.create(options);
    const done = () => {
      try {
        session.destroy();
      } catch {
        // already gone
      }
    };
    const promptOptions = { signal };
    if (request.responseConstraint !== undefined) promptOptions.responseConstraint = request.responseConstraint;
    if (classes) {
      try {
        const out = await session.prompt(input, promptOptions);
        return (Array.isArray(out) ? out : [out]).map((p) => {
          if (typeof p === "string") return p;
          if (p.type === "tool-call") return { type: "tool-call", value: { callID: p.value.callID ?? p.value.callId, name: p.value.name, arguments: p.value.arguments ?? {} } };
          return { type: "text", value: String(p.value) };
        });
      } finally {
        done();
      }
    }
    let reader;
    try {
      reader = session.promptStreaming(input, promptOptions).getReader();
    } catch (e) {
      done();
      throw e;
    }
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        try {
          const r = await reader.read();
          if (r.done) done();
          return r;
        } catch (e) {
          done();
          throw e;
        }
      },
      async return() {
        reader.cancel().catch(() => {});
        done();
        return { done: true, value: undefined };
      },
    };
  };
}

async function nativeAvailability(native) {
  if (!native) return "unavailable";
  try {
    return await native.availability();
  } catch {
    return "unavailable";
  }
}

// wireBackend turns a backend option into data: generate goes to the stash (its id into
// ids, released with the session), and "browser" gets js/'s driver of the native model.
function wireBackend(backend, ids, st) {
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

// ---------------------------------------------------------------- install

let installing = null; // the promise of the install in progress or done
let installed = null; // {channel, backend, native}
let progress = null; // the module's download progress, replayed to every create() monitor

// Progress records the download's progress fractions, and hands them to monitors.
class Progress {
  fractions = [];
  #listeners = new Set();
  update(f) {
    if (this.fractions.at(-1) === f) return;
    this.fractions.push(f);
    for (const l of this.#listeners) l(f);
  }
  attach(target) {
    const fire = (f) => {
      const init = { loaded: f, total: 1, lengthComputable: true };
      const ev = typeof ProgressEvent === "function" ? new ProgressEvent("downloadprogress", init) : Object.assign(new Event("downloadprogress"), init);
      target.dispatchEvent(ev);
    };
    this.fractions.forEach(fire);
    if (this.fractions.at(-1) !== 1) {
      const l = (f) => {
        fire(f);
        if (f === 1) this.#listeners.delete(l);
      };
      this.#listeners.add(l);
    }
  }
}

/**
 * install loads the module (unless a host has already started it), checks its protocol
 * version, sets the default backend and, as config.globals says, defines globalThis.
 * LanguageModel and the tool classes. It may be called again after a failure.
 */
export function install(config = {}) {
  if (!installing) {
    progress = new Progress();
    installing = doInstall(config, progress);
    installing.catch(() => {
      installing = null;
    });
  }
  return installing;
}

async function doInstall(config, progress) {
  // The native LanguageModel: the one there now, before the globals are defined (a page
  // may install a stand-in after loading this module), else the one at load.
  const current = globalThis.LanguageModel;
  const native = current !== undefined && current !== LanguageModel ? current : nativeAtLoad !== LanguageModel ? nativeAtLoad : undefined;
  let port = globalThis.__langmodel_channel;
  let exited = null;
  if (port) {
    progress.update(0);
    progress.update(1);
  } else {
    ({ port, exited } = await load(config, progress));
  }
  const channel = new Channel(port, () => config.fetch ?? globalThis.fetch);
  exited?.then(() => channel.fail(new DOMException("The language model module stopped.", "OperationError")));
  const hello = await channel.request({ type: "hello", version: PROTOCOL_VERSION });
  // Its tool classes, the same way: native tool use needs all three.
  const theirs = (key, ours) => {
    const now = globalThis[ours.name];
    if (now !== undefined && now !== ours) return now;
    return nativeToolsAtLoad[key] !== ours ? nativeToolsAtLoad[key] : undefined;
  };
  const classes = {
    call: theirs("call", LanguageModelToolCall),
    success: theirs("success", LanguageModelToolSuccess),
    error: theirs("error", LanguageModelToolError),
  };
  const nativeTools = Boolean(native) && Object.values(classes).every((c) => typeof c === "function");
  const st = {
    channel,
    backend: undefined,
    native,
    nativeTools,
    browserFn: native ? stash.store(browserGenerate(native, null)) : -1,
    browserToolsFn: nativeTools ? stash.store(browserGenerate(native, classes)) : -1,
  };
  if (config.backend !== undefined) st.backend = wireBackend(config.backend, [], st);
  installed = st;
  const globals = await defineGlobals(config.globals ?? "auto", native);
  return { version: hello.version, globals, native };
}

// load fetches the module with progress, runs it with Go's wasm_exec.js and waits for it
// to register its channel.
async function load(config, progress) {
  const base = globalThis.location?.href;
  const wasmURL = new URL(config.wasm ?? "langmodel.wasm", base);
  if (typeof globalThis.Go !== "function") await loadScript(new URL(config.wasmExec ?? "wasm_exec.js", wasmURL));
  const bytes = await download(wasmURL, progress, config.fetch ?? globalThis.fetch);
  const go = new globalThis.Go();
  const ready = new Promise((resolve) => (globalThis.__langmodel_ready = resolve));
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  const exited = go.run(instance);
  await Promise.race([
    ready,
    exited.then(() => {
      throw new DOMException("The language model module exited while starting.", "OperationError");
    }),
  ]);
  delete globalThis.__langmodel_ready;
  return { port: globalThis.__langmodel_channel, exited };
}

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = url.href;
    s.onload = resolve;
    s.onerror = () => reject(new DOMException(`Could not load ${url.href}.`, "NetworkError"));
    document.head.append(s);
  });
}

// download reads the module's body as it streams, reporting the fraction received
// (Content-Length of the response; 0 and 1 at least).
async function download(url, progress, fetchFn) {
  progress.update(0);
  const res = await fetchFn(url);
  if (!res.ok) throw new DOMException(`Could not fetch ${url.href}: HTTP ${res.status}.`, "NetworkError");
  const total = Number(res.headers.get("Content-Length")) || 0;
  if (!res.body || !total) {
    const buf = await res.arrayBuffer();
    progress.update(1);
    return buf;
  }
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    // Content-Length counts compressed bytes when the server compresses: clamp below 1
    // until the body has ended.
    progress.update(Math.min(loaded / total, 0.999));
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  progress.update(1);
  return bytes;
}

// defineGlobals defines the globals "always", "never", or ("auto") where the browser has
// no LanguageModel or its own reports "unavailable".
async function defineGlobals(mode, native) {
  let define = mode === "always" || mode === true;
  if (mode === "auto") {
    define = true;
    if (native) {
      try {
        define = (await native.availability()) === "unavailable";
      } catch {
        define = true;
      }
    }
  }
  if (!define) return false;
  for (const [name, value] of Object.entries({ LanguageModel, LanguageModelToolCall, LanguageModelToolSuccess, LanguageModelToolError })) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
  return true;
}

async function ready() {
  if (!installing) throw new DOMException("Call install() from language-model.js before using LanguageModel.", "InvalidStateError");
  await installing;
  return installed;
}

// ---------------------------------------------------------------- LanguageModel

let nextKey = 1;
const token = Symbol("LanguageModel");
const PARAMS = Object.freeze({ defaultTopK: 3, maxTopK: 128, defaultTemperature: 1, maxTemperature: 2 });

// wireOptions turns create()'s options into data: execute and approve go to the stash.
function wireOptions(options, st) {
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

function monitorTarget(monitor) {
  if (monitor === undefined) return;
  if (typeof monitor !== "function") throw new TypeError("monitor must be a function");
  const target = new EventTarget();
  monitor(target);
  progress?.attach(target);
}

// Shared is what a session and its clones share: tool declarations and stash ids, which
// are released when the last of them is destroyed.
class Shared {
  constructor(options, tools, ids, expectsToolCalls) {
    this.options = options;
    this.tools = tools;
    this.ids = ids;
    this.expectsToolCalls = expectsToolCalls;
    this.refs = 0;
  }
  release() {
    if (--this.refs === 0) this.ids.forEach((id) => stash.delete(id));
  }
}

export class LanguageModel extends EventTarget {
  #channel;
  #key;
  #shared;
  #mode;
  #usage;
  #window;
  #destroyed = false;
  #inflight = new Set(); // rejecters of this session's pending calls
  #handlers = {};

  /** @private Sessions come from LanguageModel.create() and clone(). */
  constructor(t, channel, key, shared, info) {
    if (t !== token) throw new TypeError("Illegal constructor");
    super();
    this.#channel = channel;
    this.#key = key;
    this.#shared = shared;
    shared.refs++;
    this.#mode = info.mode;
    this.#usage = info.contextUsage;
    this.#window = info.contextWindow;
    for (const type of EVENT_TYPES) {
      this.addEventListener(type, (e) => {
        const h = this.#handlers[type];
        if (typeof h === "function") h.call(this, e);
      });
    }
    channel.listen(key, (type, detail) => this.#dispatch(type, detail));
  }

  static async create(options = {}) {
    monitorTarget(options.monitor);
    const st = await ready();
    const signal = options.signal;
    if (signal?.aborted) throw abortReason(signal);
    const { wire, tools, ids, expectsToolCalls } = wireOptions(options, st);
    const key = nextKey++;
    const shared = new Shared(options, tools, ids, expectsToolCalls);
    let info;
    try {
      if (wire.backend?.kind === "browser" && st.native && (await nativeAvailability(st.native)) === "unavailable") {
        throw new DOMException("The browser's built-in LanguageModel is unavailable.", "NotSupportedError");
      }
      if (wire.initialPrompts instanceof Promise) wire.initialPrompts = await wire.initialPrompts;
      info = await st.channel.request({ type: "create", session: key, options: wire }, { signal });
    } catch (e) {
      ids.forEach((id) => stash.delete(id));
      if (signal?.aborted) st.channel.notify({ type: "destroy", id: 0, session: key }); // it may have been created
      throw e;
    }
    return new LanguageModel(token, st.channel, key, shared, info);
  }

  static async availability(options = {}) {
    const st = await ready();
    const { wire, ids } = wireOptions(options, st);
    ids.forEach((id) => stash.delete(id));
    const answer = await st.channel.request({ type: "availability", options: wire }, { signal: options.signal });
    // The engine knows whether the options work; the native model, whether it is there.
    if (answer === "available" && wire.backend?.kind === "browser") return nativeAvailability(st.native);
    return answer;
  }

  static async params() {
    return PARAMS;
  }

  // #request sends a request for this session; destroy() rejects it.
  #request(msg, signal, onChunk) {
    if (this.#destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      const fail = (e) => {
        this.#inflight.delete(fail);
        reject(e);
      };
      this.#inflight.add(fail);
      const m = { ...msg, session: this.#key };
      const ready = m.input instanceof Promise ? m.input.then((input) => ({ ...m, input })) : m;
      this.#channel.request(ready, { signal, onChunk }).then((v) => {
        this.#inflight.delete(fail);
        resolve(v);
      }, fail);
    });
  }

  #result(r) {
    this.#usage = r.contextUsage;
    if (!this.#shared.expectsToolCalls || this.#mode === "closed") return r.text;
    const parts = [];
    const calls = r.calls ?? [];
    if (r.text !== "" || calls.length === 0) parts.push({ type: "text", value: r.text });
    for (const c of calls) parts.push({ type: "tool-call", value: new LanguageModelToolCall(c) });
    return parts;
  }

  #promptMessage(input, options) {
    return {
      type: "prompt",
      input: wireInput(input),
      responseConstraint: options.responseConstraint instanceof RegExp ? { pattern: options.responseConstraint.source } : plain(options.responseConstraint, "TypeError"),
      omitResponseConstraintInput: Boolean(options.omitResponseConstraintInput),
      toolChoice: plain(options.toolChoice, "TypeError"),
    };
  }

  async prompt(input, options = {}) {
    if (this.#destroyed) throw destroyedError();
    if (options.signal?.aborted) throw abortReason(options.signal);
    const r = await this.#request(this.#promptMessage(input, options), options.signal);
    return this.#result(r);
  }

  promptStreaming(input, options = {}) {
    const ctrl = new AbortController();
    const user = options.signal;
    let controller;
    const enqueue = (detail) => {
      try {
        controller.enqueue(typeof detail === "string" ? detail : { type: "tool-call", value: new LanguageModelToolCall(detail.value) });
      } catch {
        // the reader cancelled
      }
    };
    return new ReadableStream({
      start: (c) => {
        controller = c;
        try {
          if (this.#destroyed) throw destroyedError();
          if (user?.aborted) throw abortReason(user);
          user?.addEventListener("abort", () => ctrl.abort(abortReason(user)));
          const msg = { ...this.#promptMessage(input, options), stream: true };
          this.#request(msg, ctrl.signal, enqueue).then(
            (r) => {
              this.#usage = r.contextUsage;
              try {
                c.close();
              } catch {
                // cancelled
              }
            },
            (e) => {
              try {
                c.error(e);
              } catch {
                // cancelled
              }
            },
          );
        } catch (e) {
          c.error(e);
        }
      },
      cancel: (reason) => {
        ctrl.abort(reason ?? new DOMException("The stream was cancelled.", "AbortError"));
      },
    });
  }

  async append(input, options = {}) {
    if (this.#destroyed) throw destroyedError();
    if (options.signal?.aborted) throw abortReason(options.signal);
    const r = await this.#request({ type: "append", input: wireInput(input) }, options.signal);
    this.#usage = r.contextUsage;
  }

  async measureContextUsage(input, options = {}) {
    if (this.#destroyed) throw destroyedError();
    if (options.signal?.aborted) throw abortReason(options.signal);
    return this.#request({ type: "measure", input: wireInput(input) }, options.signal);
  }

  measureInputUsage(input, options) {
    return this.measureContextUsage(input, options);
  }

  get contextUsage() {
    if (!this.#destroyed) {
      try {
        this.#usage = this.#channel.query({ type: "usage", session: this.#key }).contextUsage;
      } catch {
        // the last value known
      }
    }
    return this.#usage;
  }

  get contextWindow() {
    return this.#window;
  }

  get inputUsage() {
    return this.contextUsage;
  }

  get inputQuota() {
    return this.#window;
  }

  /** The whole transcript in the draft-PR form, a deep copy (beyond the spec). */
  get history() {
    if (this.#destroyed) throw destroyedError();
    return this.#channel.query({ type: "history", session: this.#key });
  }

  get samplingMode() {
    return this.#shared.options.samplingMode ?? "default";
  }

  get topK() {
    return this.#shared.options.topK ?? PARAMS.defaultTopK;
  }

  get temperature() {
    return this.#shared.options.temperature ?? PARAMS.defaultTemperature;
  }

  get oncontextoverflow() {
    return this.#handlers.contextoverflow ?? null;
  }
  set oncontextoverflow(h) {
    this.#handlers.contextoverflow = h;
  }
  get onquotaoverflow() {
    return this.oncontextoverflow;
  }
  set onquotaoverflow(h) {
    this.oncontextoverflow = h;
  }
  get ontoolcall() {
    return this.#handlers.toolcall ?? null;
  }
  set ontoolcall(h) {
    this.#handlers.toolcall = h;
  }
  get ontoolprogress() {
    return this.#handlers.toolprogress ?? null;
  }
  set ontoolprogress(h) {
    this.#handlers.toolprogress = h;
  }
  get ontoolresult() {
    return this.#handlers.toolresult ?? null;
  }
  set ontoolresult(h) {
    this.#handlers.toolresult = h;
  }

  async clone(options = {}) {
    if (this.#destroyed) throw destroyedError();
    const signal = options.signal;
    if (signal?.aborted) throw abortReason(signal);
    const key = nextKey++;
    let info;
    try {
      info = await this.#request({ type: "clone", clone: key }, signal);
    } catch (e) {
      if (signal?.aborted) this.#channel.notify({ type: "destroy", id: 0, session: key });
      throw e;
    }
    return new LanguageModel(token, this.#channel, key, this.#shared, info);
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    const err = new DOMException("The session has been destroyed.", "AbortError");
    for (const fail of [...this.#inflight]) fail(err);
    this.#channel.unlisten(this.#key);
    this.#channel.notify({ type: "destroy", id: 0, session: this.#key });
    this.#shared.release();
  }

  #dispatch(type, detail) {
    if (type === "contextoverflow") {
      this.dispatchEvent(new Event("contextoverflow"));
      return;
    }
    const d = { ...detail };
    if (d.call) d.call = new LanguageModelToolCall(d.call);
    if (d.result) d.result = resultObject(d.result);
    this.dispatchEvent(new CustomEvent(type, { detail: d }));
  }
}
