// The live view of the conversation: its entries as they come (text, thinking, each tool
// call as a card, found by its callID and agent path), notices, the buttons on a call
// that waits for the user (ask), and what the view shows that the history does not keep
// (saveExtras). view.js renders each entry.

import { keepExtras } from "./keep.js";
import { $, byName, manyCount, PINNED, state } from "./state.js";
import { renderEntry, resultText } from "./view.js";

export const annotations = (name) => byName.get(name)?.annotations ?? state.seenAnnotations.get(name);

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
export const staticCtx = { annotations, meta: state.meta };

const conv = $("conversation");

function nearBottom() {
  return conv.scrollHeight - conv.scrollTop - conv.clientHeight < 80;
}

export function push(entry) {
  const stick = nearBottom();
  state.entries.push(entry);
  entry.node = renderEntry(entry, liveCtx);
  conv.append(entry.node);
  if (stick) conv.scrollTop = conv.scrollHeight;
  return entry;
}

export function update(entry) {
  const stick = nearBottom();
  const node = renderEntry(entry, liveCtx);
  entry.node?.replaceWith(node);
  entry.node = node;
  if (stick) conv.scrollTop = conv.scrollHeight;
}

/** rebuild shows entries (from a history) as the whole conversation. */
export function rebuild(entries) {
  state.entries = [];
  state.calls.clear();
  conv.replaceChildren();
  for (const e of entries) {
    push(e);
    if (e.kind === "calls") for (const call of e.calls) state.calls.set(call.callID, { entry: e, call });
  }
}

export function notice(level, title, text, actions) {
  return push({ kind: "notice", level, title, text, actions });
}

export function liveText(chunk) {
  let entry = state.entries.at(-1);
  if (entry?.kind !== "assistant" || entry.failed) entry = push({ kind: "assistant", text: "" });
  entry.text += chunk;
  update(entry);
}

// foundTools adds the tools a search found (its result lists them, "- name(params): …")
// to the active set shown in the settings.
export function foundTools(result) {
  for (const m of resultText(result ?? []).matchAll(/^- ([A-Za-z0-9_.-]+)\(/gm)) if (!state.found.includes(m[1])) state.found.push(m[1]);
  showActiveSet();
}

export function showActiveSet() {
  const on = state.config.loop === "closed" && state.config.manyTools;
  $("active-set").hidden = !on;
  const found = state.found.length ? state.found.join(", ") : "nothing yet";
  $("active-set").textContent = on ? `Active set: search_tools · pinned: ${PINNED.join(", ")} · found: ${found} · ${manyCount()} more tools by search` : "";
}

// keyOf keys a call by the agent calls that led to it (an event's detail.path) and its
// own callID: call IDs are a session's own, and a child's first call is call_1 too.
export const keyOf = (callID, path) => (path?.length ? path.map((c) => c.callID).join("/") + "/" : "") + callID;

/**
 * liveCall shows a call (once, however it is announced) and returns {entry, call}. A
 * child session's call (path: the agent calls above it) goes inside its agent call's card.
 */
export function liveCall(c, st, path) {
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
export function formingCall({ callID, name, argumentsText, arguments: partial, dropped }) {
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
export function liveThinking(text) {
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
export function saveExtras() {
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

export function setCall(ref, fields) {
  Object.assign(ref.call, fields);
  update(ref.entry);
}

/** ask shows buttons on a call and resolves with the user's decision. */
export function ask(ref, st, signal) {
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
