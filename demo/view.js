// The conversation view: one model of what is on screen (entries), built either live from
// a session's stream and events or from session.history, and one render function for
// both, so that a transcript rendered from the history looks exactly as the live view
// did. Every string from a model or a tool goes through textContent or the markdown
// renderer (which uses textContent too): nothing here parses HTML.
//
// An entry is one of
//   {kind: "user" | "system" | "assistant", text}
//   {kind: "calls", calls: [Call]}      the tool calls between two texts, in order
//   {kind: "notice", level, title, text, actions}   page messages (errors), live only
//   {kind: "thinking", text, at}      what the model thought (reasoning events), before the history's message at (keep.js keepExtras)
// and may carry failed: true (a turn that failed and so is not in the history).
// A Call is {callID, name, args, argsText, state, progress, result, error, children}
// where state is "forming" (the model is still writing it; argsText: its arguments so far
// where they do not read as an object yet) | "requested" | "paused" | "approval" |
// "running" | "success" | "error" | "unanswered" | "stopped", result is an array of
// result parts, error a string, and children the calls of the session an agent tool ran.

import { renderMarkdown } from "./markdown.js";

/** title is a tool's friendly title: annotations.title, else from the name. */
export function title(name, annotations) {
  if (annotations?.title) return annotations.title;
  if (name === "search_tools") return "Tool search"; // the engine's own (docs/small-windows.md)
  const words = String(name)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_\-.]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (words.length === 0) return String(name);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(" ");
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function clip(s, n) {
  s = String(s).replace(/\s+/g, " ").trim();
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

function json(v, indent) {
  try {
    return JSON.stringify(v, null, indent) ?? String(v);
  } catch {
    return String(v);
  }
}

/** resultText is a result's parts as text: text parts as they are, values as JSON. */
export function resultText(parts) {
  if (typeof parts === "string") return parts;
  if (!Array.isArray(parts)) return json(parts, 2);
  return parts
    .map((p) => {
      if (p?.type === "text") return String(p.value);
      if (p?.type === "object") return json(p.value, 2);
      return `[${p?.type ?? "?"}]`;
    })
    .join("\n");
}

// resultParts reads what a toolresult event or a history message holds.
function resultOf(r) {
  if (!r) return {};
  if (r.errorMessage !== undefined) return { error: String(r.errorMessage) };
  const result = typeof r.result === "string" ? [{ type: "text", value: r.result }] : r.result;
  return { result };
}

/** applyResult sets a call's final state from a tool result (success or error). */
export function applyResult(call, r) {
  const { error, result } = resultOf(r);
  call.progress = undefined;
  if (error !== undefined) {
    call.state = "error";
    call.error = error;
  } else {
    call.state = "success";
    call.result = result;
  }
}

function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? [])
    .filter((p) => p?.type === "text")
    .map((p) => String(p.value))
    .join("");
}

/** entriesFromHistory turns session.history (draft-PR form, or Chrome's) into entries. */
export function entriesFromHistory(history, extras = {}) {
  const entries = [];
  const calls = new Map();
  const last = () => entries.at(-1);
  // at is the index of the call's message: an agent call's children are kept under it.
  const addCall = (v, at) => {
    if (last()?.kind !== "calls") entries.push({ kind: "calls", calls: [] });
    const call = { callID: v.callID ?? v.callId, name: v.name, args: v.arguments ?? {}, state: "unanswered", at };
    const children = extras?.children?.[at + "/" + call.callID];
    if (Array.isArray(children)) call.children = children;
    last().calls.push(call);
    calls.set(call.callID, call);
  };
  const addResult = (v) => {
    const call = calls.get(v.callID ?? v.callId);
    if (call) applyResult(call, v);
  };
  history.forEach((m, at) => {
    const thought = extras?.thinking?.[at];
    if (typeof thought === "string") entries.push({ kind: "thinking", text: thought, at });
    const parts = typeof m.content === "string" ? [{ type: "text", value: m.content }] : (m.content ?? []);
    for (const p of parts) {
      if (p.type === "tool-call") addCall(p.value, at);
      else if (p.type === "tool-result" || p.type === "tool-response") addResult(p.value);
    }
    const text = textOf(m.content);
    if (m.role === "tool-call" || m.role === "tool-result" || m.role === "tool-response") return;
    if (text === "" && parts.length > 0) return;
    if (m.role === "assistant") {
      // Consecutive assistant texts stream as one text live.
      if (last()?.kind === "assistant") last().text += text;
      else entries.push({ kind: "assistant", text });
    } else if (m.role === "system") {
      entries.push({ kind: "system", text });
    } else {
      entries.push({ kind: "user", text });
    }
  });
  return entries;
}

