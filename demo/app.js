// The demo page: a chat over js/language-model.js, used exactly as any page would use it
// (import, install(), LanguageModel.create()). It shows each tool call live as a card, runs
// the page's tools in the closed loop (the module calls execute) or the open loop (the
// page runs each call itself, and can pause before it), asks the user before a destructive
// tool runs, and edits the history to recreate the session with less context.
//
// Safety: nothing from a model or a tool is parsed as HTML. Text goes through textContent
// or markdown.js, which builds nodes with textContent and allows only http(s) links.

import { install, LanguageModel, LanguageModelToolError, LanguageModelToolSuccess } from "../js/language-model.js";
import { EXAMPLES, makeTools, manyTools, researcher, RULES } from "./tools.js";
import { applyResult, entriesFromHistory, renderEntries, renderEntry, resultText, title } from "./view.js";
import { download, forget, keep, keepExtras, recordable, replayPlan, saved } from "./keep.js";
import { announce, registerTools, settled } from "./webmcp.js";
import { thinkingBackend } from "./thinking.js";

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- state

const notes = { list: [], changed: () => renderNotes() };
const TOOLS = makeTools({ notes, base: new URL(".", import.meta.url) });
const byName = new Map(TOOLS.map((t) => [t.name, t]));

const SCRIPTED = { kind: "scripted", rules: RULES };
const RESEARCHER = researcher(byName);
let MANY; // manyTools(), made the first time the mode is on
// PINNED are the tools tool search always offers in many-tools mode: the page's own and
// the researcher, so that every rule and example works as without the 300 (the model
// searches only for the generated ones). A WebMCP context's tools have the same names.
const PINNED = [...TOOLS.map((t) => t.name), RESEARCHER.name];

const state = {
  session: null,
  /** The options the current session was created with. */
  config: { loop: "closed", pause: false, maxToolCalls: 16, onLimit: "error", toolChoice: "auto", backend: SCRIPTED },
  entries: [],
  calls: new Map(), // keyOf(callID, path) → {entry, call} of the live view
  meta: { durations: new Map() }, // what the history does not keep, shown the same in both views
  found: [], // the tools searches found (search_tools results), in order: the active set's growth
  seenAnnotations: new Map(), // tool name → annotations from toolcall events (tools the page does not know)
  waiters: new Map(), // callID → settle(decision): approvals and paused open-loop calls
  controller: null,
  busy: false,
  native: undefined,
  mcp: null, // the MCP server connected, {url, name, token}: in this page only, never saved
  thinkingDelay: 40, // the thinking demo model's pause between pieces, in ms
  loadProgress: [], // the module's download progress as create()'s monitor reported it
  ggufProgress: [], // the in-page model's, for the last one picked
};

// The page's WebMCP model context, where it has one (demo/webmcp.js): the closed loop's
// tools come from there once registered (webmcpReady).
const modelContext = document.modelContext;
const webmcpReady = modelContext
  ? registerTools(modelContext, TOOLS, runWebMCP).then(
      () => true,
      (e) => (console.warn("demo: the tools could not be registered with WebMCP:", e), false),
    )
  : Promise.resolve(false);

const annotations = (name) => byName.get(name)?.annotations ?? state.seenAnnotations.get(name);

// The render context: the live view adds buttons for calls waiting on the user.
const liveCtx = {
  annotations,
  meta: state.meta,
  actions(call) {
    const settle = state.waiters.get(call.callID);
    if (!settle) return [];
    if (call.state === "approval") {
      return [
        { label: "Approve", cls: "primary small", onClick: () => settle("run") },
        // The session's approve asks (closed loop): it can remember (approveClosed).
        ...(call.remembers ? [{ label: "Allow always", cls: "small", onClick: () => settle("always") }] : []),
        { label: "Decline", cls: "danger small", onClick: () => settle("decline") },
      ];
    }
    if (call.state === "paused") {
      return [
        { label: "Run this call", cls: "primary small", onClick: () => settle("run") },
        { label: "Refuse", cls: "small", onClick: () => settle("refuse") },
      ];
    }
    return [];
  },
};
const staticCtx = { annotations, meta: state.meta };

// ---------------------------------------------------------------- the live view

const conv = $("conversation");

function nearBottom() {
  return conv.scrollHeight - conv.scrollTop - conv.clientHeight < 80;
}

function push(entry) {
  const stick = nearBottom();
  state.entries.push(entry);
  entry.node = renderEntry(entry, liveCtx);
  conv.append(entry.node);
  if (stick) conv.scrollTop = conv.scrollHeight;
  return entry;
}

function update(entry) {
  const stick = nearBottom();
  const node = renderEntry(entry, liveCtx);
  entry.node?.replaceWith(node);
  entry.node = node;
  if (stick) conv.scrollTop = conv.scrollHeight;
}

/** rebuild shows entries (from a history) as the whole conversation. */
function rebuild(entries) {
  state.entries = [];
  state.calls.clear();
  conv.replaceChildren();
  for (const e of entries) {
    push(e);
    if (e.kind === "calls") for (const call of e.calls) state.calls.set(call.callID, { entry: e, call });
  }
}

function notice(level, title, text, actions) {
  return push({ kind: "notice", level, title, text, actions });
}

function liveText(chunk) {
  let entry = state.entries.at(-1);
  if (entry?.kind !== "assistant" || entry.failed) entry = push({ kind: "assistant", text: "" });
  entry.text += chunk;
  update(entry);
}

