// The session's life: create() and restore() options from the page's settings, the
// session's events shown live (watch), a session replacing another (a settings change,
// an edited history, an MCP server, a recording replayed, Compact, a new conversation),
// and the page's tools registered with WebMCP before the first session.

import { LanguageModel } from "../js/language-model.js";
import { send } from "./chat.js";
import { approveClosed, executeClosed, runWebMCP } from "./closedloop.js";
import { forget, keep, recordable, replayPlan } from "./keep.js";
import { formingCall, foundTools, keyOf, liveCall, liveThinking, notice, rebuild, saveExtras, setCall, showActiveSet, update } from "./live.js";
import { BACKEND_LABELS, describe, showStatus } from "./status.js";
import { byName, many, modelContext, PINNED, RESEARCHER, state, TOOLS } from "./state.js";
import { applyResult, entriesFromHistory } from "./view.js";
import { announce, registerTools, settled } from "./webmcp.js";

// webmcpReady: the page's tools registered with its WebMCP model context, where it has
// one; the closed loop's tools come from there once registered.
export const webmcpReady = modelContext
  ? registerTools(modelContext, TOOLS, runWebMCP).then(
      () => true,
      (e) => (console.warn("demo: the tools could not be registered with WebMCP:", e), false),
    )
  : Promise.resolve(false);

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
    for (const { name, description, inputSchema, annotations, run } of many()) tools.push({ name, description, inputSchema, annotations, execute: (args) => run(args) });
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

export async function createSession(config, initialPrompts, monitor) {
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
export async function restoreSession(snapshot, config, monitor) {
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
export async function switchSession(config, initialPrompts, monitor) {
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
export async function loadRecording(recording) {
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
export async function compactSession() {
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

// newConversation starts over: a session with no history, and nothing saved.
export async function newConversation() {
  if (state.busy) return;
  await forget();
  await switchSession(state.config, undefined);
  state.meta.durations.clear();
  rebuild([]);
}
