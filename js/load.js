// Loading the module: where its two files are, fetching the .wasm with progress (or
// reading it from disk in Node), Go's wasm_exec.js, instantiation, and the wait for the
// module to start. Where the module's assets are found is decided here and nowhere else.

import { modulePort } from "./port.js";

// load fetches and compiles the module with progress (unless its bytes are given: worker
// mode with the page's own fetch, see mirror.js), runs it with Go's wasm_exec.js, waits
// for it to start and returns its port (port.js).
export async function load(config, progress, given) {
  const { wasm, wasmExec } = assetURLs(config);
  // wasm_exec.js and the .wasm load at once: on a first visit they are two round trips.
  const goReady = typeof globalThis.Go === "function" ? null : loadWasmExec(wasmExec);
  const compiled = given
    ? Promise.resolve(given).then((bytes) => compile(wasm, bytes))
    : wasm.protocol === "file:"
      ? readFile(wasm, progress).then((bytes) => compile(wasm, bytes))
      : fetchModule(wasm, progress, config.fetch ?? globalThis.fetch);
  compiled.catch(() => {}); // reported below, after wasm_exec.js's own error if any
  await goReady;
  const module = await compiled;
  const go = new globalThis.Go();
  // Go's collector runs when the heap has grown to five times what the last cycle left
  // live, not twice: a collection in the module shares the page's one thread, and its
  // write barriers and assists slow what runs meanwhile; the memory it costs is in
  // RATIONALE.md "Why does the module's collector run less often?".
  go.env = { ...go.env, GOGC: "400" };
  const ready = new Promise((resolve) => (globalThis.__langmodel_ready = resolve));
  const instance = await WebAssembly.instantiate(module, go.importObject);
  const exited = go.run(instance);
  await Promise.race([
    ready,
    exited.then(() => {
      throw new DOMException("The language model module exited while starting.", "OperationError");
    }),
  ]);
  delete globalThis.__langmodel_ready;
  // Registered as a module started by hand would be, so that an install() retried after a
  // failure uses this module instead of starting a second one.
  const port = modulePort(go);
  globalThis.__langmodel_channel = port;
  exited.then(() => {
    if (globalThis.__langmodel_channel === port) delete globalThis.__langmodel_channel;
  });
  return { port, exited };
}

// compile compiles the module's bytes, read whole.
function compile(url, bytes) {
  notWasm(url, bytes);
  return WebAssembly.compile(bytes);
}

// fetchBytes reads the module's bytes from url, reporting progress (worker mode with the
// page's own fetch: the page downloads, the worker compiles).
export async function fetchBytes(url, progress, fetchFn) {
  if (url.protocol === "file:") return readFile(url, progress);
  progress.update(0);
  const res = await fetchFn(url);
  if (!res.ok) throw new DOMException(`Could not fetch ${url.href}: HTTP ${res.status}.`, "NetworkError");
  const bytes = await readBody(res, counter(res, progress));
  progress.update(1);
  return bytes;
}

// assetURLs says where the module's two files are. By default both sit beside this file,
// found with new URL("./…", import.meta.url), the pattern Vite and webpack rewrite when they
// bundle (they emit the file and give its final URL); wasmExec is then undefined, meaning
// the wasm_exec.js beside this file, imported by a literal path so that bundlers include
// it. A config.wasm is resolved against the page (or, in Node, the working directory), and
// Go's wasm_exec.js is then looked for beside that .wasm, since the two must come from the
// same Go: see RATIONALE.md "Why are the module's files found beside the face?".
export function assetURLs(config) {
  const base = globalThis.location?.href ?? assets.cwd?.();
  if (config.wasm === undefined) {
    return {
      wasm: new URL("./langmodel.wasm", import.meta.url),
      wasmExec: config.wasmExec === undefined ? undefined : new URL(config.wasmExec, base),
    };
  }
  const wasm = new URL(config.wasm, base);
  return { wasm, wasmExec: new URL(config.wasmExec ?? "wasm_exec.js", config.wasmExec === undefined ? wasm : base) };
}

