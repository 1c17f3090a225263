// Sessions that survive a reload: session.snapshot() and LanguageModel.restore() (the
// snapshot's format and its checks; the engine restores the transcript, wasm/snapshot.go),
// and snapshotStore(), which keeps snapshots in IndexedDB and can save one after every
// step. The format is docs/snapshots.md; every version ever shipped must still restore
// (internal/integration_test/wazero/testdata/snapshots/).

import { AGENT_SCHEMA, agentAnnotations } from "./agents.js";
import { keptApprovals } from "./approvals.js";
import { microtask } from "./microtask.js";
import { packText } from "./pack.js";

/** The version snapshot() writes. restore() takes every version up to it. */
export const SNAPSHOT_VERSION = 4;

// snapshotOf builds a snapshot from what the session knows. data is the session's wire
// options (webidl.js wireOptions): the backend, the stash ids and initialPrompts stay out.
// callsOf(pending) is the channel's: the calls running or asking approval among pending.
// calls holds the messages of history that may hold tool calls and results, in order (all
// but those of one text part: channel.js historyOf). approvals are the decisions
// remembered (approvals.js), as the engine described each declaration. activeTools names
// tool search's active set (undefined when the session does not search: then absent).
export function snapshotOf(data, history, calls, usage, spent, contextWindow, initial, callsOf, approvals, activeTools) {
  const options = {};
  for (const k of ["expectedInputs", "expectedOutputs", "samplingMode", "temperature", "topK", "toolChoice", "keepReasoning", "compactOnOverflow"]) {
    if (data[k] !== undefined && data[k] !== null) options[k] = data[k];
  }
  if (Array.isArray(data.tools)) {
    options.tools = data.tools.map(({ name, description, inputSchema, annotations, hasExecute }) => {
      const t = { name, description, inputSchema, hasExecute };
      if (annotations !== undefined && annotations !== null) t.annotations = annotations;
      return t;
    });
  }
  if (data.toolUseConfig) {
    const { approve, ...use } = data.toolUseConfig;
    options.toolUseConfig = { ...use, approve: approve > 0 };
  }
  // The calls still waiting for an answer: every call without a result.
  const pending = new Set();
  for (const m of calls) {
    for (const p of m.content) {
      if (p.type === "tool-call") pending.add(p.value.callID);
      else if (p.type === "tool-result" || p.type === "tool-response") pending.delete(p.value.callID);
    }
  }
  const asked = callsOf(pending);
  return {
    version: SNAPSHOT_VERSION,
    options,
    contextWindow,
    contextUsage: usage,
    usage: spent,
    initial,
    history,
    pending: [...pending],
    running: asked.running,
    approving: asked.approving,
    approvals,
    ...(Array.isArray(activeTools) ? { activeTools: [...activeTools] } : {}),
  };
}

function dataError(what) {
  return new DOMException(`LanguageModel.restore(): ${what}`, "DataError");
}

// canonical is JSON with object keys sorted: two schemas are the same whatever order
// their keys were written in.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

