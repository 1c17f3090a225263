// The session: LanguageModel, its static methods and its instance methods, over the
// channel install() opened.

import { agentNodes, agentSetup } from "./agents.js";
import { follow, withModelContext } from "./webmcp.js";
import { abortReason, destroyedError } from "./errors.js";
import { chainAvailability, chainBackend, isChain } from "./chain.js";
import { ggufAvailability, ggufBackend, isGGUF } from "./gguf.js";
import { probeEngine } from "./engine.js";
import { nativeAvailability } from "./native.js";
import { attachment, packText } from "./pack.js";
import { EVENT_TYPES } from "./protocol.js";
import { ready, runtime } from "./runtime.js";
import { recorded, recordingOf, startRecording } from "./record.js";
import { forget, rememberedOf, setRemembered, shown } from "./approvals.js";
import { changed, changedSoon, restoreOptions, snapshotOf } from "./snapshot.js";
import { stash } from "./stash.js";
import { promptStream } from "./stream.js";
import { LanguageModelToolCall, resultObject } from "./tools.js";
import { compactRules, dictionary, hasToolResponse, plain, promptOptions, regExpSource, signalOf, toPrompt, wireInput, wireOptions, wireToolList } from "./webidl.js";

let nextKey = 1;
const token = Symbol("LanguageModel");
const PARAMS = Object.freeze({ defaultTopK: 3, maxTopK: 128, defaultTemperature: 1, maxTemperature: 2 });

// monitorTarget calls create()'s monitor with the target of its downloadprogress events
// and returns it (null without a monitor).
function monitorTarget(monitor) {
  if (monitor === undefined) return null;
  if (typeof monitor !== "function") throw new TypeError("monitor must be a function");
  const target = new EventTarget();
  monitor(target);
  return target;
}

// ggufOf returns the GGUF model (or chain of backends, js/chain.js) a create() or
// availability() asks for: its own backend option, or install()'s when it has none;
// null for any other backend. Either is resolved for each create().
function ggufOf(backend) {
  if (backend === undefined) return runtime.gguf ?? null;
  return isGGUF(backend) || isChain(backend) ? backend : null;
}

// withBackend is options with backend replaced (the engine backend over a GGUF model).
function withBackend(options, backend) {
  return Object.create(options, { backend: { value: backend, enumerable: true } });
}

// needsArgument throws WebIDL's TypeError for a required argument that was not passed.
function needsArgument(n, what) {
  if (n === 0) throw new TypeError(`${what}: 1 argument required, but only 0 present.`);
}