// foundTools adds the tools a search found (its result lists them, "- name(params): …")
// to the active set shown in the settings.
function foundTools(result) {
  for (const m of resultText(result ?? []).matchAll(/^- ([A-Za-z0-9_.-]+)\(/gm)) if (!state.found.includes(m[1])) state.found.push(m[1]);
  showActiveSet();
}

function showActiveSet() {
  const on = state.config.loop === "closed" && state.config.manyTools;
  $("active-set").hidden = !on;
  const found = state.found.length ? state.found.join(", ") : "nothing yet";
  $("active-set").textContent = on ? `Active set: search_tools · pinned: ${PINNED.join(", ")} · found: ${found} · ${MANY?.length ?? 0} more tools by search` : "";
}

// keyOf keys a call by the agent calls that led to it (an event's detail.path) and its
// own callID: call IDs are a session's own, and a child's first call is call_1 too.
const keyOf = (callID, path) => (path?.length ? path.map((c) => c.callID).join("/") + "/" : "") + callID;

/**
 * liveCall shows a call (once, however it is announced) and returns {entry, call}. A
 * child session's call (path: the agent calls above it) goes inside its agent call's card.
 */
function liveCall(c, st, path) {
  const id = c.callID ?? c.callId;
  const key = keyOf(id, path);
  const known = state.calls.get(key);
  // The card that formed (formingCall) becomes the call, with its arguments as validated.
  if (known?.call.state === "forming" && st !== "forming") setCall(known, { state: st, args: c.arguments ?? {}, argsText: undefined });
  if (known) return known;
  const call = { callID: id, name: c.name, args: c.arguments ?? {}, state: st, nested: Boolean(path?.length) };
  const parent = path?.length ? liveCall(path.at(-1), "running", path.slice(0, -1)) : null;
  let entry;
  if (parent) {
    entry = parent.entry;
    (parent.call.children ??= []).push(call);
  } else {
    entry = state.entries.at(-1);
    if (entry?.kind !== "calls" || entry.failed) entry = push({ kind: "calls", calls: [] });
    entry.calls.push(call);
  }
  const ref = { entry, call, key, parent };
  state.calls.set(key, ref);
  update(entry);
  return ref;
}

// formingCall shows a call while the model writes it (the toolcalldelta event): a card
// as soon as the name is known, its arguments filled in as they come, gone when the
// call is dropped. The toolcall event then makes the same card (same callID) the call.
function formingCall({ callID, name, argumentsText, arguments: partial, dropped }) {
  const key = keyOf(callID);
  const ref = state.calls.get(key);
  if (dropped) {
    if (ref?.call.state !== "forming") return;
    state.calls.delete(key);
    ref.entry.calls.splice(ref.entry.calls.indexOf(ref.call), 1);
    if (ref.entry.calls.length === 0 && state.entries.at(-1) === ref.entry) {
      state.entries.pop();
      ref.entry.node.remove();
    } else update(ref.entry);
    return;
  }
  const r = ref ?? liveCall({ callID, name }, "forming");
  if (r.call.state !== "forming") return;
  setCall(r, partial ? { args: partial, argsText: undefined } : { argsText: argumentsText });
}

// liveThinking shows what the model thinks (the reasoning event) in a collapsed block
// above the answer it leads to.
function liveThinking(text) {
  let entry = state.entries.at(-1);
  // from: the history's length as the reasoning comes; it leads to the next message that
  // is not the user's (saveExtras).
  if (entry?.kind !== "thinking" || entry.failed) entry = push({ kind: "thinking", text: "", from: state.session?.history.length ?? 0 });
  entry.text += text;
  update(entry);
}

// saveExtras keeps what the view shows and the history does not hold (keep.js
// keepExtras): each Thinking block by the index of the message it leads to, each agent
// call's nested cards by its call's index and callID, and each call's duration by its
// callID. A failed turn's are not kept (its messages are not in the history).
function saveExtras() {
  const history = state.session?.history ?? [];
  const thinking = {};
  const children = {};
  const durations = {};
  for (const e of state.entries) {
    if (e.failed) continue;
    if (e.kind === "thinking") {
      let at = e.at ?? e.from;
      while (at < history.length && history[at].role === "user") at++;
      if (at < history.length) thinking[(e.at = at)] = e.text;
    }
    if (e.kind !== "calls") continue;
    for (const c of e.calls) {
      const ms = state.meta.durations.get(c.callID);
      if (ms !== undefined) durations[c.callID] = ms;
      if (!c.children?.length) continue;
      c.at ??= history.findLastIndex((m) => m.role === "tool-call" && m.content?.some?.((p) => p.type === "tool-call" && (p.value.callID ?? p.value.callId) === c.callID));
      if (c.at >= 0) children[c.at + "/" + c.callID] = c.children;
    }
  }
  keepExtras({ thinking, children, durations });
}

function setCall(ref, fields) {
  Object.assign(ref.call, fields);
  update(ref.entry);
}

/** ask shows buttons on a call and resolves with the user's decision. */
function ask(ref, st, signal) {
  return new Promise((resolve) => {
    const settle = (d) => {
      state.waiters.delete(ref.call.callID);
      signal?.removeEventListener("abort", onAbort);
      resolve(d);
    };
    const onAbort = () => settle("abort");
    signal?.addEventListener("abort", onAbort, { once: true });
    state.waiters.set(ref.call.callID, settle);
    setCall(ref, { state: st });
  });
}

// ---------------------------------------------------------------- sessions

function toolChoiceOption(v) {
  if (v.startsWith("tool:")) return { type: "tool", name: v.slice(5) };
  return v;
}

function createOptions(config, initialPrompts, webmcp) {
  const closed = config.loop === "closed";
  const tools = (closed && webmcp ? [] : TOOLS).map(({ name, description, inputSchema, annotations, run }) => {
    const decl = { name, description, inputSchema, annotations };
    if (closed) decl.execute = (args, ctx) => executeClosed(name, run, args, ctx);
    return decl;
  });
  const opts = {
    backend: recordable(config.backend), // for "Download recording" (keep.js)
    tools,
    toolUseConfig: { maxToolCalls: config.maxToolCalls, onLimit: config.onLimit },
    // Not in the Prompt API drafts (DESIGN.md §4): "none" offers the model no tools,
    // "required" or a named tool forces the first step of each prompt to call one.
    toolChoice: toolChoiceOption(config.toolChoice),
  };
  if (closed && webmcp) opts.modelContext = modelContext;
  // The researcher, a session as a tool, in the closed loop (its child runs its own loop),
  // beside the page's tools or the WebMCP context's.
  if (closed) tools.push(RESEARCHER);
  // Many tools: a few hundred more, so that tool search takes over (closed loop).
  if (closed && config.manyTools) {
    MANY ??= manyTools();
    for (const { name, description, inputSchema, annotations, run } of MANY) tools.push({ name, description, inputSchema, annotations, execute: (args) => run(args) });
    opts.toolUseConfig.toolSearch = { pinned: PINNED };
  }
  if (closed) opts.toolUseConfig.approve = approveClosed;
  else opts.expectedOutputs = [{ type: "text" }, { type: "tool-call" }];
  // The page sends tool results back (open loop), and a session rebuilt from an edited
  // history gets its calls and results as initialPrompts: both are input.
  opts.expectedInputs = [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }];
  if (initialPrompts?.length) opts.initialPrompts = initialPrompts;
  if (closed && state.mcp) opts.mcpServers = [mcpServer(state.mcp)];
  return opts;
}

