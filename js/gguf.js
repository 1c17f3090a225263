// A GGUF model by URL or file ({kind: "gguf", model, wllama, paths?, compat?, config?,
// load?}): the module makes the wllama engine itself, from the wllama module the page
// imported (import * as wllama from "@wllama/wllama"; the package never imports it), and
// then runs the engine backend over it (js/engine.js). What this file adds to the engine
// backend is the Prompt API's download story and the engines' differences:
//  - availability() answers "available" for a File or Blob, and for a URL whose whole
//    model is in wllama's cache (its CacheManager: OPFS where the engine has it), or that
//    this page has loaded; "downloading" while a create() downloads it; "downloadable"
//    otherwise;
//  - create({monitor}) fires downloadprogress events, loaded from 0 to 1 (the fraction of
//    the model's bytes received; 1 once the engine has loaded it), a create() that joins
//    a download under way included;
//  - the download is this file's own fetch, so that it is written to the cache only
//    whole and checked: a failed one rejects with NetworkError naming the URL and caches
//    nothing;
//  - the file is checked before llama.cpp gets it (wllama loads a file that is not a GGUF,
//    or a truncated one, and fails only at the first completion): its GGUF header, and its
//    size against what the header's tensors need; either fault is a DataError naming it;
//  - WebKit: new Wllama() throws "No supported storage backend found" (no OPFS), so the
//    cache is kept in memory there; its compat build (no JSPI, no Memory64) is taken from
//    backend.compat ({wasm, worker}, as setCompat takes them) when the page names it, and
//    otherwise from where wllama looks by default (a CDN);
//  - the load options default to llama.cpp's Jinja templates (the chat template's tools),
//    CPU, one thread unless the page is cross-origin isolated, and a context of the
//    model's own size (its <arch>.context_length), at most 8192 tokens unless load.n_ctx
//    says otherwise: contextWindow is the context the engine was loaded with.
// A loaded engine is kept for the page's life and shared by every session over the same
// model and load options: the weights are held once, in the engine.

import { keepNativeLog, recordNativeLog } from "./engine.js";

const MAX_DEFAULT_CONTEXT = 8192;

// isGGUF says whether backend asks for a GGUF model.
export function isGGUF(backend) {
  return backend !== null && typeof backend === "object" && backend.kind === "gguf";
}

// ggufOptions reads and checks a gguf backend's members, each once.
function ggufOptions(backend) {
  const { model, wllama, paths, compat, config, load, kind, ...rest } = backend;
  if (typeof wllama?.Wllama !== "function") {
    throw new TypeError('invalid backend: backend.wllama must be the wllama module (import * as wllama from "@wllama/wllama")');
  }
  const blobs = Array.isArray(model) ? model : [model];
  const isBlob = (b) => typeof Blob === "function" && b instanceof Blob;
  if (!(typeof model === "string" && model !== "") && !(blobs.length > 0 && blobs.every(isBlob))) {
    throw new TypeError("invalid backend: backend.model must be a GGUF's URL, a File or Blob, or an array of Blobs (a split model)");
  }
  if (paths === undefined || paths === null || typeof paths !== "object" || typeof paths.default !== "string") {
    throw new TypeError("invalid backend: backend.paths must name wllama's files as new Wllama() takes them: {default: the URL of its wllama.wasm}");
  }
  if (compat !== undefined && (compat === null || typeof compat !== "object")) {
    throw new TypeError("invalid backend: backend.compat must be {wasm, worker}, the URLs of @wllama/wllama-compat's files, as setCompat() takes them");
  }
  const url = typeof model === "string" ? new URL(model, globalThis.location?.href).href : null;
  return { url, blobs: url ? null : blobs, wllama, paths, compat, config: config ?? {}, load: load ?? {}, rest };
}

// MemoryBackend is a wllama storage backend in memory, for engines without OPFS.
class MemoryBackend {
  files = new Map();
  isSupported() {
    return true;
  }
  async read(key) {
    return this.files.get(key) ?? null;
  }
  async write(key, stream) {
    this.files.set(key, await new Response(stream).blob());
  }
  async getSize(key) {
    return this.files.get(key)?.size ?? -1;
  }
  async list() {
    return [...this.files].map(([key, b]) => ({ key, size: b.size }));
  }
  async delete(key) {
    this.files.delete(key);
  }
}