// restoreOptions checks a snapshot against restore()'s options and returns create()'s
// options, the create request's restore field and the history packed (pack.js) or null.
// A snapshot that is not one is a DataError; one of a later version than this module
// knows, NotSupportedError; tools that are not the ones saved (by name, description,
// schema, annotations and whether each has execute), or no approve for a session that
// had one, TypeError: the restored session would not be the one saved.
export function restoreOptions(snapshot, options) {
  if (typeof snapshot === "string") {
    try {
      snapshot = JSON.parse(snapshot);
    } catch {
      throw dataError("the snapshot is a string, and not JSON");
    }
  }
  if (snapshot === null || typeof snapshot !== "object" || Array.isArray(snapshot)) throw dataError("the snapshot is not an object");
  const v = snapshot.version;
  if (!Number.isInteger(v) || v < 1) throw dataError("the snapshot has no version");
  if (v > SNAPSHOT_VERSION) {
    throw new DOMException(`LanguageModel.restore(): snapshot version ${v} is newer than this module's (${SNAPSHOT_VERSION}); restore it with the module that saved it, or a later one`, "NotSupportedError");
  }
  const { options: saved, history, initial, contextUsage, running, usage } = snapshot;
  if (saved === null || typeof saved !== "object") throw dataError("the snapshot has no options");
  if (!Array.isArray(history)) throw dataError("the snapshot's history is not an array");
  if (!Number.isInteger(initial) || !Number.isInteger(contextUsage) || !Array.isArray(running)) {
    throw dataError("the snapshot's initial, contextUsage or running is missing");
  }

  const given = options.tools === undefined ? [] : [...options.tools];
  const want = saved.tools ?? [];
  const byName = new Map();
  for (const t of given) byName.set(t?.name, t);
  const names = (list) => list.map((t) => t?.name).sort().join(", ") || "none";
  if (given.length !== want.length || want.some((t) => !byName.has(t.name))) {
    throw new TypeError(`LanguageModel.restore(): the snapshot's tools are ${names(want)}, and the tools given are ${names(given)}`);
  }
  for (const w of want) {
    const t = byName.get(w.name);
    // An agent tool (js/agents.js) was saved as the face made it: an execute, and the task's schema.
    const agent = t.agent !== undefined;
    const hasExecute = agent || typeof t.execute === "function";
    if (hasExecute !== w.hasExecute) {
      throw new TypeError(`LanguageModel.restore(): tool ${w.name} ${w.hasExecute ? "had" : "had no"} execute when the snapshot was taken`);
    }
    for (const k of ["description", "inputSchema", "annotations"]) {
      const given = !agent || k === "description" ? t[k] : k === "inputSchema" ? AGENT_SCHEMA : agentAnnotations(t);
      if (canonical(given) !== canonical(w[k])) throw new TypeError(`LanguageModel.restore(): tool ${w.name}'s ${k} is not the one in the snapshot`);
    }
  }

  if (saved.toolUseConfig?.approve === true && typeof options.toolUseConfig?.approve !== "function") {
    // Calls would run unasked that the saved session asked about.
    throw new TypeError("LanguageModel.restore(): the snapshot's session asked toolUseConfig.approve before each call; pass one");
  }
  // The history goes packed as it is (pack.js), without the WebIDL reading of each
  // message that a page's initialPrompts get (webidl.js): the module wrote it, and the
  // engine checks every message it reads (docs/snapshots.md "Speed"). Only a history that
  // is no JSON (a BigInt, a cycle) crosses as create()'s initialPrompts, to be refused by
  // name.
  const packed = packText(history);
  const create = { ...saved, tools: options.tools, initialPrompts: packed ? undefined : history };
  delete create.toolUseConfig;
  if (saved.toolUseConfig) {
    const { approve, ...use } = saved.toolUseConfig;
    create.toolUseConfig = { ...use, approve: options.toolUseConfig?.approve };
  } else if (options.toolUseConfig !== undefined) {
    create.toolUseConfig = { approve: options.toolUseConfig?.approve };
  }
  // An agent tree's limits are the face's, not saved: given again, as approve is.
  for (const k of ["maxDepth", "maxTotalToolCalls"]) {
    const v = options.toolUseConfig?.[k];
    if (v !== undefined) create.toolUseConfig[k] = v;
  }
  for (const k of ["backend", "signal", "monitor", "mcpServers"]) if (options[k] !== undefined) create[k] = options[k];
  const runningIDs = {};
  for (const id of running) runningIDs[String(id)] = true;
  const restore = { initial, usage: contextUsage, running: runningIDs };
  // session.usage (version 2 on): a version 1 snapshot's session starts from nothing.
  if (usage !== null && typeof usage === "object") {
    restore.totals = {};
    for (const k of ["inputTokens", "outputTokens", "steps", "estimatedSteps", "cachedTokens"]) {
      if (k === "cachedTokens" && usage[k] === undefined) continue; // before it was kept: none
      if (!Number.isSafeInteger(usage[k]) || usage[k] < 0) throw dataError(`the snapshot's usage.${k} is not a whole number`);
      restore.totals[k] = usage[k];
    }
  }
  // Tool search's active set (version 4 on): its tools are active again, those that still
  // fit the share; a name that is no tool of the session is skipped, as a pinned one is.
  const active = snapshot.activeTools;
  if (active !== undefined) {
    if (!Array.isArray(active) || active.some((n) => typeof n !== "string")) throw dataError("the snapshot's activeTools is not a list of tool names");
    restore.active = active;
  }
  // The remembered decisions (version 3 on) come back only when the page says the
  // snapshot is its own (keepApprovals: true), and only to a session that asks approve: a
  // snapshot is input, and one from elsewhere must grant nothing (docs/security.md
  // "Approvals remembered").
  const keep = options.keepApprovals;
  if (keep !== undefined && typeof keep !== "boolean") throw new TypeError("LanguageModel.restore(): keepApprovals must be a boolean");
  const approvals = keep && typeof options.toolUseConfig?.approve === "function" ? keptApprovals(snapshot.approvals, dataError) : [];
  return { create, restore, packed, approvals };
}

