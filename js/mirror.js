// Worker mode, page side (install({worker: true})): starts worker.js, where the module
// runs, and gives the channel a port of the usual shape {send, query, connect}. Messages
// cross by postMessage; query, which must answer within the call (session.history and
// session.contextUsage are synchronous, and the page may not wait for a Worker), is
// answered from the page's copy of each session's history and usage, which the worker
// keeps up to date with every run of the module (worker.js). Without worker mode none of
// this is loaded. See RATIONALE.md "Why does worker mode keep a copy of the history on
// the page?".

import { assetURLs, fetchBytes } from "./load.js";
import { packedReply, splitPacked } from "./pack.js";

// startWorker starts the module in a Worker and resolves, once it is ready, to {port,
// exited} as load() does: exited resolves if the module stops or the worker breaks.
export async function startWorker(config, progress) {
  if (typeof Worker !== "function") {
    throw new DOMException("install({worker: true}) needs the Worker API, which this environment does not have (in Node, install() without worker).", "NotSupportedError");
  }
  // URLs the page gives are the page's, not the worker's: resolve them here. Left
  // undefined, the worker finds the files beside itself, as load.js does beside the face.
  const base = globalThis.location?.href;
  const start = { type: "start" };
  if (config.wasm !== undefined) start.wasm = new URL(config.wasm, base).href;
  if (config.wasmExec !== undefined) start.wasmExec = new URL(config.wasmExec, base).href;
  const transfer = [];
  if (config.fetch !== undefined) {
    // The page's own fetch cannot cross: it downloads the module here, and the bytes move.
    const bytes = await fetchBytes(assetURLs(config).wasm, progress, config.fetch);
    start.bytes = bytes;
    transfer.push(bytes.buffer ?? bytes);
  }
  // The literal new URL("./worker.js", import.meta.url) is what bundlers rewrite.
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  const port = new WorkerPort(worker);
  let ready, failed, exit;
  const started = new Promise((resolve, reject) => ((ready = resolve), (failed = reject)));
  const exited = new Promise((resolve) => (exit = resolve));
  let running = false;
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.msgs) port.deliver(m);
    else if (m.pong !== undefined) port.pong(m.pong);
    else if (m.progress !== undefined) progress.update(m.progress);
    else if (m.ready) {
      running = true;
      ready();
    } else if (m.failed) failed(new DOMException(m.failed.message, m.failed.name));
    else if (m.exited) exit();
  };
  // An uncaught error in the worker (its script not found, a syntax error, a bug in the
  // relay) leaves the module unreachable: before ready it fails install(), after it every
  // call, as a module that stopped does.
  worker.onerror = (e) => {
    e.preventDefault?.();
    if (running) exit();
    else {
      const why = e.message || "it, or a file it imports beside it (load.js, wasm_exec.js), could not be loaded";
      failed(new DOMException(`The language model worker ${new URL("./worker.js", import.meta.url).href} failed to start: ${why}.`, "NetworkError"));
    }
  };
  worker.postMessage(start, transfer);
  try {
    await started;
  } catch (err) {
    worker.terminate();
    throw err;
  }
  exited.then(() => worker.terminate());
  return { port, exited };
}

// AHEAD is how many pieces of a generator may wait for the worker (pace).
const AHEAD = 4;

// WorkerPort is the module's port {send, query, connect} for a module in a Worker.
class WorkerPort {
  #worker;
  #receive = null;
  #early = []; // messages that came before connect
  #copies = new Map(); // session key → {usage, spent (session.usage), activeTools (tool search's), msgs: [each message packed, or its JSON (pack.js splitPacked)]}
  #pinged = 0; // pace
  #ponged = 0;
  #waiting = [];

  constructor(worker) {
    this.#worker = worker;
  }

  // remote tells the channel that the module answers after send returns: an aborted
  // request is rejected when the module's reply says it has rolled back, not before.
  get remote() {
    return true;
  }

  send(json, attach) {
    this.#worker.postMessage(attach === undefined ? json : [json, attach]);
  }

  // close ends the worker (install() failed after starting it).
  close() {
    this.#worker.terminate();
  }

  // pace returns, after each piece a page-supplied generator sends, a promise that holds
  // the generator back while more than AHEAD pieces wait for the worker. The engine's
  // generate-abort (a reply grown past the context window) can reach the page only
  // between tasks, and a generator whose pieces all resolve at once would otherwise run
  // in microtasks for ever without hearing it; with the module on the page, each piece
  // is read before the next is asked for. The worker answers a ping after the messages
  // sent before it, and after posting what they made the module write.
  pace() {
    const n = ++this.#pinged;
    this.#worker.postMessage({ ping: n });
    if (n - this.#ponged <= AHEAD) return undefined;
    return new Promise((resolve) => this.#waiting.push({ n: n - AHEAD, resolve }));
  }

  pong(n) {
    this.#ponged = n;
    while (this.#waiting.length > 0 && this.#waiting[0].n <= n) this.#waiting.shift().resolve();
  }

  connect(receive) {
    this.#receive = receive;
    const early = this.#early;
    this.#early = [];
    for (const json of early) receive(json);
  }

  // query answers {type: "history" | "usage", session} from the copies, as the module
  // would (wasm.Handler.Query).
  query(json) {
    const { type, session } = JSON.parse(json);
    const c = this.#copies.get(session);
    if (type !== "history" && type !== "usage") return reply(undefined, { name: "TypeError", message: `cannot query "${type}"` });
    if (!c) return reply(undefined, { name: "InvalidStateError", message: `the session has been destroyed (session key ${session})` });
    if (type === "usage") return reply(`{"contextUsage":${c.usage}${c.spent ? `,"usage":${JSON.stringify(c.spent)}` : ""}${c.activeTools ? `,"activeTools":${JSON.stringify(c.activeTools)}` : ""}}`);
    return packedReply(c.msgs);
  }

  // deliver applies a run's changes to the copies, then hands its messages to the
  // channel: whatever the channel then runs (a reply, execute, an event handler) sees
  // the histories as of the end of that run, as it would with the module on the page.
  deliver({ msgs, changes }) {
    if (changes) {
      // wasm.Mirror.Changes: a JSON array of changes, then the messages they add, packed.
      const nl = changes.indexOf("\n");
      let at = nl + 1;
      for (const c of JSON.parse(nl < 0 ? changes : changes.slice(0, nl))) at = this.#apply(c, changes, at);
    }
    if (!this.#receive) {
      this.#early.push(...msgs);
      return;
    }
    for (const json of msgs) this.#receive(json);
  }

  // #apply applies one change (wasm.Mirror.Changes): the runs of the copy that stay,
  // then the messages added after them, cut out of added from at on. Returns where the
  // next change's messages begin.
  #apply({ session, gone, usage, spent, activeTools, keep, add }, added, at) {
    if (gone) {
      this.#copies.delete(session);
      return at;
    }
    const old = this.#copies.get(session)?.msgs ?? [];
    let msgs;
    if (keep?.length === 1 && keep[0][0] === 0) {
      msgs = old; // the usual change: the history grew, or was rolled back
      msgs.length = keep[0][1];
    } else {
      msgs = [];
      for (const [from, n] of keep ?? []) for (let i = from; i < from + n; i++) msgs.push(old[i]);
    }
    if (add) at = splitPacked(added, at, add, msgs);
    this.#copies.set(session, { usage, spent, activeTools, msgs });
    return at;
  }
}

function reply(valueJSON, error) {
  return error ? JSON.stringify({ type: "reply", error }) : `{"type":"reply","ok":true,"value":${valueJSON}}`;
}