// caches holds one CacheManager per wllama module: wllama's default (OPFS), else one in
// memory, so that a model this page downloaded counts as cached for its life.
const caches = new WeakMap();

function cacheOf(o) {
  if (o.config.cacheManager) return o.config.cacheManager;
  let cm = caches.get(o.wllama);
  if (!cm) {
    try {
      cm = new o.wllama.CacheManager();
    } catch {
      cm = new o.wllama.CacheManager([new MemoryBackend()]);
    }
    caches.set(o.wllama, cm);
  }
  return cm;
}

// cached says whether the whole model at url is in cm.
async function cached(cm, url) {
  try {
    const key = await cm.getNameFromURL(url);
    const meta = await cm.readMetadata(key);
    const size = await cm.getSize(key);
    return size > 0 && meta?.originalURL === url && meta.originalSize === size;
  } catch {
    return false;
  }
}

// loads maps a model (its URL, or its first Blob) to its loads: load options (as JSON)
// → {progress, engine: Promise}.
const urlLoads = new Map();
const blobLoads = new WeakMap();

function loadsOf(o) {
  if (o.url) {
    if (!urlLoads.has(o.url)) urlLoads.set(o.url, new Map());
    return urlLoads.get(o.url);
  }
  if (!blobLoads.has(o.blobs[0])) blobLoads.set(o.blobs[0], new Map());
  return blobLoads.get(o.blobs[0]);
}

// An engine that availability() never calls.
const STAND_IN = { createChatCompletion() {} };

// ggufAvailability reads a gguf backend for availability(): the engine backend the module
// is asked about (over a stand-in engine), and whether the model is there (a promise).
export function ggufAvailability(backend) {
  const o = ggufOptions(backend);
  const there = modelAvailability(o);
  there.catch(() => {}); // unread when the module answers otherwise
  return { backend: { ...o.rest, kind: "engine", engine: STAND_IN }, there };
}

async function modelAvailability(o) {
  if (!o.url) return "available";
  const loads = urlLoads.get(o.url);
  if (loads) {
    for (const l of loads.values()) if (!l.done) return "downloading";
    if (loads.size > 0) return "available";
  }
  return (await cached(cacheOf(o), o.url)) ? "available" : "downloadable";
}