// Watchers: functions called when a session's snapshot may have changed (a step ended,
// a call started, a request settled); snapshotStore's autosave is one.
const watchers = new WeakMap();

export function changed(session) {
  const fns = watchers.get(session);
  if (fns) for (const fn of fns) fn();
}

// changedSoon calls changed(session) in a microtask, if anything watches the session.
export function changedSoon(session) {
  if (watchers.has(session)) microtask(() => changed(session));
}

function watch(session, fn) {
  let fns = watchers.get(session);
  if (!fns) watchers.set(session, (fns = new Set()));
  fns.add(fn);
  return () => fns.delete(fn);
}

const STORE = "snapshots";

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/**
 * snapshotStore(name) keeps snapshots in IndexedDB (database name, default
 * "language-model-snapshots"), by key: save, load, list, delete, and autosave, which saves
 * a session's snapshot after every step (a model step that called tools, a call starting,
 * a prompt or append settling), so that a reload mid-loop loses at most the step in flight.
 */
export function snapshotStore(name = "language-model-snapshots") {
  if (typeof indexedDB === "undefined") throw new DOMException("snapshotStore() needs IndexedDB, which this environment does not have.", "NotSupportedError");
  let db;
  const open = () => {
    if (!db) {
      const r = indexedDB.open(String(name), 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      db = request(r);
    }
    return db;
  };
  const run = async (mode, fn) => {
    const tx = (await open()).transaction(STORE, mode);
    const result = request(fn(tx.objectStore(STORE)));
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = tx.onabort = () => reject(tx.error);
    });
    return result;
  };
  const snap = (v) => (v !== null && typeof v === "object" && typeof v.snapshot === "function" ? v.snapshot() : v);
  return {
    /** Saves a snapshot, or a session's snapshot taken now, under key. */
    save: (key, value) => {
      const json = JSON.stringify(snap(value)); // taken now, synchronously
      return run("readwrite", (s) => s.put(json, key)).then(() => undefined);
    },
    /** The snapshot saved under key, or undefined. */
    load: async (key) => {
      const json = await run("readonly", (s) => s.get(key));
      return json === undefined ? undefined : JSON.parse(json);
    },
    list: () => run("readonly", (s) => s.getAllKeys()),
    delete: (key) => run("readwrite", (s) => s.delete(key)).then(() => undefined),
    /**
     * Saves session's snapshot under key now and after every step, until the returned
     * function is called or the session is destroyed. Each save takes the snapshot when
     * the step ends; saves are written in order, and one waiting for the one before is
     * replaced by the next. onerror (default console.error) hears failed saves.
     */
    autosave(key, session, { onerror = (e) => console.error("language-model: autosave:", e) } = {}) {
      let writing = null;
      let next = null;
      const write = () => {
        const json = next;
        next = null;
        writing = run("readwrite", (s) => s.put(json, key))
          .catch(onerror)
          .then(() => {
            writing = null;
            if (next !== null) write();
          });
      };
      const save = () => {
        try {
          next = JSON.stringify(session.snapshot());
        } catch {
          stop(); // destroyed
          return;
        }
        if (!writing) write();
      };
      // A listener makes the engine send toolcall events, on which session.js says the
      // snapshot changed (the engine sends a session only the events it listens for).
      const onCall = () => {};
      session.addEventListener("toolcall", onCall);
      const unwatch = watch(session, save);
      // Stopping drops a save still waiting for the one being written: a page that stops
      // one autosave and starts another on the same key (a session swapped for its
      // compacted or restored successor) must not have the old snapshot land after the
      // new one's. The write under way is in an IndexedDB transaction begun before any of
      // the new autosave's, so it lands first.
      const stop = () => {
        unwatch();
        next = null;
        session.removeEventListener("toolcall", onCall);
      };
      save();
      return stop;
    },
  };
}