async function createSession(config, initialPrompts, monitor) {
  const webmcp = await webmcpReady;
  const opts = createOptions(config, initialPrompts, webmcp);
  if (monitor) opts.monitor = monitor;
  return watch(await LanguageModel.create(opts), opts);
}

/**
 * restoreSession continues the conversation saved before a reload (keep.js) with the
 * saved loop settings and the offline model, as LanguageModel.restore() does: what was
 * running is answered as interrupted, approvals are asked again at the next prompt.
 */
async function restoreSession(snapshot, config, monitor) {
  const webmcp = await webmcpReady;
  const opts = createOptions(config, undefined, webmcp);
  if (opts.modelContext) return createSession(config, snapshot.history, monitor); // its tools are the context's
  const { tools, toolUseConfig, backend } = opts;
  // keepApprovals: the snapshot is the demo's own (keep.js), so "Allow always" survives.
  return watch(await LanguageModel.restore(snapshot, { tools, toolUseConfig: { approve: toolUseConfig.approve }, backend, monitor, keepApprovals: true }), opts);
}

/** watch shows session's tool calls live, as its events report them. */
function watch(session, opts) {
  watchedWith.set(session, opts);
  session.addEventListener("toolcalldelta", (e) => formingCall(e.detail));
  session.addEventListener("reasoning", (e) => liveThinking(e.detail.text));
  session.addEventListener("toolcall", (e) => {
    const { call, annotations: ann, path } = e.detail;
    if (ann && !byName.has(call.name)) state.seenAnnotations.set(call.name, ann);
    const ref = liveCall(call, "requested", path);
    if (e.detail.builtin) setCall(ref, { builtin: true });
    if (opts.modelContext && !path) announce(call.name, ref);
  });
  session.addEventListener("toolprogress", (e) => {
    const ref = state.calls.get(keyOf(e.detail.call.callID, e.detail.path));
    if (ref && ref.call.state !== "success" && ref.call.state !== "error") setCall(ref, { state: "running", progress: e.detail.value });
  });
  session.addEventListener("toolresult", (e) => {
    const ref = liveCall(e.detail.call, "running", e.detail.path);
    if (opts.modelContext && !e.detail.path) settled(e.detail.call.name, ref);
    if (typeof e.detail.duration !== "number") {
      // nothing to show
    } else if (e.detail.path) ref.call.duration = e.detail.duration;
    else state.meta.durations.set(ref.call.callID, e.detail.duration);
    applyResult(ref.call, e.detail.result);
    update(ref.entry);
    if (e.detail.builtin && !e.detail.path) foundTools(ref.call.result);
  });
  session.addEventListener("contextoverflow", () => notice("info", "Context window full", "The oldest messages were evicted from the session to make room."));
  return session;
}

// watchedWith: each session's create() options, for the sessions made from it (compact).
const watchedWith = new WeakMap();

/** switchSession replaces the session by one made with config from initialPrompts. */
async function switchSession(config, initialPrompts, monitor) {
  const session = await createSession(config, initialPrompts, monitor);
  return adopt(session, config);
}

// adopt makes session the page's: the old one goes, the new one is kept across reloads.
function adopt(session, config) {
  state.session?.destroy();
  state.session = session;
  state.config = config;
  keep(session, config);
  if (!config.manyTools) state.found = [];
  showStatus();
  showActiveSet();
  return session;
}

// loadRecording replays a recording (keep.js): a session over it, from the history it
// started from, is sent the user's messages it recorded, in order; then the
// conversation goes on with the model the page had.
async function loadRecording(recording) {
  if (state.busy) return;
  const before = state.config;
  try {
    const { initialPrompts, prompts } = replayPlan(recording);
    const session = await switchSession({ ...before, backend: recording }, initialPrompts);
    rebuild(entriesFromHistory(session.history));
    notice("info", "Replaying a recording", `${recording.turns.length} model steps, ${prompts.length} messages, through the scripted backend.`);
    for (const text of prompts) await send(text);
    await switchSession(before, state.session.history);
    notice("info", "Recording replayed", `The conversation goes on with the page's model: ${BACKEND_LABELS[before.backend.kind]}.`);
  } catch (err) {
    const { title: head, text } = describe(err);
    notice("error", `The recording could not be replayed: ${head}`, text);
    if (state.config !== before) await switchSession(before, state.session.history).catch(() => {});
  }
}

/**
 * compactSession swaps the session for a compacted one (session.compact(),
 * docs/small-windows.md): the last two turns stay whole, tool results before them become
 * stubs. The conversation is shown again from the new history, with contextUsage before
 * and after.
 */
async function compactSession() {
  if (state.busy || !state.session) return;
  const old = state.session;
  const before = old.contextUsage;
  try {
    const next = watch(await old.compact({ keepTurns: 2 }), watchedWith.get(old));
    adopt(next, state.config);
    const after = next.contextUsage;
    rebuild(entriesFromHistory(next.history));
    saveExtras(); // the indices have moved: none of the old ones is kept
    const text = `contextUsage ${before.toLocaleString("en")} → ${after.toLocaleString("en")}`;
    const n = notice("info", "Compacted", `${text}: the last two turns are whole, the tool results before them were dropped.`);
    Object.assign(n.node.dataset, { before: String(before), after: String(after) });
  } catch (err) {
    const { title: head, text } = describe(err);
    notice("error", `Could not compact: ${head}`, text);
  }
}

// mcpServer is create()'s mcpServers entry for the server the settings name. The token
// goes in a header, which the module never shows (docs/security.md); the page keeps it in
// state.mcp only, never in its saved config (keep.js): a reload forgets the server.
function mcpServer({ url, name, token }) {
  const server = { url, name };
  if (token) server.headers = { Authorization: `Bearer ${token}` };
  return server;
}

