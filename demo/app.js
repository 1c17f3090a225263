// The demo page: a chat over js/language-model.js, used exactly as any page would use it
// (import, install(), LanguageModel.create()). It shows each tool call live as a card, runs
// the page's tools in the closed loop (the module calls execute) or the open loop (the
// page runs each call itself, and can pause before it), asks the user before a destructive
// tool runs, and edits the history to recreate the session with less context.
//
// Safety: nothing from a model or a tool is parsed as HTML. Text goes through textContent
// or markdown.js, which builds nodes with textContent and allows only http(s) links.
//
// The page is split by job: state.js (the shared state), live.js (the live view),
// chat.js (a turn), closedloop.js and openloop.js (the two loops), sessions.js (the
// session's life), status.js (the status and step lines), settings.js, gguf.js (the
// in-page model), mcp.js (an MCP server), history.js (the history editor); this file
// boots the page and wires its controls.

import { install } from "../js/language-model.js";
import { send } from "./chat.js";
import { showGGUFAvailability } from "./gguf.js";
import { openHistory, recreateFromHistory, summariseAll } from "./history.js";
import { download, keep, saved } from "./keep.js";
import { notice, rebuild, showActiveSet, staticCtx } from "./live.js";
import { connectMCP } from "./mcp.js";
import { compactSession, createSession, loadRecording, newConversation, restoreSession, webmcpReady } from "./sessions.js";
import { applyBackend, applySettings, describeNative, showBackendFields, syncSettingsForm } from "./settings.js";
import { $, byName, notes, SCRIPTED, state, TOOLS } from "./state.js";
import { BACKEND_LABELS, setBusy, showStatus } from "./status.js";
import { EXAMPLES, RULES } from "./tools.js";
import { entriesFromHistory, renderEntries, title } from "./view.js";

// renderNotes shows the notes the tools keep (state.js notes).
function renderNotes() {
  const list = $("notes");
  list.replaceChildren(...notes.list.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
  $("notes-empty").hidden = notes.list.length > 0;
  $("notes-count").textContent = notes.list.length ? `(${notes.list.length})` : "";
}

// renderRules lists the offline model's rules and makes a chip of each example prompt.
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

notes.changed = renderNotes;

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
