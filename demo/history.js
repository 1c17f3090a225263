// The history editor: session.history shown message by message, tool results edited or
// summarised, the transcript rendered from the edited history, and the session recreated
// from it (initialPrompts) with contextUsage before and after.

import { annotations, notice, rebuild, staticCtx } from "./live.js";
import { switchSession } from "./sessions.js";
import { $, state } from "./state.js";
import { describe } from "./status.js";
import { entriesFromHistory, renderEntries, resultText, title } from "./view.js";

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

export function openHistory() {
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

export function summariseAll() {
  for (const ta of $("history-list").querySelectorAll("textarea.hist-edit")) {
    const s = summarise(ta.value);
    if (s !== ta.value) {
      ta.value = s;
      ta.dispatchEvent(new Event("input"));
    }
  }
}

export async function recreateFromHistory() {
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