// ---------------------------------------------------------------- rendering

const STATUS = {
  forming: "writing…",
  requested: "queued",
  paused: "paused: run it or refuse it",
  approval: "needs your approval",
  running: "running…",
  success: "done",
  error: "failed",
  unanswered: "not run",
  stopped: "stopped",
};

function progressOf(v) {
  if (typeof v === "number") return { fraction: v };
  if (typeof v === "string") return { message: v };
  if (v && typeof v === "object") {
    const fraction = typeof v.fraction === "number" ? v.fraction : typeof v.loaded === "number" && v.total ? v.loaded / v.total : undefined;
    const message = typeof v.message === "string" ? v.message : fraction === undefined ? json(v) : undefined;
    return { fraction, message };
  }
  return {};
}

function argsBrief(args) {
  const keys = Object.keys(args ?? {});
  if (keys.length === 0) return "";
  return clip(keys.map((k) => (keys.length === 1 ? json(args[k]) : `${k}: ${json(args[k])}`)).join(", "), 70);
}

function statusText(call, meta) {
  if (call.state === "error" && /^the user (declined|refused)/.test(call.error ?? "")) return "declined";
  let s = STATUS[call.state] ?? call.state;
  const d = call.nested ? call.duration : meta?.durations?.get(call.callID); // call IDs are a session's own
  if (call.state === "success" && d !== undefined) s += ` · ${d < 10 ? d.toFixed(1) : Math.round(d)} ms`;
  return s;
}