// Shared is what a session and its clones share: tool declarations and stash ids, which
// are released when the last of them is destroyed.
class Shared {
  constructor(params, tools, ids, expectsToolCalls, undeclaredResponses, data) {
    this.params = params;
    this.data = data; // the options that are data, as a snapshot saves them (snapshot.js)
    this.tools = tools;
    this.ids = ids;
    this.expectsToolCalls = expectsToolCalls;
    this.undeclaredResponses = undeclaredResponses;
    this.agents = null; // the session's agent tools' level (js/agents.js), if it has any
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
  #samplingMode; // as the engine reports it
  #usage;
  #spent; // session.usage
  #active; // tool search's active set, as the engine last published it (undefined: no search)
  #window;
  #initial; // how many messages of the history are initial prompts
  #destroyed = false;
  #noticed = false; // the console notice of an undeclared tool response was given
  #destroyReason; // what calls reject with once destroyed by create()'s signal
  #untie = null; // removes the listener of create()'s signal
  #unfollow = null; // stops following create()'s modelContext (js/webmcp.js)
  #inflight = new Set(); // this session's pending requests (channel.js Pending)
  // #settled is called as each request settles: the snapshot may have changed, which its
  // watchers hear in a microtask, as a reaction to the request's promise would have them
  // (without a promise and two closures per request where nothing watches).
  #settled = () => changedSoon(this);
  #handlers = {}; // event type → the on<type> handler (a listener is added when first set, as HTML does)
  #listening = new Set(); // the engine's event types this session has asked for (listen)

  /** @private Sessions come from LanguageModel.create() and clone(). */
  constructor(t, channel, key, shared, info) {
    if (t !== token) throw new TypeError("Illegal constructor");
    super();
    this.#channel = channel;
    this.#key = key;
    this.#shared = shared;
    shared.refs++;
    this.#mode = info.mode;
    this.#samplingMode = info.samplingMode;
    this.#usage = info.contextUsage;
    this.#spent = info.usage ?? { inputTokens: 0, outputTokens: 0, steps: 0, estimatedSteps: 0, cachedTokens: 0 };
    this.#active = info.activeTools;
    this.#window = info.contextWindow;
    this.#initial = info.initial ?? 0;
    channel.listen(key, (type, detail) => this.#dispatch(type, detail));
    if (shared.agents) agentNodes.attach(key, this, this.#listening, shared.agents);
  }

  // create's signal aborts creation and, once created, destroys the session: its calls
  // in flight and later reject with the signal's reason (the writing-assistance APIs'
  // "create an AI model object").
  static async create(options = {}) {
    return LanguageModel.#create(dictionary(options, "LanguageModel.create()"), undefined);
  }

  /**
   * restore(snapshot, options) continues a session that snapshot() saved, with what a
   * snapshot cannot hold: the tools with their execute (the same declarations),
   * toolUseConfig.approve, the backend, signal and monitor (docs/snapshots.md).
   */
  static async restore(snapshot, options = {}) {
    needsArgument(arguments.length, "LanguageModel.restore()");
    const { create, restore, packed, approvals } = restoreOptions(snapshot, dictionary(options, "LanguageModel.restore()"));
    return LanguageModel.#create(create, restore, packed, approvals);
  }

  // packed is restore()'s history, packed already (pack.js): create()'s comes in options;
  // approvals, the decisions restore() keeps (approvals.js).
  static async #create(options, restore, packed = null, approvals = []) {
    const what = restore ? "LanguageModel.restore()" : "LanguageModel.create()";
    const signal = signalOf(options, what);
    const backend = options.backend; // read once: wireOptions reads it from withBackend's
    const gguf = ggufOf(backend);
    const target = monitorTarget(options.monitor);
    // The module's download is the monitor's, unless the model is a GGUF the module
    // downloads (js/gguf.js): then the model's is.
    const stopProgress = (!gguf && target && runtime.progress?.attach(target)) || (() => {});
    if (signal) {
      if (signal.aborted) stopProgress();
      else signal.addEventListener("abort", stopProgress, { once: true });
    }
    const st = await ready();
    if (signal?.aborted) throw abortReason(signal);
    let mc, own;
    ({ options, mc, own } = await withModelContext(options, signal)); // js/webmcp.js: spreads options' own keys
    // A chain's members answer for the session's inputs and outputs (js/chain.js).
    const { expectedInputs, expectedOutputs } = options;
    const ask = (b) => LanguageModel.availability({ expectedInputs, expectedOutputs, backend: b });
    if (gguf) options = withBackend(options, await (isChain(gguf) ? chainBackend(gguf, ask, target, signal) : ggufBackend(gguf, target, signal)));
    else options = withBackend(options, backend);
    // An in-page engine's chat template, probed once (js/engine.js): native tools or the
    // text protocol, unless the page said which.
    const eb = options.backend;
    if (eb?.kind === "engine" && eb.nativeTools === undefined) await probeEngine(eb.engine);
    // Agent tools and a child's counted ones (js/agents.js); null for most sessions.
    const agents = agentSetup(options, backend, (o) => LanguageModel.create(o));
    if (agents) {
      options = agents.options;
      // The page's own tools as converted, ahead of its WebMCP ones: what follow() offers again.
      if (own) own = options.tools.slice(0, own.length);
    }
    const { wire, tools, ids, expectsToolCalls, undeclaredResponses, params } = wireOptions(options, st);
    const key = nextKey++;
    // A snapshot's options (snapshot.js): never mcpServers, whose headers may hold secrets.
    const { initialPrompts: _history, backend: _backend, mcpServers: _mcp, ...data } = wire;
    const shared = new Shared(params, tools, ids, expectsToolCalls, undeclaredResponses, data);
    shared.agents = agents?.level ?? null;
    let info;
    try {
      if (wire.backend?.kind === "browser" && st.native && (await nativeAvailability(st.native)) === "unavailable") {
        throw new DOMException("The browser's built-in LanguageModel is unavailable.", "NotSupportedError");
      }
      let { initialPrompts, ...rest } = wire;
      if (initialPrompts instanceof Promise) initialPrompts = await initialPrompts;
      // initialPrompts travels beside the options (protocol.js); a history of text
      // messages, packed, after the message's JSON (pack.js).
      const msg = { type: "create", session: key, options: rest };
      if (restore) msg.restore = restore;
      packed ??= packText(initialPrompts);
      if (packed) {
        msg.textPrompts = packed.count;
        msg.textUnits = packed.text.length;
        msg[attachment] = packed.text;
      } else {
        msg.initialPrompts = initialPrompts;
      }
      info = await st.channel.request(msg, { signal });
    } catch (e) {
      ids.forEach((id) => stash.delete(id));
      if (signal?.aborted) st.channel.notify({ type: "destroy", id: 0, session: key }); // it may have been created
      throw e;
    } finally {
      signal?.removeEventListener("abort", stopProgress);
    }
    startRecording(shared, wire.backend, info);
    const session = new LanguageModel(token, st.channel, key, shared, info);
    if (approvals.length) setRemembered(st.channel, key, approvals);
    if (mc) {
      // Clones follow the context too, each with its own key (js/webmcp.js).
      shared.follow = (k) => follow(mc, own, { channel: st.channel, key: k, tools, ids, wireToolList });
      session.#unfollow = shared.follow(key);
    }
    if (signal) session.#tie(signal);
    return session;
  }

  // #tie destroys this session with signal's reason when it aborts (at once if it has:
  // the engine's reply won the race against the abort).
  #tie(signal) {
    const onAbort = () => this.#destroy(abortReason(signal));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    this.#untie = () => signal.removeEventListener("abort", onAbort);
  }

  static async availability(options = {}) {
    options = dictionary(options, "LanguageModel.availability()");
    const signal = signalOf(options, "LanguageModel.availability()");
    const st = await ready();
    // A GGUF model: the module is asked about the engine backend, and js/gguf.js whether
    // the model is there.
    const backend = options.backend;
    const chain = ggufOf(backend);
    if (isChain(chain)) return chainAvailability(chain, (b) => LanguageModel.availability(withBackend(options, b)));
    const gguf = chain ? ggufAvailability(chain) : null;
    options = withBackend(options, gguf ? gguf.backend : backend);
    // Agent tools are checked as create() checks them, and answered for as the tools with execute they become.
    options = agentSetup(options, backend, null)?.options ?? options;
    const { wire, ids } = wireOptions(options, st);
    ids.forEach((id) => stash.delete(id));
    const answer = await st.channel.request({ type: "availability", options: wire }, { signal });
    // The engine knows whether the options work; the native model, whether it is there.
    if (answer === "available" && wire.backend?.kind === "browser") return nativeAvailability(st.native);
    if (answer === "available" && gguf) return gguf.there;
    return answer;
  }

  static async params() {
    return PARAMS;
  }

  // #gone is what a call on a destroyed session rejects with: create()'s signal's reason
  // when that destroyed it, else InvalidStateError.
  #gone() {
    return this.#destroyReason ?? destroyedError();
  }