/**
 * connectMCP creates the session again with the MCP server the settings name (or none:
 * disconnect). It shows that it connected, how much more context the session takes with
 * the server's tool declarations, and the server's tools (session.listTools()). Its tools
 * show as cards when called.
 */
async function connectMCP(connect) {
  if (state.busy) return;
  const out = $("mcp-result");
  const before = state.session?.contextUsage ?? 0;
  const was = state.mcp;
  state.mcp = connect ? { url: $("mcp-url").value.trim(), name: $("mcp-name").value.trim() || "server", token: $("mcp-token").value } : null;
  out.className = "result";
  out.textContent = connect ? "Connecting…" : "";
  try {
    if (state.mcp && !state.mcp.url) throw new TypeError("Type the server's URL.");
    const session = await switchSession(state.config, state.session?.history);
    const after = session.contextUsage;
    out.className = "result ok";
    out.textContent = state.mcp
      ? `Connected to ${state.mcp.name}: its tools' declarations take ${(after - before).toLocaleString("en")} tokens of context (contextUsage ${before.toLocaleString("en")} → ${after.toLocaleString("en")}).`
      : "Disconnected.";
    showMCPTools(state.mcp ? (await session.listTools()).filter((t) => t.source.kind === "mcp") : []);
  } catch (err) {
    state.mcp = was;
    const { title: head, text } = describe(err);
    out.className = "result error";
    out.textContent = err instanceof TypeError ? err.message : `${head}. ${text}`;
  }
  $("mcp-connect").hidden = Boolean(state.mcp);
  $("mcp-disconnect").hidden = !state.mcp;
}

// showMCPTools lists the MCP server's tools under the settings' result: each its name as
// the model calls it, its title and description (the server's words, shown as text only).
function showMCPTools(tools) {
  const list = $("mcp-tools");
  list.replaceChildren(
    ...tools.map((t) => {
      const li = document.createElement("li");
      const name = document.createElement("code");
      name.textContent = t.name;
      const title = t.annotations?.title;
      li.append(name, ` ${title ? title + ": " : ""}${t.description}`);
      return li;
    }),
  );
  list.hidden = tools.length === 0;
}

// newConversation starts over: a session with no history, and nothing saved.
async function newConversation() {
  if (state.busy) return;
  await forget();
  await switchSession(state.config, undefined);
  state.meta.durations.clear();
  rebuild([]);
}

// executeClosed is a tool's execute in the closed loop: the module calls it after the
// toolcall event (and the approval); progress goes back as toolprogress events.
async function executeClosed(name, run, args, ctx) {
  const ref = liveCall({ callID: ctx.callID, name, arguments: args }, "running");
  setCall(ref, { state: "running" });
  return run(args, { signal: ctx.signal, progress: ctx.progress });
}

// runWebMCP is a tool's WebMCP execute (demo/webmcp.js): for a call of the chat, the
// card the toolcall event made shows it running and its progress.
async function runWebMCP(tool, args, ref) {
  if (!ref) return tool.run(args, { progress() {} });
  setCall(ref, { state: "running" });
  const signal = state.controller?.signal;
  return tool.run(args, { signal, progress: (p) => signal?.aborted || setCall(ref, { state: "running", progress: p }) });
}

// approveClosed asks the user before a destructive (or, in WebMCP, consequential) tool
// runs; the others run at once. "Allow always" answers {allow: "always"}: the session
// runs this tool unasked from then on, while it declares what was shown here
// (docs/security.md "Approvals remembered"); the snapshot keeps it across a reload.
async function approveClosed(call, tool, context) {
  if (!tool?.annotations?.destructiveHint && !tool?.annotations?.consequentialHint) return true;
  const ref = liveCall(call, "approval", context?.path);
  ref.call.remembers = true;
  const d = await ask(ref, "approval", state.controller?.signal);
  return d === "always" ? { allow: "always" } : d === "run";
}

// ---------------------------------------------------------------- a turn

function setBusy(busy) {
  state.busy = busy;
  document.body.dataset.busy = String(busy);
  $("send").disabled = busy || !state.session;
  $("stop").disabled = !busy;
  for (const e of document.querySelectorAll(".while-idle")) e.disabled = busy || !state.session;
}

async function send(text) {
  text = text.trim();
  if (!text || state.busy || !state.session) return;
  setBusy(true);
  const controller = new AbortController();
  state.controller = controller;
  // start: where this turn's entries begin; mark: where those not yet in the history
  // begin (the open loop moves it on after each prompt that succeeded).
  const turn = { start: state.entries.length, mark: state.entries.length, count: 0, text };
  push({ kind: "user", text });
  try {
    if (state.config.loop === "closed") await runClosed(text, controller.signal);
    else await runOpen(text, controller.signal, turn);
  } catch (err) {
    failed(err, turn);
  } finally {
    for (const settle of [...state.waiters.values()]) settle("abort");
    saveExtras();
    state.controller = null;
    setStep("");
    setBusy(false);
    showStatus();
  }
}

async function runClosed(text, signal) {
  const stream = state.session.promptStreaming(text, { signal });
  for await (const chunk of stream) {
    if (typeof chunk === "string") liveText(chunk);
    else liveCall(chunk.value, "requested"); // a hybrid session hands calls back
  }
}

const limitMessage = (max) => `not run: the limit of ${max} tool calls for one prompt was reached; answer with what you have`;

