// The in-page model: a GGUF the module loads into llama.cpp (wllama), which the page
// imports itself, only when this model is picked: demo/serve serves wllama's files
// (installed by make deps) and the project's toy model. The form's model, whether it
// must be downloaded, and the progress of its loading.

import { LanguageModel } from "../js/language-model.js";
import { $, state } from "./state.js";

const WLLAMA = {
  paths: { default: new URL("../wllama/wasm/wllama.wasm", import.meta.url).href },
  compat: { wasm: new URL("../wllama-compat/wllama.wasm", import.meta.url).href, worker: new URL("../wllama-compat/wllama.js", import.meta.url).href },
};
const WLLAMA_ENTRY = new URL("../wllama/index.js", import.meta.url).href;
const TOY_GGUF = new URL("../models/toy.gguf", import.meta.url).href;
let wllamaModule;

// ggufFromForm returns the gguf backend the form names, or throws a TypeError saying
// what is missing.
export async function ggufFromForm() {
  const source = document.querySelector('input[name="gguf-source"]:checked').value;
  let model = TOY_GGUF;
  if (source === "url") {
    model = $("gguf-url").value.trim();
    if (!model) throw new TypeError("Type the URL of a GGUF model.");
  } else if (source === "file") {
    model = $("gguf-file").files[0];
    if (!model) throw new TypeError("Choose a GGUF file.");
  }
  wllamaModule ??= await import(WLLAMA_ENTRY);
  return { kind: "gguf", model, wllama: wllamaModule, ...WLLAMA };
}

// ggufName names a gguf backend's model for the status line.
export function ggufName(model) {
  if (model === TOY_GGUF) return "toy model";
  if (typeof model === "string") return decodeURIComponent(new URL(model).pathname.split("/").pop());
  return model?.name ?? "file";
}

// showGGUFAvailability says whether the picked model must be downloaded.
export async function showGGUFAvailability() {
  const out = $("gguf-availability");
  if ($("backend-kind").value !== "gguf") return;
  try {
    const backend = await ggufFromForm();
    const a = await LanguageModel.availability({ backend });
    out.textContent = { available: "Ready: in this page or the browser's cache.", downloadable: "It will be downloaded first.", downloading: "Downloading…" }[a] ?? `availability(): ${a}`;
  } catch (err) {
    out.textContent = err instanceof TypeError ? err.message : `${err.name}: ${err.message}`;
  }
}

// ggufMonitor feeds the progress bar from create()'s downloadprogress events.
export function ggufMonitor(m) {
  const bar = $("gguf-progress");
  bar.hidden = false;
  bar.value = 0;
  m.addEventListener("downloadprogress", (e) => {
    bar.value = e.loaded;
    state.ggufProgress.push(e.loaded);
    $("backend-result").textContent = e.loaded < 1 ? `Loading the model… ${Math.round(e.loaded * 100)}%` : "Starting the model…";
  });
}