  // #request sends a request for this session; destroy() rejects it. Once it settles,
  // the session's snapshot may have changed (snapshot.js).
  #request(msg, signal, onChunk) {
    if (this.#destroyed) return Promise.reject(this.#gone());
    msg.session = this.#key;
    const ready = msg.input instanceof Promise ? msg.input.then((input) => ({ ...msg, input })) : msg;
    const done = this.#channel.request(ready, { signal, onChunk, inflight: this.#inflight, onSettle: this.#settled });
    // A parent's agents count their calls per prompt (js/agents.js).
    if (this.#shared.agents && msg.type === "prompt") done.finally(() => agentNodes.settled(this.#key)).catch(() => {});
    return done;
  }

  /**
   * recording() returns the model steps a session whose backend is {kind: "record",
   * backend} has run so far, its clones' included, as the scripted backend replays them
   * (beyond the spec; docs/recordings.md). InvalidStateError for any other backend.
   */
  recording() {
    return recordingOf(this.#shared);
  }

  /**
   * snapshot() saves the session as plain JSON (beyond the spec; docs/snapshots.md): its
   * history, the options that are data, its usage, and the calls still waiting for an
   * answer, running or waiting for approval. It reads what session.history reads, so it
   * may be taken at any moment, a prompt running included. LanguageModel.restore() takes
   * it back.
   */
  snapshot() {
    if (this.#destroyed) throw this.#gone();
    const { history, json } = this.#channel.historyOf(this.#key);
    return snapshotOf(this.#shared.data, history, json, this.contextUsage, this.usage, this.contextWindow, this.#initial, (pending) => this.#channel.callsOf(this.#key, pending), rememberedOf(this.#key, true), this.#active);
  }

  /**
   * approvals lists the tools the user allowed always (approve answered {allow:
   * "always"}), each the declaration approve was shown: {name, description, inputSchema,
   * annotations, source}. A call runs unasked only while its tool declares exactly that
   * (beyond the spec; docs/security.md "Approvals remembered").
   */
  get approvals() {
    if (this.#destroyed) throw this.#gone();
    return rememberedOf(this.#key).map(shown);
  }

  /**
   * listTools() resolves to the session's tools as its next step has them, wherever they
   * come from: the page's tools, its WebMCP tools and the MCP servers' (only the engine
   * knows those), each {name, description, inputSchema, annotations, source: {kind:
   * "page"|"webmcp"|"mcp", name?, origin?}, active}, as approve is shown them (an MCP
   * server's headers never are); active is false for a tool that tool search keeps from
   * the model for now (beyond the spec; docs/chat-ui.md "A session's tools").
   */
  async listTools() {
    if (this.#destroyed) throw this.#gone();
    return this.#channel.request({ type: "tool-list", session: this.#key }, { inflight: this.#inflight });
  }

  /**
   * revokeApproval(name) forgets the decision about the tool named name, or every
   * decision without a name: approve is asked again from the next call on.
   */
  revokeApproval(name) {
    if (this.#destroyed) throw this.#gone();
    const list = rememberedOf(this.#key);
    setRemembered(this.#channel, this.#key, name === undefined ? [] : list.filter((d) => d.name !== String(name)));
    changed(this);
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

  // #notice says once per session in the console that a tool response was taken without
  // tool-response in expectedInputs (it answered the session's own model: DESIGN.md §3),
  // which Chrome asks for. Called after the engine took prompt, which had to be that.
  #notice(prompt) {
    if (this.#noticed || !this.#shared.undeclaredResponses || !hasToolResponse(prompt)) return;
    this.#noticed = true;
    console.info(
      'language-model: a tool response was taken without {type: "tool-response"} in expectedInputs, since it answers a call this session\'s model made. Chrome\'s LanguageModel asks for the declaration: add it to create()\'s expectedInputs to run unchanged there.',
    );
  }

  // #convert converts prompt()'s arguments (promptStreaming's, measureContextUsage's) as
  // WebIDL does, in argument order; what it throws is thrown before anything starts.
  #convert(n, input, options, what) {
    needsArgument(n, what);
    const prompt = toPrompt(input);
    return { prompt, options: promptOptions(options, what) };
  }

  // #promptMessage is the prompt request for converted arguments; what cannot cross
  // (DataError) throws here.
  #promptMessage({ prompt, options }) {
    const rc = options.responseConstraint;
    const pattern = regExpSource(rc);
    return {
      type: "prompt",
      input: wireInput(prompt),
      responseConstraint: pattern !== undefined ? { pattern } : plain(rc, "TypeError"),
      omitResponseConstraintInput: options.omitResponseConstraintInput,
      toolChoice: plain(options.toolChoice, "TypeError"),
      activeTools: plain(options.activeTools, "TypeError"),
    };
  }

  // #check throws what a call must reject with before it starts: the session destroyed,
  // or its signal aborted (the reason itself, identity kept).
  #check(signal) {
    if (this.#destroyed) throw this.#gone();
    if (signal?.aborted) throw abortReason(signal);
  }

  async prompt(input, options = {}) {
    const args = this.#convert(arguments.length, input, options, "LanguageModel.prompt()");
    const signal = args.options.signal;
    this.#check(signal);
    const r = await this.#request(this.#promptMessage(args), signal);
    this.#notice(args.prompt);
    return this.#result(r);
  }

  // promptStreaming throws synchronously what prompt() would reject with before it
  // starts (bad arguments, an aborted signal, a destroyed session): it returns a stream,
  // not a promise. Later failures error the stream.
  promptStreaming(input, options = {}) {
    const args = this.#convert(arguments.length, input, options, "LanguageModel.promptStreaming()");
    const signal = args.options.signal;
    this.#check(signal);
    return promptStream(signal, (runSignal, enqueue) =>
      this.#request({ ...this.#promptMessage(args), stream: true }, runSignal, enqueue).then((r) => {
        this.#usage = r.contextUsage;
        this.#notice(args.prompt);
      }),
    );
  }

  async append(input, options = {}) {
    needsArgument(arguments.length, "LanguageModel.append()");
    const prompt = toPrompt(input);
    const signal = signalOf(dictionary(options, "LanguageModel.append()"), "LanguageModel.append()");
    this.#check(signal);
    const r = await this.#request({ type: "append", input: wireInput(prompt) }, signal);
    this.#usage = r.contextUsage;
    this.#notice(prompt);
    return undefined;
  }

  async measureContextUsage(input, options = {}) {
    const args = this.#convert(arguments.length, input, options, "LanguageModel.measureContextUsage()");
    if (args.options.omitResponseConstraintInput && args.options.responseConstraint === undefined) {
      throw new TypeError("LanguageModel.measureContextUsage(): omitResponseConstraintInput is true but there is no responseConstraint.");
    }
    const signal = args.options.signal;
    this.#check(signal);
    return this.#request({ type: "measure", input: wireInput(args.prompt) }, signal);
  }

  measureInputUsage(input, options) {
    if (arguments.length === 0) return this.measureContextUsage();
    return this.measureContextUsage(input, options);
  }

  get contextUsage() {
    this.#query();
    return this.#usage;
  }

  // #query reads contextUsage and usage as the engine last published them; once
  // destroyed, the last values known stay.
  #query() {
    if (this.#destroyed) return;
    try {
      const r = this.#channel.query({ type: "usage", session: this.#key });
      this.#usage = r.contextUsage;
      this.#spent = r.usage ?? this.#spent;
      this.#active = r.activeTools;
    } catch {
      // the last values known
    }
  }

  /**
   * usage is what the session's model steps have spent so far (beyond the spec):
   * {inputTokens, outputTokens, steps, estimatedSteps, cachedTokens}, in the backend's
   * tokens where it reported them and the estimate (contextUsage's measure) where not,
   * estimatedSteps counting the steps with only the estimate, cachedTokens the input
   * tokens the backends reported cached (stepusage's cachedTokens, summed). Steps of failed
   * and aborted prompts count (their tokens were spent); a clone and a restored session
   * start from the original's.
   */
  get usage() {
    this.#query();
    return { ...this.#spent };
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
    if (this.#destroyed) throw this.#gone();
    return this.#channel.historyOf(this.#key).history;
  }

  // samplingMode is null on a session created with the legacy topK or temperature, whose
  // sampling no mode describes (Chrome's tests).
  get samplingMode() {
    const p = this.#shared.params;
    if (p.topK !== undefined || p.temperature !== undefined) return null;
    return this.#samplingMode ?? p.samplingMode ?? "balanced";
  }

  get topK() {
    return this.#shared.params.topK ?? PARAMS.defaultTopK;
  }

  // temperature is a WebIDL float: the value given, rounded to single precision.
  get temperature() {
    return this.#shared.params.temperature ?? PARAMS.defaultTemperature;
  }

  // #setHandler sets an on<type> attribute: a function or an object (called as the
  // platform calls handlers), anything else null. Its listener joins the others when the
  // attribute is first set, so it runs in that order among them, as in HTML.
  #setHandler(type, h) {
    if (!(type in this.#handlers)) {
      this.addEventListener(type, (e) => {
        const fn = this.#handlers[type];
        if (typeof fn === "function") fn.call(this, e);
      });
    }
    this.#handlers[type] = typeof h === "function" || (h !== null && typeof h === "object") ? h : null;
  }

  get oncontextoverflow() {
    return this.#handlers.contextoverflow ?? null;
  }
  set oncontextoverflow(h) {
    this.#setHandler("contextoverflow", h);
  }
  get onquotaoverflow() {
    return this.#handlers.quotaoverflow ?? null;
  }
  set onquotaoverflow(h) {
    this.#setHandler("quotaoverflow", h);
  }
  get ontoolcall() {
    return this.#handlers.toolcall ?? null;
  }
  set ontoolcall(h) {
    this.#setHandler("toolcall", h);
  }
  get ontoolprogress() {
    return this.#handlers.toolprogress ?? null;
  }
  set ontoolprogress(h) {
    this.#setHandler("toolprogress", h);
  }
  get onstepusage() {
    return this.#handlers.stepusage ?? null;
  }
  set onstepusage(h) {
    this.#setHandler("stepusage", h);
  }
  get onreasoning() {
    return this.#handlers.reasoning ?? null;
  }
  set onreasoning(h) {
    this.#setHandler("reasoning", h);
  }
  get ontoolcalldelta() {
    return this.#handlers.toolcalldelta ?? null;
  }
  set ontoolcalldelta(h) {
    this.#setHandler("toolcalldelta", h);
  }
  get ontoolresult() {
    return this.#handlers.toolresult ?? null;
  }
  set ontoolresult(h) {
    this.#setHandler("toolresult", h);
  }

  async clone(options = {}) {
    const signal = signalOf(dictionary(options, "LanguageModel.clone()"), "LanguageModel.clone()");
    return this.#copy(undefined, signal);
  }

  /**
   * compact(options) (beyond the spec) resolves to a new session, as clone() does, whose
   * history is shorter by options' rules: the last keepTurns turns (default 2; a turn is
   * a message of the page's, or one model step with its calls and their results) stay
   * whole; before them, each tool result becomes a stub that says it was dropped
   * (dropToolResults, default true), and with summarize the older turns give way to a
   * summary the session's own model writes (one model step, counted in usage, aborted
   * by options.signal). The initial prompts stay; a call is never parted from its result.
   * The original session is never changed. docs/small-windows.md.
   */
  async compact(options = {}) {
    const o = dictionary(options, "LanguageModel.compact()");
    const signal = signalOf(o, "LanguageModel.compact()");
    return this.#copy(compactRules(o, "LanguageModel.compact()"), signal);
  }

  async #copy(compact, signal) {
    this.#check(signal);
    const key = nextKey++;
    let info;
    try {
      info = await this.#request({ type: "clone", clone: key, compact }, signal);
    } catch (e) {
      if (signal?.aborted) this.#channel.notify({ type: "destroy", id: 0, session: key });
      throw e;
    }
    const clone = new LanguageModel(token, this.#channel, key, this.#shared, info);
    // A clone goes on with what the user allowed so far; revoking in one leaves the other.
    const approvals = rememberedOf(this.#key);
    if (approvals.length) setRemembered(this.#channel, key, approvals);
    clone.#unfollow = this.#shared.follow?.(key) ?? null;
    return clone;
  }

  destroy() {
    this.#destroy(undefined);
    return undefined;
  }

  // #destroy rejects the calls in flight with reason (AbortError when destroy() was
  // called), and later calls with reason or, after destroy(), InvalidStateError.
  #destroy(reason) {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#destroyReason = reason;
    this.#untie?.();
    this.#unfollow?.();
    const err = reason ?? new DOMException("The session has been destroyed.", "AbortError");
    this.#channel.abortSession(this.#key, err);
    for (const p of [...this.#inflight]) p.reject(err);
    this.#channel.unlisten(this.#key);
    if (this.#shared.agents) agentNodes.detach(this.#key);
    forget(this.#key);
    this.#channel.notify({ type: "destroy", id: 0, session: this.#key });
    this.#shared.release();
  }

  // addEventListener is EventTarget's, and tells the engine the first time a type it
  // sends gets a listener: the engine sends a session's events only once it is listened
  // for, since encoding, crossing and dispatching events nobody hears would cost every
  // step (RATIONALE.md "Why are events sent only to sessions that listen?"). It is never
  // taken back: a listener removed later leaves the events coming, unheard.
  addEventListener(type, listener, options) {
    super.addEventListener(type, listener, options);
    if (listener === null || listener === undefined || this.#destroyed) return;
    const event = String(type) === "quotaoverflow" ? "contextoverflow" : String(type);
    if (!EVENT_TYPES.includes(event) || this.#listening.has(event)) return;
    this.#listening.add(event);
    this.#channel.notify({ type: "listen", session: this.#key, event });
    if (this.#shared.agents) agentNodes.listen(this.#key, event); // its running children's too
  }

  #dispatch(type, detail) {
    if (type === "modelstep") return recorded(this.#shared, detail);
    if (type === "calls") {
      changed(this); // a call started running or asking for approval (pagecalls.js)
      return;
    }
    if (type === "contextoverflow") {
      // An Event as the spec has it; one compactOnOverflow answered carries its detail
      // ({compacted, contextUsageBefore, contextUsageAfter, evicted}).
      this.dispatchEvent(detail?.compacted ? new CustomEvent(type, { detail: { ...detail } }) : new Event(type));
      this.dispatchEvent(new Event("quotaoverflow")); // its legacy twin, for older clients
      return;
    }
    const d = { ...detail };
    if (d.call) d.call = new LanguageModelToolCall(d.call);
    if (d.result) d.result = resultObject(d.result);
    this.dispatchEvent(new CustomEvent(type, { detail: d }));
    if (type === "toolcall") changed(this); // a model step ended with calls
  }
}

