// The JS face of the module: the Prompt API's LanguageModel, its tool classes, and
// install(), over one message channel to the Go engine running as WebAssembly (see
// protocol.js). Every JS-ism lives in js/ (Promises, ReadableStream, AbortSignal,
// EventTarget, DOMException, fetch, the browser's native LanguageModel); the rules live in
// the engine, so the face validates nothing the engine validates. Functions (execute,
// approve, generate) never cross the channel: they stay in a stash and travel as integer
// ids, as in esbuild's ObjectStash. The engine's HTTP goes out through fetch here, and
// page-supplied models run here, each streaming its answer back over the channel.
//
// This file is the entry a page imports; the face is split by concern, as esbuild's lib/:
//
//   webidl.js    the page's values (messages, options, backends) → plain data
//   media.js     Blobs, image sources and AudioBuffers → bytes (PNG, WAV)
//   session.js   LanguageModel: create, prompt, append, clone, destroy, events
//   snapshot.js  session.snapshot(), LanguageModel.restore()'s checks, snapshotStore() (IndexedDB)
//   stream.js    the ReadableStream promptStreaming() returns
//   channel.js   the channel to the module: requests, replies, the engine's messages handed on
//   pagecalls.js the engine's calls to the page: execute, approve, fetch, generate
//   tools.js     the tool classes
//   approvals.js approvals remembered: approve's {allow: "always"}, kept per declaration
//   agents.js    sessions as tools: a tool declared with agent runs a child session
//   native.js    the browser's own LanguageModel, as the "browser" backend
//   engine.js    in-page engines (wllama, WebLLM), as the "engine" backend
//   gguf.js      a GGUF model the module loads into wllama: download, cache, checks
//   chain.js     a chain of backends: availability(), and the members each create() takes
//   record.js    recordings: the model steps a record backend keeps, in order
//   install.js   install(): the handshake, the default backend, the globals
//   load.js      loading the module: its files, fetch with progress, wasm_exec.js, instantiation
//   port.js      the module's port: messages through its memory, by its exports
//   mirror.js    install({worker: true}): the module in a Worker, the page's copy of the histories
//   worker.js    the Worker's side: the module, relayed
//   language-model.node.js  the entry Node resolves: this one, reading files from disk
//   runtime.js   what install() leaves for the sessions
//   errors.js    exceptions from the engine's error data
//   stash.js     functions kept on the page, sent as ids
//   pack.js      a history packed for the engine: text messages without JSON
//   microtask.js microtask(fn), queueMicrotask's order at a fraction of its cost
//   webmcp.js    create({modelContext}): the page's WebMCP tools as the session's
//   protocol.js  the channel's messages (mirrored in wasm/protocol.go)
//
// It has no dependencies and no build step. Types: language-model.d.ts.

// Every file a page needs is named here, though only three export from it, so that a page
// that loads the files as they are (no bundler) fetches them all in one round trip, not
// one round trip per level of imports (a first visit measured 40 ms faster). mirror.js and
// worker.js are loaded by install() in worker mode only.
import "./agents.js";
import "./approvals.js";
import "./chain.js";
import "./channel.js";
import "./engine.js";
import "./errors.js";
import "./gguf.js";
import "./load.js";
import "./media.js";
import "./microtask.js";
import "./native.js";
import "./pack.js";
import "./pagecalls.js";
import "./port.js";
import "./protocol.js";
import "./record.js";
import "./runtime.js";
import "./snapshot.js";
import "./stash.js";
import "./stream.js";
import "./tools.js";
import "./webidl.js";
import "./webmcp.js";

export { install } from "./install.js";
export { LanguageModel } from "./session.js";
export { SNAPSHOT_VERSION, snapshotStore } from "./snapshot.js";
export { LanguageModelToolCall, LanguageModelToolError, LanguageModelToolSuccess } from "./tools.js";
