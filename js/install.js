// install(): loading the module (load.js, or in a Worker: mirror.js), the protocol
// handshake, the default backend, and the globals.

import { Channel } from "./channel.js";
import { isChain } from "./chain.js";
import { isGGUF } from "./gguf.js";
import { browserGenerate, nativeAtLoad, nativeAvailability, nativeToolsAtLoad } from "./native.js";
import { PROTOCOL_VERSION } from "./protocol.js";
import { runtime } from "./runtime.js";
import { load } from "./load.js";
import { LanguageModel } from "./session.js";
import { stash } from "./stash.js";
import { LanguageModelToolCall, LanguageModelToolError, LanguageModelToolSuccess } from "./tools.js";
import { wireBackend } from "./webidl.js";

// Progress records the download's progress fractions, and hands them to monitors;
// attach returns the function that stops a monitor's events (its create() aborted).
class Progress {
  fractions = [];
  #listeners = new Set();
  update(f) {
    if (this.fractions.at(-1) === f) return;
    this.fractions.push(f);
    for (const l of this.#listeners) l(f);
  }
  attach(target) {
    const fire = (f) => {
      const init = { loaded: f, total: 1, lengthComputable: true };
      const ev = typeof ProgressEvent === "function" ? new ProgressEvent("downloadprogress", init) : Object.assign(new Event("downloadprogress"), init);
      target.dispatchEvent(ev);
    };
    this.fractions.forEach(fire);
    if (this.fractions.at(-1) === 1) return () => {};
    const l = (f) => {
      fire(f);
      if (f === 1) this.#listeners.delete(l);
    };
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }
}

/**
 * install loads the module (unless a host has already started it), on the page or, with
 * config.worker, in a dedicated Worker (mirror.js), checks its protocol
 * version, sets the default backend and, as config.globals says, defines globalThis.
 * LanguageModel and the tool classes. It may be called again after a failure.
 */
export function install(config = {}) {
  if (!runtime.installing) {
    runtime.progress = new Progress();
    // A GGUF model as the default backend is loaded by the first create() that uses it;
    // a chain's members are picked for each create() (js/chain.js).
    runtime.gguf = isGGUF(config.backend) || isChain(config.backend) ? config.backend : undefined;
    runtime.installing = doInstall(config, runtime.progress);
    runtime.installing.catch(() => {
      runtime.installing = null;
    });
  }
  return runtime.installing;
}

async function doInstall(config, progress) {
  // The native LanguageModel: the one there now, before the globals are defined (a page
  // may install a stand-in after loading this module), else the one at load.
  const current = globalThis.LanguageModel;
  const native = current !== undefined && current !== LanguageModel ? current : nativeAtLoad !== LanguageModel ? nativeAtLoad : undefined;
  // Whether the native model is there is asked now, while the module loads, not after.
  const mode = config.globals ?? "auto";
  const nativeAnswer = mode === "auto" && native ? nativeAvailability(native) : undefined;
  let port = globalThis.__langmodel_channel;
  let exited = null;
  if (port) {
    progress.update(0);
    progress.update(1);
  } else if (config.worker) {
    const { startWorker } = await import("./mirror.js"); // loaded only in worker mode
    ({ port, exited } = await startWorker(config, progress));
  } else {
    ({ port, exited } = await load(config, progress));
  }
  const channel = new Channel(port, () => config.fetch ?? globalThis.fetch);
  exited?.then(() => channel.fail(new DOMException("The language model module stopped.", "OperationError")));
  let hello;
  try {
    hello = await channel.request({ type: "hello", version: PROTOCOL_VERSION });
  } catch (e) {
    port.close?.(); // a Worker that speaks another protocol is of no use: end it (mirror.js)
    throw e;
  }
  // Its tool classes, the same way: native tool use needs all three.
  const theirs = (key, ours) => {
    const now = globalThis[ours.name];
    if (now !== undefined && now !== ours) return now;
    return nativeToolsAtLoad[key] !== ours ? nativeToolsAtLoad[key] : undefined;
  };
  const classes = {
    call: theirs("call", LanguageModelToolCall),
    success: theirs("success", LanguageModelToolSuccess),
    error: theirs("error", LanguageModelToolError),
  };
  const nativeTools = Boolean(native) && Object.values(classes).every((c) => typeof c === "function");
  const st = {
    channel,
    backend: undefined,
    native,
    nativeTools,
    browserFn: native ? stash.store(browserGenerate(native, null)) : -1,
    browserToolsFn: nativeTools ? stash.store(browserGenerate(native, classes)) : -1,
  };
  if (config.backend !== undefined && !runtime.gguf) st.backend = wireBackend(config.backend, [], st);
  runtime.installed = st;
  const answer = await nativeAnswer;
  const globals = defineGlobals(mode, answer);
  // The answer is handed back so that a page need not ask again: Chromium prints a
  // console warning of its own at each availability() of a model it cannot run.
  return { version: hello.version, globals, native, nativeAvailability: answer };
}

// defineGlobals defines the globals "always", "never", or ("auto") where the browser has
// no LanguageModel or its own reports "unavailable" (nativeAnswer, its availability()).
function defineGlobals(mode, nativeAnswer) {
  let define = mode === "always" || mode === true;
  if (mode === "auto") define = nativeAnswer === undefined || nativeAnswer === "unavailable";
  if (!define) return false;
  for (const [name, value] of Object.entries({ LanguageModel, LanguageModelToolCall, LanguageModelToolSuccess, LanguageModelToolError })) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }
  return true;
}