// Progress records a load's fractions and hands them to monitors' targets.
class Progress {
  fractions = [];
  #targets = new Set();
  update(f) {
    if (this.fractions.length > 0 && f <= this.fractions.at(-1)) return;
    this.fractions.push(f);
    for (const t of this.#targets) fire(t, f);
  }
  attach(target) {
    this.fractions.forEach((f) => fire(target, f));
    this.#targets.add(target);
    return () => this.#targets.delete(target);
  }
}

function fire(target, f) {
  const init = { loaded: f, total: 1, lengthComputable: true };
  target.dispatchEvent(typeof ProgressEvent === "function" ? new ProgressEvent("downloadprogress", init) : Object.assign(new Event("downloadprogress"), init));
}

// ggufBackend loads (or finds loaded) the engine for a gguf backend, its progress going
// to target (create()'s monitor's, or null), and returns the engine backend over it.
// signal stops waiting, not the download (other sessions may wait for it too).
export async function ggufBackend(backend, target, signal) {
  const o = ggufOptions(backend);
  const loads = loadsOf(o);
  const key = JSON.stringify(o.load);
  let l = loads.get(key);
  if (!l) {
    l = { progress: new Progress(), done: false };
    l.engine = load(o, l.progress).then(
      (engine) => {
        l.done = true;
        return engine;
      },
      (e) => {
        loads.delete(key);
        throw e;
      },
    );
    loads.set(key, l);
  }
  const detach = target ? l.progress.attach(target) : () => {};
  try {
    const engine = await (signal ? Promise.race([l.engine, aborted(signal)]) : l.engine);
    return { ...o.rest, kind: "engine", engine };
  } finally {
    detach();
  }
}

function aborted(signal) {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

// load makes a wllama engine with the model loaded.
async function load(o, progress) {
  progress.update(0);
  const cm = cacheOf(o);
  let blobs = o.blobs;
  if (o.url) {
    const key = await cm.getNameFromURL(o.url);
    let blob = (await cached(cm, o.url)) ? await cm.open(key) : null;
    if (!blob) {
      blob = await download(o.url, progress);
      await check(blob, o.url);
      try {
        await cm.write(key, blob.stream(), { originalURL: o.url, originalSize: blob.size, etag: "" });
      } catch {
        await cm.delete(o.url).catch(() => {}); // no room: loaded, not cached
      }
    }
    blobs = [blob];
  }
  for (const [i, b] of blobs.entries()) await check(b, o.url ?? (b.name ? `the file ${b.name}` : `blob ${i}`));
  const info = await header(blobs[0], "");
  // Quiet unless the page asks: llama.cpp's own log at errors only, kept for the step
  // that fails (a chat template's exception reaches the page as the step's failure:
  // js/engine.js engineFailed), never printed; wllama's debug lines dropped, its warnings
  // printed. A page's logger gets every line.
  const log = { error: null };
  const config = { suppressNativeLog: false, ...o.config, logger: keepNativeLog(log, o.config.logger), cacheManager: cm };
  const engine = new o.wllama.Wllama(o.paths, config);
  if (o.compat) engine.setCompat(o.compat);
  const isolated = globalThis.crossOriginIsolated === true;
  const n_ctx = info.contextLength > 0 ? Math.min(info.contextLength, MAX_DEFAULT_CONTEXT) : undefined;
  const quiet = o.config.logger ? {} : { log_level: 4 }; // llama.cpp's errors (GGML_LOG_LEVEL_ERROR) only
  const params = { jinja: true, n_gpu_layers: 0, ...quiet, ...(isolated ? {} : { n_threads: 1 }), ...(n_ctx ? { n_ctx } : {}), ...o.load };
  await engine.loadModel(blobs, params);
  recordNativeLog(engine, log);
  progress.update(1);
  return engine;
}

// download fetches url whole, reporting the fraction received (below 1: the engine's
// load is the last step). Any failure is a NetworkError naming url.
async function download(url, progress) {
  const failed = (why) => new DOMException(`could not download the model at ${url}: ${why}`, "NetworkError");
  let r;
  try {
    r = await fetch(url);
  } catch (e) {
    throw failed(e?.message ?? String(e));
  }
  if (!r.ok) throw failed(`HTTP ${r.status}`);
  const total = Number(r.headers.get("content-length")) || 0;
  const parts = [];
  let loaded = 0;
  try {
    if (!r.body) parts.push(await r.blob());
    else {
      const reader = r.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        loaded += value.byteLength;
        if (total > 0) progress.update(Math.min(loaded / total, 0.99));
      }
    }
  } catch (e) {
    throw failed(e?.message ?? String(e));
  }
  const blob = new Blob(parts);
  if (total > 0 && blob.size !== total) throw failed(`the connection ended after ${blob.size} of ${total} bytes`);
  return blob;
}

// check rejects with DataError when blob is not a GGUF model or is shorter than its
// header says.
async function check(blob, name) {
  const info = await header(blob, name);
  if (info.end > blob.size) {
    throw new DOMException(`${name} is truncated: ${blob.size} bytes, where its GGUF header describes ${info.end}`, "DataError");
  }
}

// Bytes per block and values per block of the ggml tensor types (ggml.h's ggml_type).
const TYPES = {
  0: [4, 1], 1: [2, 1], 2: [18, 32], 3: [20, 32], 6: [22, 32], 7: [24, 32], 8: [34, 32], 9: [36, 32],
  10: [84, 256], 11: [110, 256], 12: [144, 256], 13: [176, 256], 14: [210, 256], 15: [292, 256],
  16: [66, 256], 17: [74, 256], 18: [98, 256], 19: [50, 256], 20: [18, 32], 21: [110, 256], 22: [82, 256],
  23: [136, 256], 24: [1, 1], 25: [2, 1], 26: [4, 1], 27: [8, 1], 28: [8, 1], 29: [56, 256], 30: [2, 1],
  34: [54, 256], 35: [66, 256], 39: [17, 32],
};

// header reads blob's GGUF header (v2 or v3): the model's context length and the size the
// file must have (the end of its last tensor; of the header alone where a tensor has a
// type this table does not know). A file that is not a GGUF, or ends within its header,
// is a DataError naming name.
async function header(blob, name) {
  const bad = (why) => new DOMException(`${name} is not a GGUF model: ${why}`, "DataError");
  let size = Math.min(blob.size, 1 << 20);
  for (;;) {
    const view = new DataView(await blob.slice(0, size).arrayBuffer());
    try {
      return parseHeader(view, bad);
    } catch (e) {
      if (e !== SHORT) throw e;
      if (size >= blob.size) {
        if (blob.size < 4) throw bad(`it has ${blob.size} bytes`);
        throw new DOMException(`${name} is truncated: it ends within its GGUF header (${blob.size} bytes)`, "DataError");
      }
      size = Math.min(blob.size, size * 4);
    }
  }
}

const SHORT = Symbol("short");

function parseHeader(view, bad) {
  let p = 0;
  const need = (n) => {
    if (p + n > view.byteLength) throw SHORT;
  };
  const u32 = () => {
    need(4);
    p += 4;
    return view.getUint32(p - 4, true);
  };
  const u64 = () => {
    need(8);
    p += 8;
    return Number(view.getBigUint64(p - 8, true));
  };
  const str = () => {
    const n = u64();
    need(n);
    p += n;
    return new TextDecoder().decode(new Uint8Array(view.buffer, p - n, n));
  };
  const SIZES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const value = (t) => {
    if (t === 8) return str();
    if (t === 9) {
      const et = u32();
      const n = u64();
      if (et !== 8 && et !== 9 && SIZES[et]) {
        need(n * SIZES[et]);
        p += n * SIZES[et];
        return undefined;
      }
      for (let i = 0; i < n; i++) value(et);
      return undefined;
    }
    const s = SIZES[t];
    if (!s) throw bad(`a metadata value of unknown type ${t}`);
    need(s);
    const v = s === 4 ? view.getUint32(p, true) : s === 8 ? Number(view.getBigUint64(p, true)) : undefined;
    p += s;
    return v;
  };
  need(4);
  if (view.getUint32(0, true) !== 0x46554747) {
    const start = new TextDecoder().decode(new Uint8Array(view.buffer, 0, Math.min(4, view.byteLength)));
    throw bad(`it starts with ${JSON.stringify(start)}, not "GGUF"`);
  }
  p = 4;
  const version = u32();
  if (version !== 2 && version !== 3) throw bad(`GGUF version ${version} (llama.cpp reads 2 and 3)`);
  const tensors = u64();
  const kvs = u64();
  const meta = {};
  for (let i = 0; i < kvs; i++) {
    const k = str();
    meta[k] = value(u32());
  }
  let known = true;
  let dataEnd = 0;
  for (let i = 0; i < tensors; i++) {
    str();
    const dims = u32();
    let n = 1;
    for (let d = 0; d < dims; d++) n *= u64();
    const type = TYPES[u32()];
    const offset = u64();
    if (!type) known = false;
    else dataEnd = Math.max(dataEnd, offset + Math.ceil(n / type[1]) * type[0]);
  }
  const align = meta["general.alignment"] || 32;
  const dataStart = Math.ceil(p / align) * align;
  const arch = meta["general.architecture"];
  return { contextLength: meta[`${arch}.context_length`], end: known ? dataStart + dataEnd : p };
}

// ggufLater is the engine backend over a GGUF model that is there (a file, or cached)
// but not loaded: a chain's later member (js/chain.js), loaded when a step first reaches
// it, so that a fallback costs no memory until it is used. Its window and tool format
// are the engine backend's defaults unless the backend sets contextWindow or nativeTools.
export function ggufLater(backend) {
  const { rest } = ggufOptions(backend);
  const createChatCompletion = async (request) => (await ggufBackend(backend, null, request.abortSignal)).engine.createChatCompletion(request);
  return { ...rest, kind: "engine", engine: { createChatCompletion } };
}