// runOpen is the open loop: the module hands each step's calls back, the page runs them
// (pausing before each if asked) and sends the results, until the model answers in text.
async function runOpen(text, signal, turn) {
  const { maxToolCalls: max, onLimit, pause } = state.config;
  let input = text;
  for (let step = 1; ; step++) {
    const calls = [];
    setStep(step === 1 ? "Asking the model…" : `Step ${step}: sending ${input.length} result${input.length === 1 ? "" : "s"} to the model…`);
    const stream = state.session.promptStreaming(input, { signal });
    for await (const chunk of stream) {
      if (typeof chunk === "string") liveText(chunk);
      else calls.push(liveCall(chunk.value, "requested"));
    }
    turn.mark = state.entries.length; // this prompt is in the history now
    if (calls.length === 0) return;
    const room = Math.max(0, max - turn.count);
    const over = calls.length > room;
    const runnable = over && onLimit === "error" ? [] : calls.slice(0, room);
    const results = new Map();
    for (const ref of calls) {
      if (runnable.includes(ref)) continue;
      results.set(ref, new LanguageModelToolError(ref.call.callID, ref.call.name, limitMessage(max)));
      applyResult(ref.call, { errorMessage: limitMessage(max) });
      update(ref.entry);
    }
    turn.count += runnable.length;
    setStep(`Step ${step}: the model asked for ${calls.length} tool call${calls.length === 1 ? "" : "s"}; the page runs them${pause ? " one by one" : ""}`);
    const running = [];
    for (const ref of runnable) {
      const p = runOpenCall(ref, signal, pause).then((r) => results.set(ref, r));
      running.push(p);
      if (pause || byName.get(ref.call.name)?.annotations?.destructiveHint) await p;
    }
    await Promise.all(running);
    input = calls.map((ref) => ({ role: "tool-result", content: [{ type: "tool-result", value: results.get(ref) }] }));
    turn.mark = state.entries.length;
    if (over && onLimit === "error") {
      await state.session.append(input, { signal });
      const name = calls[room].call.name;
      const err = new DOMException(`maxToolCalls is ${max} and the model asked for call ${max + 1} (${name})`, "OperationError");
      err.inHistory = true;
      throw err;
    }
  }
}

// runOpenCall runs one call in the open loop and returns its result or error.
async function runOpenCall(ref, signal, pause) {
  const { callID, name, args } = ref.call;
  const tool = byName.get(name);
  const refuse = (msg) => {
    applyResult(ref.call, { errorMessage: msg });
    update(ref.entry);
    return new LanguageModelToolError(callID, name, msg);
  };
  if (!tool) return refuse(`unknown tool "${name}"; the tools are: ${[...byName.keys()].join(", ")}`);
  if (pause) {
    const d = await ask(ref, "paused", signal);
    if (d === "abort") throw signal.reason;
    if (d === "refuse") return refuse("the user refused to run this tool call");
  } else if (tool.annotations?.destructiveHint) {
    const d = await ask(ref, "approval", signal);
    if (d === "abort") throw signal.reason;
    if (d === "decline") return refuse("the user declined this tool call");
  }
  setCall(ref, { state: "running" });
  const t0 = performance.now();
  try {
    const value = await tool.run(args, {
      signal,
      progress: (v) => {
        if (ref.call.state === "running") setCall(ref, { progress: v });
      },
    });
    state.meta.durations.set(callID, performance.now() - t0);
    const parts = typeof value === "string" ? [{ type: "text", value }] : [{ type: "object", value }];
    applyResult(ref.call, { result: parts });
    update(ref.entry);
    return new LanguageModelToolSuccess(callID, name, parts);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    return refuse(e?.message ?? String(e));
  }
}

const FAILURES = {
  AbortError: ["Stopped", "The prompt was stopped. The session's history is as it was before it."],
  OperationError: ["The prompt failed", ""],
  NetworkError: ["The model backend could not be reached", ""],
  NotAllowedError: ["The backend refused the request", "Check the API key. "],
  NotSupportedError: ["Not supported", ""],
  QuotaExceededError: ["The context window is full", "Recreate the session from a shorter history (History panel). "],
  InvalidStateError: ["The session cannot be used", ""],
};

/** describe turns an error into a notice's title and text. */
function describe(err) {
  const name = err?.name ?? "Error";
  const msg = err?.message ?? String(err);
  let [head, hint] = FAILURES[name] ?? [`${name}`, ""];
  if (name === "OperationError" && /maxToolCalls/.test(msg)) head = "Tool call limit reached";
  if (name === "AbortError") return { title: head, text: hint };
  return { title: head, text: `${hint}${name}: ${msg}` };
}

function failed(err, turn) {
  const stopped = err?.name === "AbortError";
  const kept = Boolean(err?.inHistory);
  state.entries.slice(turn.start).forEach((e, i) => {
    const inHistory = kept || turn.start + i < turn.mark;
    if (!inHistory) e.failed = true;
    if (e.kind === "calls") {
      // A call in the history without a result shows as the history shows it: not run.
      for (const c of e.calls) {
        if (!["success", "error"].includes(c.state)) c.state = stopped && !inHistory ? "stopped" : "unanswered";
      }
    }
    update(e);
  });
  let { title: head, text } = describe(err);
  if (stopped && turn.mark > turn.start) text = "The page stopped before it sent the results. The calls stay in the session's history without results; the next prompt answers them with an error.";
  const extra = !kept && turn.mark < state.entries.length ? " The dimmed part of this turn is not in the session's history." : "";
  const actions = kept ? [] : [{ label: "Retry", onClick: () => send(turn.text) }];
  notice(stopped ? "info" : "error", head, text + extra, actions);
  if (err?.transcript) console.info("partial transcript of the failed prompt:", err.transcript);
}

// ---------------------------------------------------------------- status and settings

function setStep(text) {
  $("step").textContent = text;
  $("step").hidden = !text;
}

const BACKEND_LABELS = { scripted: "Offline demo model", thinking: "Thinking demo model", custom: "Thinking demo model", openai: "OpenAI-compatible", browser: "Browser's own model", gguf: "In-page model" };

function showStatus() {
  const s = state.session;
  const c = state.config;
  const model = c.backend.kind === "gguf" ? ggufName(c.backend.model) : c.backend.model;
  $("backend-label").textContent = BACKEND_LABELS[c.backend.kind] + (model ? ` · ${model}` : "");
  $("mode-label").textContent = `${c.loop} loop`;
  if (!s) return;
  const used = s.contextUsage;
  const win = s.contextWindow;
  $("usage-text").textContent = `${used.toLocaleString("en")} / ${win.toLocaleString("en")}`;
  $("usage-bar").value = win ? used / win : 0;
  $("history-usage").textContent = `contextUsage ${used.toLocaleString("en")} of ${win.toLocaleString("en")}`;
}

function readSettings() {
  const loop = document.querySelector('input[name="loop"]:checked').value;
  const max = Number.parseInt($("max-calls").value, 10);
  return {
    ...state.config,
    loop,
    pause: $("pause").checked,
    maxToolCalls: Number.isFinite(max) && max >= 0 ? max : 16,
    onLimit: $("on-limit").value,
    toolChoice: $("tool-choice").value,
    manyTools: $("many-tools").checked,
  };
}