function button(text, cls, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// renderCall renders one call: a card, or a compact row inside a group.
function renderCall(call, ctx, compact) {
  const node = el("div", `call state-${call.state}${compact ? " compact" : ""}${call.expanded ? " expanded" : ""}${call.builtin ? " builtin" : ""}`);
  node.dataset.callId = call.callID;
  node.dataset.tool = call.name;
  const head = el("div", "call-head");
  head.append(el("span", "call-dot"));
  if (!compact) head.append(el("span", "call-title", title(call.name, ctx.annotations?.(call.name))));
  const brief = call.argsText ? clip(call.argsText, 70) : argsBrief(call.args);
  if (brief) head.append(el("span", "call-brief", brief));
  head.append(el("span", "call-status", statusText(call, ctx.meta)));
  head.addEventListener("click", () => {
    call.expanded = !call.expanded;
    node.classList.toggle("expanded", call.expanded);
  });
  node.append(head);

  const body = el("div", "call-body");
  const keys = Object.keys(call.args ?? {});
  if (keys.length > 0 && !compact) {
    const dl = el("dl", "call-args");
    for (const k of keys) dl.append(el("dt", "", k), el("dd", "", json(call.args[k])));
    body.append(dl);
  }
  if (call.argsText && !compact) body.append(el("pre", "call-args-text", call.argsText));
  if (call.children?.length) {
    const sub = el("div", "call-children");
    for (const c of call.children) sub.append(renderCall(c, ctx, false));
    body.append(sub);
  }
  if (call.state === "running" && call.progress !== undefined) {
    const { fraction, message } = progressOf(call.progress);
    const p = el("div", "call-progress");
    if (fraction !== undefined) {
      const bar = el("progress");
      bar.max = 1;
      bar.value = Math.max(0, Math.min(1, fraction));
      p.append(bar);
    }
    if (message !== undefined) p.append(el("span", "", clip(message, 120)));
    body.append(p);
  }
  const acts = ctx.actions?.(call);
  if (acts?.length) {
    const row = el("div", "call-actions");
    for (const a of acts) row.append(button(a.label, a.cls, a.onClick));
    body.append(row);
  }
  if (call.state === "success") {
    const text = resultText(call.result);
    const d = el("details", "call-result");
    d.open = Boolean(call.open);
    d.addEventListener("toggle", () => (call.open = d.open));
    const sum = el("summary");
    sum.append(el("span", "label", "Result"), el("span", "preview", clip(text, 90)));
    d.append(sum, el("pre", "", text));
    body.append(d);
  }
  if (call.state === "error") body.append(el("div", "call-error", call.error));
  if (body.childNodes.length > 0) node.append(body);
  return node;
}

// groups splits calls into runs of consecutive calls of one tool.
function groups(calls) {
  const out = [];
  for (const c of calls) {
    if (out.at(-1)?.[0].name === c.name) out.at(-1).push(c);
    else out.push([c]);
  }
  return out;
}

function renderCalls(entry, ctx) {
  const node = el("div", "calls");
  for (const g of groups(entry.calls)) {
    if (g.length === 1) {
      node.append(renderCall(g[0], ctx, false));
      continue;
    }
    // Repeated calls of one tool: one card with a compact row per call.
    const key = g[0].callID;
    entry.groupsOpen ??= {};
    const group = el("div", "call-group" + (entry.groupsOpen[key] ? " expanded" : ""));
    group.dataset.tool = g[0].name;
    const head = el("div", "group-head");
    const done = g.filter((c) => c.state === "success").length;
    const failed = g.filter((c) => c.state === "error").length;
    const busy = g.length - done - failed;
    const tally = [done && `${done} done`, failed && `${failed} failed`, busy && `${busy} pending`].filter(Boolean).join(", ");
    head.append(el("span", "call-dot"), el("span", "call-title", title(g[0].name, ctx.annotations?.(g[0].name))), el("span", "count", `×${g.length}`), el("span", "call-status", tally));
    head.addEventListener("click", () => {
      entry.groupsOpen[key] = !entry.groupsOpen[key];
      group.classList.toggle("expanded", entry.groupsOpen[key]);
    });
    group.classList.add(failed ? "has-error" : busy ? "has-busy" : "all-done");
    group.append(head);
    const rows = el("div", "group-rows");
    for (const c of g) rows.append(renderCall(c, ctx, true));
    group.append(rows);
    node.append(group);
  }
  return node;
}

/**
 * renderEntry renders one entry. ctx: {annotations(name), meta: {durations: Map},
 * actions(call) → [{label, cls, onClick}]}. The live view and the transcript both
 * render with it.
 */
export function renderEntry(entry, ctx = {}) {
  let node;
  switch (entry.kind) {
    case "user":
      node = el("div", "msg user");
      node.append(el("div", "bubble", entry.text));
      break;
    case "system":
      node = el("div", "msg system");
      node.append(el("div", "bubble", entry.text));
      break;
    case "assistant": {
      node = el("div", "msg assistant");
      const b = el("div", "bubble md");
      b.append(renderMarkdown(entry.text));
      node.append(b);
      break;
    }
    case "thinking": {
      node = el("details", "thinking");
      node.open = Boolean(entry.open);
      node.addEventListener("toggle", () => (entry.open = node.open));
      node.append(el("summary", "", "Thinking"), el("div", "thinking-text", entry.text));
      break;
    }
    case "calls":
      node = el("div", "msg tools");
      node.append(renderCalls(entry, ctx));
      break;
    case "notice": {
      node = el("div", `notice ${entry.level ?? "info"}`);
      node.setAttribute("role", entry.level === "error" ? "alert" : "status");
      if (entry.title) node.append(el("strong", "", entry.title));
      if (entry.text) node.append(el("span", "", entry.text));
      for (const a of entry.actions ?? []) node.append(button(a.label, a.cls ?? "small", a.onClick));
      break;
    }
    default:
      node = el("div", "msg", String(entry.kind));
  }
  if (entry.failed) {
    node.classList.add("failed");
    node.title = "This turn failed: it is not part of the session's history.";
  }
  return node;
}

/** renderEntries renders entries into container, replacing what it held. */
export function renderEntries(container, entries, ctx) {
  container.replaceChildren(...entries.map((e) => renderEntry(e, ctx)));
}
