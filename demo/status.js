// What the page says of itself beside the conversation: the header's status line (model,
// loop, context used), the step line, the busy state of the controls, and an error in
// words for a notice (describe).

import { ggufName } from "./gguf.js";
import { $, state } from "./state.js";

export function setBusy(busy) {
  state.busy = busy;
  document.body.dataset.busy = String(busy);
  $("send").disabled = busy || !state.session;
  $("stop").disabled = !busy;
  for (const e of document.querySelectorAll(".while-idle")) e.disabled = busy || !state.session;
}

export function setStep(text) {
  $("step").textContent = text;
  $("step").hidden = !text;
}

export const BACKEND_LABELS = { scripted: "Offline demo model", thinking: "Thinking demo model", custom: "Thinking demo model", openai: "OpenAI-compatible", browser: "Browser's own model", gguf: "In-page model" };

export function showStatus() {
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
export function describe(err) {
  const name = err?.name ?? "Error";
  const msg = err?.message ?? String(err);
  let [head, hint] = FAILURES[name] ?? [`${name}`, ""];
  if (name === "OperationError" && /maxToolCalls/.test(msg)) head = "Tool call limit reached";
  if (name === "AbortError") return { title: head, text: hint };
  return { title: head, text: `${hint}${name}: ${msg}` };
}
