// The settings panel: the loop settings (a change creates the session again from its
// history), the model picked and applied, and what the browser's own model says of itself.

import { ggufFromForm, ggufMonitor, showGGUFAvailability } from "./gguf.js";
import { notice } from "./live.js";
import { switchSession } from "./sessions.js";
import { $, SCRIPTED, state } from "./state.js";
import { BACKEND_LABELS, describe } from "./status.js";
import { thinkingBackend } from "./thinking.js";

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

export function syncSettingsForm() {
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
export async function applySettings() {
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

export function showBackendFields() {
  const kind = $("backend-kind").value;
  $("openai-fields").hidden = kind !== "openai";
  $("gguf-fields").hidden = kind !== "gguf";
  showGGUFAvailability();
  $("scripted-info").hidden = kind !== "scripted";
  $("thinking-info").hidden = kind !== "thinking";
  $("browser-info").hidden = kind !== "browser";
}

export async function applyBackend() {
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

export async function describeNative() {
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