function syncSettingsForm() {
  const c = state.config;
  document.querySelector(`input[name="loop"][value="${c.loop}"]`).checked = true;
  $("pause").checked = c.pause;
  $("pause-row").hidden = c.loop !== "open";
  $("max-calls").value = String(c.maxToolCalls);
  $("on-limit").value = c.onLimit;
  $("tool-choice").value = c.toolChoice;
  $("many-tools").checked = Boolean(c.manyTools);
}

// applySettings recreates the session with the loop settings, keeping the conversation.
async function applySettings() {
  if (state.busy) return;
  const next = readSettings();
  $("pause-row").hidden = next.loop !== "open";
  if (next.loop === state.config.loop && next.maxToolCalls === state.config.maxToolCalls && next.onLimit === state.config.onLimit && next.toolChoice === state.config.toolChoice && next.manyTools === state.config.manyTools) {
    state.config = next; // pause is the page's own: no new session
    return;
  }
  try {
    await switchSession(next, state.session?.history);
  } catch (err) {
    const { title: head, text } = describe(err);
    notice("error", `Settings not applied: ${head}`, text);
    syncSettingsForm();
  }
}

function backendFromForm() {
  const kind = $("backend-kind").value;
  if (kind === "openai") {
    const b = { kind, baseURL: $("openai-url").value.trim(), model: $("openai-model").value.trim() };
    const key = $("openai-key").value;
    if (key) b.apiKey = key;
    return b;
  }
  if (kind === "browser") return { kind };
  if (kind === "gguf") return ggufFromForm();
  if (kind === "thinking") return thinkingBackend(state.thinkingDelay);
  return SCRIPTED;
}

// ---------------------------------------------------------------- a model in this page

// The in-page model: a GGUF the module loads into llama.cpp (wllama), which the page
// imports itself, only when this model is picked: demo/serve serves wllama's files
// (installed by make deps) and the project's toy model.
const WLLAMA = {
  paths: { default: new URL("../wllama/wasm/wllama.wasm", import.meta.url).href },
  compat: { wasm: new URL("../wllama-compat/wllama.wasm", import.meta.url).href, worker: new URL("../wllama-compat/wllama.js", import.meta.url).href },
};
const WLLAMA_ENTRY = new URL("../wllama/index.js", import.meta.url).href;
const TOY_GGUF = new URL("../models/toy.gguf", import.meta.url).href;
let wllamaModule;

// ggufFromForm returns the gguf backend the form names, or throws a TypeError saying
// what is missing.
async function ggufFromForm() {
  const source = document.querySelector('input[name="gguf-source"]:checked').value;
  let model = TOY_GGUF;
  if (source === "url") {
    model = $("gguf-url").value.trim();
    if (!model) throw new TypeError("Type the URL of a GGUF model.");
  } else if (source === "file") {
    model = $("gguf-file").files[0];
    if (!model) throw new TypeError("Choose a GGUF file.");
  }
  wllamaModule ??= await import(WLLAMA_ENTRY);
  return { kind: "gguf", model, wllama: wllamaModule, ...WLLAMA };
}

// ggufName names a gguf backend's model for the status line.
function ggufName(model) {
  if (model === TOY_GGUF) return "toy model";
  if (typeof model === "string") return decodeURIComponent(new URL(model).pathname.split("/").pop());
  return model?.name ?? "file";
}

// showGGUFAvailability says whether the picked model must be downloaded.
async function showGGUFAvailability() {
  const out = $("gguf-availability");
  if ($("backend-kind").value !== "gguf") return;
  try {
    const backend = await ggufFromForm();
    const a = await LanguageModel.availability({ backend });
    out.textContent = { available: "Ready: in this page or the browser's cache.", downloadable: "It will be downloaded first.", downloading: "Downloading…" }[a] ?? `availability(): ${a}`;
  } catch (err) {
    out.textContent = err instanceof TypeError ? err.message : `${err.name}: ${err.message}`;
  }
}

// ggufMonitor feeds the progress bar from create()'s downloadprogress events.
function ggufMonitor(m) {
  const bar = $("gguf-progress");
  bar.hidden = false;
  bar.value = 0;
  m.addEventListener("downloadprogress", (e) => {
    bar.value = e.loaded;
    state.ggufProgress.push(e.loaded);
    $("backend-result").textContent = e.loaded < 1 ? `Loading the model… ${Math.round(e.loaded * 100)}%` : "Starting the model…";
  });
}

function showBackendFields() {
  const kind = $("backend-kind").value;
  $("openai-fields").hidden = kind !== "openai";
  $("gguf-fields").hidden = kind !== "gguf";
  showGGUFAvailability();
  $("scripted-info").hidden = kind !== "scripted";
  $("thinking-info").hidden = kind !== "thinking";
  $("browser-info").hidden = kind !== "browser";
}

async function applyBackend() {
  if (state.busy) return;
  const out = $("backend-result");
  out.className = "result";
  out.textContent = "Creating a session…";
  let backend = { kind: $("backend-kind").value };
  try {
    backend = await backendFromForm();
    state.ggufProgress = [];
    await switchSession({ ...state.config, backend }, state.session?.history, backend.kind === "gguf" ? ggufMonitor : undefined);
    out.className = "result ok";
    out.textContent = `Now using: ${BACKEND_LABELS[backend.kind]}.`;
    if (backend.kind === "gguf") showGGUFAvailability(); // "It will be downloaded first." no more
  } catch (err) {
    const { title: head, text } = describe(err);
    out.className = "result error";
    out.textContent = `${head}. ${text} Still using: ${BACKEND_LABELS[state.config.backend.kind]}.`;
    notice("error", `Could not switch to the ${BACKEND_LABELS[backend.kind]}`, `${text} The conversation continues with the ${BACKEND_LABELS[state.config.backend.kind]}.`);
  }
}

