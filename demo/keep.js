// What the demo keeps: the conversation across reloads (snapshotStore with autosave,
// docs/snapshots.md) and recordings of it (backend {kind: "record"}, docs/recordings.md),
// downloaded as a file and loaded back to replay through the scripted backend.

import { snapshotStore } from "../js/language-model.js";

const KEY = "chat";
const CONFIG = "langmodel-demo-config";
// What the page showed and the history does not hold (keepExtras), beside the snapshot.
const EXTRAS = "langmodel-demo-extras";
// Without IndexedDB (or storage) nothing survives a reload, and the page works as before.
let store = null;
try {
  store = snapshotStore("langmodel-demo");
} catch {}
let stop = () => {};

/**
 * saved returns the conversation the page saved before the reload, {snapshot, config}, or
 * null. The model is not kept (an API key, a model file): config has the loop settings
 * and backendKind, the kind the conversation had.
 */
export async function saved() {
  if (!store) return null;
  try {
    const snapshot = await store.load(KEY);
    if (!snapshot) return null;
    return { snapshot, config: JSON.parse(localStorage.getItem(CONFIG) ?? "{}"), extras: JSON.parse(localStorage.getItem(EXTRAS) ?? "null") ?? undefined };
  } catch (e) {
    console.warn("demo: the saved conversation could not be read:", e);
    return null;
  }
}

/** keep saves session now and after every step until the next keep or forget. */
export function keep(session, config) {
  stop();
  if (!store) return;
  const { backend, ...loop } = config;
  try {
    localStorage.setItem(CONFIG, JSON.stringify({ ...loop, backendKind: backend.kind }));
  } catch {}
  const onerror = (e) => console.warn("demo: the conversation could not be saved:", e);
  // The previous session's autosave, stopped above, writes nothing more (a session
  // swapped for session.compact()'s is saved after it, never before).
  stop = store.autosave(KEY, session, { onerror });
}

/**
 * keepExtras saves what the conversation showed that its history does not hold, for the
 * view rebuilt after a reload (view.js entriesFromHistory): {thinking: {index: text}, the
 * model's reasoning before the history's message at index; children: {"index/callID":
 * [Call]}, the calls an agent tool's child session ran, under the call at index;
 * durations: {callID: ms}, how long each call took, shown on its card}. The
 * children are a child session's, which no snapshot holds (it is gone once it answered);
 * the reasoning is the model's, which the history keeps only under keepReasoning, and
 * then sends back to the model.
 */
export function keepExtras(extras) {
  try {
    localStorage.setItem(EXTRAS, JSON.stringify(extras));
  } catch {}
}

/** forget drops the saved conversation. */
export async function forget() {
  stop();
  stop = () => {};
  try {
    localStorage.removeItem(EXTRAS);
  } catch {}
  await store?.delete(KEY);
}

/** recordable is the backend that records backend, for the kinds a recording can replay. */
export function recordable(backend) {
  return backend.kind === "scripted" || backend.kind === "openai" ? { kind: "record", backend } : backend;
}

/** download offers a recording as a JSON file. */
export function download(recording, name = "conversation.recording.json") {
  const url = URL.createObjectURL(new Blob([JSON.stringify(recording, null, 2)], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * replayPlan reads a recording back: the history it started from (initialPrompts) and
 * the user's messages, in order, each the text of a user message that a step's request
 * has and the one before it did not. Sending them to a session whose backend is the
 * recording replays the conversation. A TypeError says what is wrong with a file that
 * is not a recording.
 */
export function replayPlan(recording) {
  if (recording?.kind !== "scripted" || !Array.isArray(recording.turns) || !recording.turns.every((t) => Array.isArray(t?.request?.messages))) {
    throw new TypeError("This file is not a recording: it has no turns with a request (docs/recordings.md).");
  }
  const text = (m) => (typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.value : "")).join(""));
  const first = recording.turns[0]?.request.messages ?? [];
  const lastUser = first.findLastIndex((m) => m.role === "user");
  const initialPrompts = lastUser < 0 ? first : first.slice(0, lastUser);
  const prompts = [];
  let seen = initialPrompts.length;
  for (const t of recording.turns) {
    const msgs = t.request.messages;
    for (const m of msgs.slice(seen)) if (m.role === "user" && text(m)) prompts.push(text(m));
    seen = msgs.length;
  }
  return { initialPrompts, prompts };
}
