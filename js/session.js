// The session: LanguageModel, its static methods and its instance methods, over the
// channel install() opened.

import { abortReason, destroyedError } from "./errors.js";
import { nativeAvailability } from "./native.js";
import { EVENT_TYPES } from "./protocol.js";
import { ready, runtime } from "./runtime.js";
import { stash } from "./stash.js";
import { promptStream } from "./stream.js";
import { LanguageModelToolCall, resultObject } from "./tools.js";
import { plain, wireInput, wireOptions } from "./webidl.js";


let nextKey = 1;
const token = Symbol("LanguageModel");
const PARAMS = Object.freeze({ defaultTopK: 3, maxTopK: 128, defaultTemperature: 1, maxTemperature: 2 });


function monitorTarget(monitor) {
  if (monitor === undefined) return;
  if (typeof monitor !== "function") throw new TypeError("monitor must be a function");
  const target = new EventTarget();
  monitor(target);
  runtime.progress?.attach(target);
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
    return promptStream(options.signal, (signal, enqueue) => {
      if (this.#destroyed) throw destroyedError();
      const msg = { ...this.#promptMessage(input, options), stream: true };
      return this.#request(msg, signal, enqueue).then((r) => {
        this.#usage = r.contextUsage;
      });
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