async function describeNative() {
  const info = $("browser-info");
  const opt = $("backend-kind").querySelector('option[value="browser"]');
  if (!state.native) {
    opt.disabled = true;
    opt.textContent = "Browser's own model (this browser has none)";
    info.textContent = "This browser has no built-in LanguageModel.";
    return;
  }
  // install() has asked it already; asking again would print Chromium's console warning
  // ("…there was not an execution config available…") a second time.
  let a = state.nativeAvailability;
  if (a === undefined) {
    try {
      a = await state.native.availability({ expectedInputs: [{ type: "text", languages: ["en"] }], expectedOutputs: [{ type: "text", languages: ["en"] }] });
    } catch (e) {
      a = `error: ${e.message}`;
    }
  }
  opt.textContent = `Browser's own model (${a})`;
  info.textContent = `This browser has a built-in LanguageModel; its availability() says "${a}".`;
}

function renderNotes() {
  const list = $("notes");
  list.replaceChildren(...notes.list.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
  $("notes-empty").hidden = notes.list.length > 0;
  $("notes-count").textContent = notes.list.length ? `(${notes.list.length})` : "";
}

function renderRules() {
  const ul = $("rules");
  for (const r of RULES) {
    if (ul.querySelector(`[data-tool="${r.tool}"][data-match="${CSS.escape(r.match)}"]`)) continue;
    const li = document.createElement("li");
    li.dataset.tool = r.tool;
    li.dataset.match = r.match;
    const kw = Object.assign(document.createElement("code"), { textContent: r.match });
    li.append(kw, ` → ${title(r.tool, byName.get(r.tool)?.annotations)}`);
    ul.append(li);
  }
  const chips = $("examples");
  for (const ex of EXAMPLES) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip while-idle";
    b.textContent = ex;
    b.addEventListener("click", () => send(ex));
    chips.append(b);
  }
}

// ---------------------------------------------------------------- history panel

const hist = { draft: null, before: null, edited: new Set() };

function summarise(text) {
  const t = text.replace(/\s+/g, " ").trim();
  try {
    const v = JSON.parse(text);
    if (Array.isArray(v)) return `[summarised: a list of ${v.length} items]`;
    if (v && typeof v === "object") {
      const keys = Object.keys(v);
      return `[summarised: an object with ${keys.length} keys: ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", …" : ""}]`;
    }
  } catch {
    // not JSON
  }
  if (t.length <= 80) return t;
  return `${t.slice(0, 60)}… [summarised from ${t.length} characters]`;
}

function openHistory() {
  if (!state.session || state.busy) return;
  hist.draft = state.session.history;
  hist.before = state.session.contextUsage;
  hist.edited.clear();
  $("recreate-result").textContent = "";
  $("recreate-result").className = "result";
  renderHistoryPanel();
  $("history-dialog").showModal();
}

function setResultText(msg, text) {
  const v = msg.content[0].value;
  if (v.errorMessage !== undefined) v.errorMessage = text;
  else v.result = [{ type: "text", value: text }];
}

function renderHistoryPanel() {
  const list = $("history-list");
  list.replaceChildren();
  hist.draft.forEach((m, i) => {
    const row = document.createElement("li");
    row.className = `hist-row role-${m.role}`;
    row.append(Object.assign(document.createElement("span"), { className: "role", textContent: m.role }));
    const body = document.createElement("div");
    body.className = "hist-body";
    const part = Array.isArray(m.content) ? m.content[0] : null;
    if ((m.role === "tool-result" || m.role === "tool-response") && part?.value) {
      const v = part.value;
      const isError = v.errorMessage !== undefined;
      body.append(Object.assign(document.createElement("div"), { className: "hist-name", textContent: `${title(v.name, annotations(v.name))}${isError ? " (error)" : ""}` }));
      const ta = document.createElement("textarea");
      ta.className = "hist-edit";
      ta.dataset.index = String(i);
      ta.value = isError ? v.errorMessage : resultText(v.result);
      ta.rows = Math.min(8, Math.max(2, ta.value.split("\n").length));
      ta.addEventListener("input", () => {
        setResultText(m, ta.value);
        hist.edited.add(i);
        row.classList.add("edited");
        renderPreview();
      });
      const sum = document.createElement("button");
      sum.type = "button";
      sum.className = "small summarise";
      sum.textContent = "Summarise";
      sum.addEventListener("click", () => {
        ta.value = summarise(ta.value);
        ta.dispatchEvent(new Event("input"));
      });
      body.append(ta, sum);
    } else if (m.role === "tool-call" && part?.value) {
      const v = part.value;
      body.textContent = `${v.name}(${JSON.stringify(v.arguments ?? {})})`;
    } else {
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.value : `[${p.type}]`)).join("");
      body.textContent = text.length > 400 ? text.slice(0, 399) + "…" : text;
    }
    row.append(body);
    list.append(row);
  });
  $("history-count").textContent = `${hist.draft.length} message${hist.draft.length === 1 ? "" : "s"}`;
  $("history-before").textContent = `${hist.before.toLocaleString("en")}`;
  renderPreview();
}

function renderPreview() {
  renderEntries($("history-preview"), entriesFromHistory(hist.draft), staticCtx);
}

function summariseAll() {
  for (const ta of $("history-list").querySelectorAll("textarea.hist-edit")) {
    const s = summarise(ta.value);
    if (s !== ta.value) {
      ta.value = s;
      ta.dispatchEvent(new Event("input"));
    }
  }
}

async function recreateFromHistory() {
  const out = $("recreate-result");
  const before = state.session.contextUsage;
  out.className = "result";
  out.textContent = "Recreating…";
  try {
    const session = await switchSession(state.config, hist.draft);
    const after = session.contextUsage;
    const pct = before ? Math.round((100 * (after - before)) / before) : 0;
    const text = `contextUsage ${before.toLocaleString("en")} → ${after.toLocaleString("en")} (${pct > 0 ? "+" : ""}${pct}%)`;
    out.className = "result ok";
    out.textContent = `Session recreated from the edited history: ${text}.`;
    out.dataset.before = String(before);
    out.dataset.after = String(after);
    rebuild(entriesFromHistory(session.history));
    notice("info", "Session recreated from the edited history", text);
    hist.draft = session.history;
    hist.before = after;
    hist.edited.clear();
    renderHistoryPanel();
  } catch (err) {
    const { title: head, text } = describe(err);
    out.className = "result error";
    out.textContent = `${head}. ${text} The old session is kept.`;
  }
}

// ---------------------------------------------------------------- boot

