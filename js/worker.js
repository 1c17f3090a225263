// The module's own thread in worker mode (install({worker: true})): mirror.js starts this
// file as a module Worker, and it loads the module here with load.js, then relays the
// channel's messages both ways, untouched. After every run of the module (a microtask
// after it returns) it asks the module what changed in the sessions' histories and usage
// (mirror(), wasm.Mirror) and posts that together with the messages of that run, so that
// the page's copy is, wherever the page can look, what the module would have answered:
// see RATIONALE.md "Why does worker mode keep a copy of the history on the page?".
//
// From the page: {type: "start", wasm?, wasmExec?, bytes?} once, then the channel's JSON
// strings. To the page: {progress: f}…, then {ready: true} or {failed: {name, message}};
// then {msgs: [json…], changes: string | null} per run (changes as wasm.Mirror.Changes
// wrote them: the changes, then the messages they add, packed, which the page keeps as
// text and reads only when session.history asks), {pong: n} for each {ping: n}
// (mirror.js's pace), and {exited: true} if the module ever stops.

// Go's wasm_exec.js, imported statically: a bundler then bundles the worker as one file
// (Vite bundles workers as a classic script by default, which admits no code splitting,
// and load.js's import("./wasm_exec.js") would be a split). A page that names its own
// .wasm gets the wasm_exec.js beside it, as without a worker (start).
import "./wasm_exec.js";
import { assetURLs, load } from "./load.js";
import { microtask } from "./microtask.js";

let port = null;
let out = []; // the messages of the module's current run
let scheduled = false;

// flush posts the run's messages with the changes the run made, as wasm.Mirror wrote
// them: the page reads them (mirror.js), and one string crosses faster than its pieces.
function flush() {
  scheduled = false;
  const changes = port.mirror();
  if (out.length === 0 && changes == null) return;
  const msg = { msgs: out, changes };
  out = [];
  postMessage(msg);
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  microtask(flush);
}

async function start({ wasm, wasmExec, bytes }) {
  try {
    if (wasm !== undefined || wasmExec !== undefined) {
      // The page named its own files: load.js loads the wasm_exec.js that goes with them,
      // unless it is the one imported above (a module runs once).
      const here = import.meta.url; // not new URL(…, import.meta.url): bundlers would emit a copy
      if (assetURLs({ wasm, wasmExec }).wasmExec.href !== new URL("./wasm_exec.js", here).href) delete globalThis.Go;
    }
    const loaded = await load({ wasm, wasmExec }, { update: (f) => postMessage({ progress: f }) }, bytes);
    port = loaded.port;
    loaded.exited.then(() => postMessage({ exited: true }));
    port.connect((json) => {
      out.push(json);
      schedule();
    });
    postMessage({ ready: true });
  } catch (e) {
    postMessage({ failed: { name: typeof e?.name === "string" ? e.name : "Error", message: String(e?.message ?? e) } });
  }
}

self.onmessage = (e) => {
  const m = e.data;
  if (typeof m === "string" || Array.isArray(m)) { // a message, or [message, attachment]
    if (!port) return; // the page sends only after ready
    if (Array.isArray(m)) port.send(m[0], m[1]);
    else port.send(m);
    schedule(); // a run may change a history before it writes anything
    return;
  }
  if (m?.ping !== undefined) postMessage({ pong: m.ping }); // after the flushes of earlier messages
  else if (m?.type === "start" && !port) start(m);
};
