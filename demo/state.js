// The page's state, shared by its modules: its tools (tools.js) and the offline model's
// rules, the session shown and the options it was made with, and what the live view
// holds. demo.state (app.js) is this object.

import { makeTools, manyTools, researcher, RULES } from "./tools.js";

export const $ = (id) => document.getElementById(id);

// notes are what add_note and clear_notes work on; app.js sets changed to show them.
export const notes = { list: [], changed: () => {} };
export const TOOLS = makeTools({ notes, base: new URL(".", import.meta.url) });
export const byName = new Map(TOOLS.map((t) => [t.name, t]));

export const SCRIPTED = { kind: "scripted", rules: RULES };
export const RESEARCHER = researcher(byName);
let MANY; // manyTools(), made the first time the mode is on
// PINNED are the tools tool search always offers in many-tools mode: the page's own and
// the researcher, so that every rule and example works as without the 300 (the model
// searches only for the generated ones). A WebMCP context's tools have the same names.
export const PINNED = [...TOOLS.map((t) => t.name), RESEARCHER.name];

/** many returns the tools of many-tools mode, made the first time it is on. */
export const many = () => (MANY ??= manyTools());
/** manyCount is how many tools many-tools mode adds: 0 until it was first on. */
export const manyCount = () => MANY?.length ?? 0;

export const state = {
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
// tools come from there once registered (sessions.js webmcpReady).
export const modelContext = document.modelContext;