function showLoading(fraction, text) {
  state.loadProgress.push(fraction);
  $("loading").hidden = false;
  $("loading-bar").value = fraction;
  $("loading-text").textContent = text ?? `Downloading the language model module… ${Math.round(fraction * 100)}%`;
}

function wire() {
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("input");
    const text = input.value;
    if (!text.trim() || state.busy) return;
    input.value = "";
    input.style.height = "auto";
    send(text);
  });
  $("input").addEventListener("input", (e) => {
    const ta = e.target;
    ta.style.height = "auto";
    ta.style.height = `${ta.scrollHeight + 2}px`;
  });
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", () => state.controller?.abort(new DOMException("Stopped by the user.", "AbortError")));
  for (const r of document.querySelectorAll('input[name="loop"]')) r.addEventListener("change", applySettings);
  for (const id of ["pause", "max-calls", "on-limit", "tool-choice", "many-tools"]) $(id).addEventListener("change", applySettings);
  for (const r of document.querySelectorAll('input[name="display"]')) {
    r.addEventListener("change", () => {
      const inline = document.querySelector('input[name="display"]:checked').value === "inline";
      for (const c of document.querySelectorAll(".conversation")) c.classList.toggle("inline", inline);
    });
  }
  $("backend-kind").addEventListener("change", showBackendFields);
  for (const r of document.querySelectorAll('input[name="gguf-source"]')) r.addEventListener("change", showGGUFAvailability);
  for (const source of ["url", "file"]) {
    $(`gguf-${source}`).addEventListener("change", () => {
      document.querySelector(`input[name="gguf-source"][value="${source}"]`).checked = true;
      showGGUFAvailability();
    });
  }
  $("backend-apply").addEventListener("click", applyBackend);
  $("openai-fields").addEventListener("submit", (e) => {
    e.preventDefault();
    applyBackend();
  });
  $("history-open").addEventListener("click", openHistory);
  $("history-close").addEventListener("click", () => $("history-dialog").close());
  $("summarise-all").addEventListener("click", summariseAll);
  $("recreate").addEventListener("click", recreateFromHistory);
  $("recording-download").addEventListener("click", () => download(state.session.recording()));
  $("recording-load").addEventListener("click", () => $("recording-file").click());
  $("recording-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    let recording;
    try {
      recording = JSON.parse(await file.text());
    } catch {
      notice("error", "The recording could not be read", `${file.name} is not JSON.`);
      return;
    }
    await loadRecording(recording);
  });
  $("conversation-new").addEventListener("click", newConversation);
  $("compact").addEventListener("click", compactSession);
  $("mcp-connect").addEventListener("click", () => connectMCP(true));
  $("mcp-disconnect").addEventListener("click", () => connectMCP(false));
  $("mcp-fields").addEventListener("submit", (e) => {
    e.preventDefault();
    connectMCP(true);
  });
  $("settings-toggle").addEventListener("click", () => document.body.classList.toggle("settings-open"));
  const choice = $("tool-choice");
  for (const t of TOOLS) choice.append(new Option(`only ${title(t.name, t.annotations)}`, `tool:${t.name}`));
}

async function boot() {
  setBusy(false);
  $("boot-error").hidden = true;
  showLoading(0);
  try {
    await webmcpReady; // the tools are registered before the first session is made
    // The conversation saved before a reload comes back (keep.js), with the offline model.
    // It is read first: the first create() or restore() must follow install() at once,
    // so that it waits for the module (and fails as install() does).
    const before = await saved();
    const installing = install({ wasm: new URL("../build/langmodel.wasm", import.meta.url), backend: SCRIPTED });
    // create()'s monitor reports the module's download, as the Prompt API reports a model's.
    const monitor = (m) => m.addEventListener("downloadprogress", (e) => showLoading(e.loaded / (e.total || 1), e.loaded >= 1 ? "Starting the module…" : undefined));
    let session;
    let restored = "";
    if (before) {
      const { backendKind, ...loop } = before.config;
      const config = { ...state.config, ...loop, backend: SCRIPTED };
      try {
        session = await restoreSession(before.snapshot, config, monitor);
        state.config = config;
        restored = backendKind && backendKind !== "scripted" ? ` Its model was: ${BACKEND_LABELS[backendKind] ?? backendKind}, which the page does not keep; it goes on with the offline demo model (pick another under Model).` : "";
      } catch (err) {
        await installing; // the module's own failure is the page's, below
        console.warn("demo: the saved conversation could not be restored:", err);
      }
    }
    session ??= await createSession(state.config, undefined, monitor);
    ({ native: state.native, nativeAvailability: state.nativeAvailability } = await installing);
    state.session = session;
    keep(session, state.config);
    syncSettingsForm();
    showActiveSet();
    if (before && session.history.length) {
      for (const [id, ms] of Object.entries(before.extras?.durations ?? {})) if (Number.isFinite(ms)) state.meta.durations.set(id, ms);
      rebuild(entriesFromHistory(session.history, before.extras));
      notice("info", "Conversation restored", `${session.history.length} messages, as they were before the page was reloaded.${restored}`);
    }
    $("loading").hidden = true;
    showStatus();
    setBusy(false);
    describeNative();
    document.body.dataset.ready = "true";
    $("input").focus();
  } catch (err) {
    $("loading").hidden = true;
    const hint = err?.name === "NetworkError" ? " Is the module built? `make demo` builds it and serves this page." : "";
    $("boot-error-text").textContent = `${err?.name ?? "Error"}: ${err?.message ?? err}${hint}`;
    $("boot-error").hidden = false;
    throw err;
  }
}

wire();
renderRules();
renderNotes();
syncSettingsForm();
showBackendFields();
$("boot-retry").addEventListener("click", () => boot().catch(() => {}));

/** The page's state, for tests and curious developers (read it, don't rely on it). */
globalThis.demo = {
  ready: boot(),
  get session() {
    return state.session;
  },
  state,
  send,
  loadRecording,
  newConversation,
  entriesFromHistory,
  /** renderHistory renders session.history into a fresh element, as the live view does. */
  renderHistory(history = state.session.history) {
    const c = document.createElement("div");
    renderEntries(c, entriesFromHistory(history), staticCtx);
    return c;
  },
};
demo.ready.catch((e) => console.error("demo: could not start:", e));