// notWasm throws when bytes are not a WebAssembly module: a server's fallback page where
// the file should be, which is what a bundler that moved the code away from the .wasm
// gives (Vite's dev server pre-bundling, say), named instead of a compile error.
function notWasm(url, bytes) {
  const head = new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, Math.min(bytes.byteLength, 4));
  if (head.length === 4 && head[0] === 0 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d) return;
  const start = JSON.stringify(new TextDecoder().decode(head));
  throw new DOMException(
    `${url.href} is not a WebAssembly module (it starts with ${start}): serve langmodel.wasm there, or pass install({wasm}); a bundler must keep it beside the code (Vite's dev server: optimizeDeps.exclude).`,
    "NetworkError",
  );
}

// loadWasmExec runs Go's wasm_exec.js, a classic script that defines globalThis.Go, as a
// module imported for its side effect: no <script> element, so it works in Workers and
// Node too.
async function loadWasmExec(url) {
  try {
    if (url === undefined) await import("./wasm_exec.js");
    else await import(/* webpackIgnore: true */ /* @vite-ignore */ url.href);
  } catch (e) {
    const where = url?.href ?? new URL("./wasm_exec.js", import.meta.url).href;
    throw new DOMException(`Could not load ${where}: ${e?.message ?? e}`, "NetworkError");
  }
  if (typeof globalThis.Go !== "function") throw new DOMException("Go's wasm_exec.js did not define globalThis.Go.", "OperationError");
}

// assets holds what install() cannot find in every environment: readFile(url) reads a
// file: URL's bytes (Node's fetch takes no file: URLs), cwd() is the URL that relative
// URLs resolve against where there is no page. language-model.node.js, the entry Node
// resolves, sets both from node:fs and node:url, so that this file imports nothing of
// Node's.
export const assets = { readFile: null, cwd: null };

async function readFile(url, progress) {
  if (!assets.readFile) throw new DOMException(`Could not read ${url.href}: file: URLs are read in Node, through language-model.node.js (the package's "node" entry).`, "NetworkError");
  progress.update(0);
  let bytes;
  try {
    bytes = await assets.readFile(url);
  } catch (e) {
    throw new DOMException(`Could not read ${url.href}: ${e?.message ?? e}`, "NetworkError");
  }
  progress.update(1);
  return bytes;
}

// fetchModule fetches the module and compiles it as its bytes arrive
// (WebAssembly.compileStreaming), counting them on the way for progress: the fraction of
// the response's Content-Length received, 0 and 1 at least. Compiling while downloading
// saves the wait for the last byte and the copy of the whole body (RATIONALE.md "What must
// install() do for V8's code cache?"). Where a browser lacks compileStreaming or
// TransformStream, the body is read whole first.
async function fetchModule(url, progress, fetchFn) {
  progress.update(0);
  const res = await fetchFn(url);
  if (!res.ok) throw new DOMException(`Could not fetch ${url.href}: HTTP ${res.status}.`, "NetworkError");
  const count = counter(res, progress);
  if (!res.body || typeof WebAssembly.compileStreaming !== "function" || typeof TransformStream !== "function") {
    const module = await compile(url, await readBody(res, count));
    progress.update(1);
    return module;
  }
  let head = new Uint8Array(0); // the first four bytes, to name a body that is not a module
  const counted = res.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        if (head.length < 4) head = Uint8Array.of(...head, ...chunk.subarray(0, 4 - head.length));
        count(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  let module;
  try {
    module = await WebAssembly.compileStreaming(new Response(counted, { headers: { "Content-Type": "application/wasm" } }));
  } catch (e) {
    notWasm(url, head);
    throw e;
  }
  progress.update(1);
  return module;
}

// counter returns the function that counts a response's chunks as they arrive, for
// progress: the fraction of its Content-Length received. Content-Length counts compressed
// bytes when the server compresses: the fraction stays below 1 until the caller is done.
function counter(res, progress) {
  const total = Number(res.headers.get("Content-Length")) || 0;
  let loaded = 0;
  return (chunk) => {
    loaded += chunk.byteLength;
    if (total) progress.update(Math.min(loaded / total, 0.999));
  };
}

// readBody reads a response's body whole, calling count with each chunk.
async function readBody(res, count) {
  if (!res.body) return res.arrayBuffer();
  const reader = res.body.getReader();
  const chunks = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
    count(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}
