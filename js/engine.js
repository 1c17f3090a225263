// In-page engines as a backend ({kind: "engine", engine}): an object the page created that
// speaks OpenAI's Chat Completions in the page (a wllama instance's createChatCompletion,
// WebLLM's MLCEngine chat.completions.create, or anything of either shape). The engine (Go)
// builds the request and reads the chunks (loop/openai); this file only makes the call,
// as a generate function that the channel runs like a page's own (pagecalls.js generate:
// so a module in a Worker reaches the engine on the page, and generate-abort aborts the
// signal), and absorbs the engines' differences:
//  - wllama: createChatCompletion({...request, abortSignal}) resolves to an async iterable
//    of chunks, fed by its worker whether or not anyone reads; abortSignal stops its
//    decoding, and its stream then fails with an AbortError, which a reader that has left
//    never sees: the page would log it as an unhandled rejection. So a stream left early
//    is read to its end (the abort's AbortError, caught) instead of being returned;
//  - WebLLM: chat.completions.create(request) resolves to an async iterable of chunks;
//    engine.interruptGenerate() stops it (it takes no signal); its response_format is
//    {type: "json_object", schema: "<the schema as JSON text>"}, not OpenAI's json_schema;
//  - an engine that answers with one completion object instead of chunks: that object is
//    the one piece (the engine reads its message as it reads a server's).
// The request's model is left out when the backend names none: engines use the model they
// loaded, and WebLLM rejects a name it has not loaded. See RATIONALE.md "Why does an
// in-page engine cross the channel as a generate, and its chunks as objects?".

import { errorMessage } from "./errors.js";

// SAMPLERS: what samplingMode means to an engine beyond the temperature, which is the one
// sampling member of the module's request, and is there only when the session has a mode
// (loop/openai/request.go's temperatures: 0 for "most-predictable", 0.3 "predictable",
// and so on; none for "balanced"). llama.cpp's own samplers, which wllama passes on, from
// greedy decoding (top_k 1: the same answer every time) to the whole vocabulary (top_k 0);
// WebLLM gets top_p alone (it has no top_k or min_p). "balanced" leaves the engine's
// defaults (llama.cpp's: temperature 0.8, top_k 40, top_p 0.95, min_p 0.05). Here rather
// than in Go, where the table costs the module 0.6 KB brotli.
const SAMPLERS = new Map([
  [0, { top_k: 1 }],
  [0.3, { top_k: 20, top_p: 0.8, min_p: 0.1 }],
  [0.5, { top_k: 30, top_p: 0.9, min_p: 0.05 }],
  [0.9, { top_k: 60, top_p: 0.95, min_p: 0.05 }],
  [1.1, { top_k: 100, top_p: 0.98, min_p: 0.02 }],
  [1.3, { top_k: 0, top_p: 1, min_p: 0.01 }],
]);

// engineCall returns how to call engine, or null when it has neither shape. call.drain
// says that a stream left early is read to its end rather than returned (wllama's, above).
function engineCall(engine) {
  if (engine === null || (typeof engine !== "object" && typeof engine !== "function")) return null;
  if (typeof engine.createChatCompletion === "function") {
    const call = (request, signal) => engine.createChatCompletion({ ...request, ...SAMPLERS.get(request.temperature), abortSignal: signal });
    call.drain = true;
    return call;
  }
  const create = engine.chat?.completions?.create;
  if (typeof create === "function") {
    return (request, signal) => {
      if (typeof engine.interruptGenerate === "function") {
        signal.addEventListener("abort", () => {
          try {
            engine.interruptGenerate();
          } catch {
            // the engine had stopped already
          }
        }, { once: true });
      }
      const topP = SAMPLERS.get(request.temperature)?.top_p;
      if (topP !== undefined) request.top_p = topP;
      const format = request.response_format;
      if (format?.type === "json_schema") request.response_format = { type: "json_object", schema: JSON.stringify(format.json_schema.schema) };
      return create.call(engine.chat.completions, request);
    };
  }
  return null;
}

// engineGenerate drives engine as a generate function: each step is one streaming chat
// completion, each chunk one piece. The engine's async iterable goes to the channel
// behind a thin iterator of the same chunks, so that an abort both stops the engine (see
// above) and returns the engine's iterator; one completion instead of a stream is one
// piece. What the engine throws, before or mid-stream, is worded by engineFailed().
export function engineGenerate(engine) {
  const call = engineCall(engine);
  if (!call) throw new TypeError("invalid backend: backend.engine must be an object with createChatCompletion() (wllama) or chat.completions.create() (WebLLM)");
  const log = nativeLogs.get(engine) ?? null;
  return async (request, { signal, live }) => {
    const body = { ...request };
    if (!body.model) delete body.model;
    if (log) log.error = null;
    const failed = (e) => engineFailed(e, log);
    let out;
    try {
      out = await call(body, signal);
    } catch (e) {
      throw failed(e);
    }
    const iterate = out?.[Symbol.asyncIterator];
    if (typeof iterate !== "function") return out;
    return {
      [Symbol.asyncIterator]() {
        const it = iterate.call(out);
        let ahead = null; // what was read after held chunks and did not join them: the next call's
        const read = async () => {
          try {
            return await it.next();
          } catch (e) {
            throw failed(e);
          }
        };
        return {
          // Each piece crosses the channel into the module, which costs more than the
          // engine's own work on a small model (BenchmarkBrowser_WllamaOverhead), so
          // chunks that show the page nothing yet (wllama's first, the role alone; a tool
          // call's fragments, which the module relays once the stream has ended; the end
          // and the usage) are held and joined to the next, and cross with the first
          // that brings text, or at the end: text still crosses as it comes. When the
          // page listens for toolcalldelta (live), a call's fragments cross as they come.
          async next() {
            let held = null;
            for (;;) {
              const r = ahead ?? (await read());
              ahead = null;
              const joined = r.done ? null : held ? join(held, r.value) : simple(r.value) ? r.value : null;
              if (joined === null) {
                if (!held) return r;
                ahead = r;
                return { done: false, value: held };
              }
              const d = joined.choices[0]?.delta;
              if (d && (shows(d.content) || shows(d.reasoning_content) || shows(d.reasoning) || (live && d.tool_calls?.length > 0))) return { done: false, value: joined };
              held = joined;
            }
          },
          return(value) {
            if (call.drain) drain(it);
            else if (typeof it.return === "function") return it.return(value);
            return Promise.resolve({ done: true, value });
          },
        };
      },
    };
  };
}

// shows says whether a delta's member is text the page sees at once: the answer, or the
// reasoning (wllama's reasoning_content), which a reasoning event shows as it comes.
const shows = (s) => typeof s === "string" && s !== "";

// simple says whether join may take chunk: a chunk of one choice (index 0) with a delta
// whose tool calls, if any, have an index and their arguments as text (OpenAI's shape), or
// a usage chunk with no choice. Anything else crosses as it is.
function simple(chunk) {
  const c = chunk?.choices;
  if (!Array.isArray(c)) return false;
  if (c.length === 0) return Boolean(chunk.usage);
  const d = c[0]?.delta;
  if (c.length !== 1 || (c[0].index ?? 0) !== 0 || d === null || typeof d !== "object" || c[0].message !== undefined) return false;
  const calls = d.tool_calls ?? [];
  return Array.isArray(calls) && calls.every((t) => Number.isInteger(t?.index) && typeof (t.function?.arguments ?? "") === "string");
}

// join returns the one chunk that says what a and then b say (a tool call's fragments
// joined as the module joins them: by index, name and arguments appended), or null when b
// is not simple(). a is simple() and shows no text.
function join(a, b) {
  if (!simple(b)) return null;
  const ca = a.choices[0];
  const cb = b.choices[0];
  const out = { ...a, ...b };
  if (!b.usage && a.usage) out.usage = a.usage;
  if (!ca || !cb) {
    out.choices = ca ? a.choices : b.choices;
    return out;
  }
  const calls = (ca.delta.tool_calls ?? []).map((t) => ({ ...t, function: { ...t.function } }));
  for (const t of cb.delta.tool_calls ?? []) {
    const at = calls.find((u) => u.index === t.index);
    if (!at) {
      calls.push(t);
      continue;
    }
    if (t.id) at.id = t.id;
    if (t.type) at.type = t.type;
    at.function.name = (at.function.name ?? "") + (t.function?.name ?? "");
    at.function.arguments = (at.function.arguments ?? "") + (t.function?.arguments ?? "");
  }
  const delta = { ...ca.delta, ...cb.delta };
  if (calls.length > 0) delta.tool_calls = calls;
  out.choices = [{ ...ca, ...cb, delta, finish_reason: cb.finish_reason ?? ca.finish_reason ?? null }];
  return out;
}

// drain reads it to its end in the background, whatever it yields or throws.
async function drain(it) {
  try {
    while (!(await it.next()).done);
  } catch {
    // the abort's AbortError, or the engine's failure: nobody listens any more
  }
}

// engineFailed words an engine's exception for the page: "the in-page engine failed: "
// and the engine's own message, its name kept (the module keeps the names a model may
// raise, NotSupportedError, NetworkError, InvalidStateError…, and makes the rest an
// OperationError). One that comes after an abort is dropped by the channel unread.
// wllama 3.13.0 reports an exception of llama.cpp's request handling, which is where
// the chat template runs (one that raises on the messages: Mistral's on call ids,
// Hermes' on a tool message without a name), as a RuntimeError whose message is its
// own misreading of the reply ("Invalid typed array length: 1163217991", its GLUE
// header read as a length; Firefox and WebKit word it otherwise): llama.cpp's message
// went to its native log only. Such a failure is an OperationError that says what the
// log said (the chat template's own message where it raised) where the log was kept
// (log: a gguf engine's, js/gguf.js), and that the template most likely failed where not.
function engineFailed(e, log) {
  const message = errorMessage(e);
  if (e?.name === "RuntimeError" && /typed array|Uint8Array|out of range|out-of-bounds|buffer/i.test(message)) {
    const err = new Error(`the in-page engine failed: ${nativeReason(log?.error)}`);
    err.name = "OperationError";
    return err;
  }
  const err = new Error(`the in-page engine failed: ${message}`);
  err.name = typeof e?.name === "string" ? e.name : "Error";
  return err;
}

// nativeReason words what llama.cpp's log said of a request it failed (lines: its error
// line and the lines after it, or null). A template's exception ends with its own
// message ("Error: Jinja Exception: …", after where in the template it was raised).
function nativeReason(lines) {
  if (!lines) return "llama.cpp failed before answering, most likely in the chat template (wllama did not say why: it logs llama.cpp's message only with its native log on)";
  const raised = lines.findLast((l) => l.startsWith("Error: "));
  if (raised) return `the chat template failed: ${raised.slice("Error: ".length).replace(/^Jinja Exception: /, "")}`;
  return `llama.cpp failed: ${lines[0]}`;
}

// nativeLogs maps an engine made here (js/gguf.js) to what its native log said in error
// during the step under way ({error}: the error line and the lines after it, or null),
// which a failed step reports.
const nativeLogs = new WeakMap();

// keepNativeLog returns a wllama logger that keeps in log the first native error line of
// each step and the lines that follow it (a template's exception spans several), and
// prints only warnings: errors, and wllama's stack traces after them, reach the page as
// the step's failure. page is the page's own logger, which gets every line instead.
export function keepNativeLog(log, page) {
  const more = (...args) => {
    if (log.error && typeof args[0] === "string" && log.error.length < 20) log.error.push(args.join(" ").trim());
  };
  const error = (...args) => {
    if (log.error === null && typeof args[0] === "string" && !args[0].startsWith("Stack trace")) log.error = [args.join(" ").trim()];
    page?.error?.(...args);
  };
  return {
    debug: (...a) => page?.debug?.(...a),
    log: (...a) => (more(...a), page?.log?.(...a)),
    info: (...a) => (more(...a), page?.info?.(...a)),
    warn: (...a) => (page ? page.warn?.(...a) : console.warn(...a)),
    error,
  };
}

// recordNativeLog says that engine's native errors go to log (keepNativeLog's).
export function recordNativeLog(engine, log) {
  nativeLogs.set(engine, log);
}

// The probe: what the engine's chat template does with tools, learnt once per engine by
// rendering it, as llama.cpp learns a template's call syntax: wllama has no call that
// returns a rendered prompt, but every completion says how many tokens its prompt had
// (usage.prompt_tokens), so two requests that differ in one thing only (a tool's
// description; a call's arguments) render to the same count exactly when the template
// leaves that thing out. Each request asks for one token. A template that renders both
// the tool list and an assistant's calls gets native tools; one that leaves out either
// (Phi-4-mini's and SmolLM3's name tools and render neither; DeepSeek-R1's never names
// them), or raises on a well-formed call and its result (Gemma 3's, whose roles must
// alternate user and model), gets the module's text protocol, whose prompt and calls
// are text. The messages meet the strictest templates: a nine-character alphanumeric
// call id (Mistral), the tool's name on its result (Hermes). The reply to the first
// request says whether the engine takes the reply as starting inside a <think> block
// that the template opened (DeepSeek-R1's): llama.cpp then sends it as
// reasoning_content, and the module has no block to split (templateOpensThink false).
const probes = new WeakMap(); // engine → Promise<{native, thinks} | null>
const probed = new WeakMap(); // engine → {native, thinks}, once known

const probeTool = (description) => ({
  type: "function",
  function: { name: "look_up", description, parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] } },
});

const probeCall = (word) => [
  { role: "user", content: "Look a word up." },
  { role: "assistant", content: "", tool_calls: [{ id: "a1b2c3d4e", type: "function", function: { name: "look_up", arguments: JSON.stringify({ word }) } }] },
  { role: "tool", tool_call_id: "a1b2c3d4e", name: "look_up", content: "found" },
];

async function probe(engine) {
  const ask = (messages, description) =>
    engine.createChatCompletion({ messages, tools: [probeTool(description)], max_tokens: 1, temperature: 0, top_k: 1, stream: false });
  const count = (r) => r?.usage?.prompt_tokens;
  const short = "Looks a word up.";
  const first = await ask([{ role: "user", content: "Look a word up." }], short);
  const long = await ask([{ role: "user", content: "Look a word up." }], "Looks a word up in the dictionary of the language it is written in and answers with its meanings.");
  if (!Number.isInteger(count(first)) || !Number.isInteger(count(long))) return null;
  const reply = first.choices?.[0]?.message;
  const thinks = typeof reply?.reasoning_content === "string" && reply.reasoning_content !== "" && !reply.content;
  if (count(first) === count(long)) return { native: false, thinks };
  let a, b;
  try {
    a = await ask(probeCall("probe"), short);
    b = await ask(probeCall("a much longer phrase to look up"), short);
  } catch {
    return { native: false, thinks };
  }
  return { native: Number.isInteger(count(a)) && count(a) !== count(b), thinks };
}

// probeEngine probes engine once, and resolves to what it found, or null where it could
// not tell (the probe failed). Only a wllama engine is probed (createChatCompletion and
// getChatTemplate: llama.cpp's templates, which is what the probe reads); for any other
// object, WebLLM's engine or a page's own wrapper, it resolves to null at once.
export function probeEngine(engine) {
  if (typeof engine?.createChatCompletion !== "function" || typeof engine.getChatTemplate !== "function") return Promise.resolve(null);
  let p = probes.get(engine);
  if (!p) {
    p = probe(engine).then(
      (r) => {
        if (r) probed.set(engine, r);
        return r;
      },
      () => null,
    );
    probes.set(engine, p);
  }
  return p;
}

// wireEngine puts the driver of backend.engine into the stash for {kind: "engine"} (its id
// into ids, released with the session) as the wire backend's generate. A backend without
// contextWindow gets the engine's own where it tells it (wllama: the n_ctx its model was
// loaded with). Once the engine is probed (probeEngine, which create() awaits), one
// without nativeTools gets the module's text protocol when the engine's chat template
// leaves out the tool list or an assistant's calls (the model would not see the tools,
// or llama.cpp would have no call syntax to parse), and one without templateOpensThink
// gets false where the engine splits a block its template opened; {kind: "gguf"} comes
// here too.
export function wireEngine(engine, wire, ids, stash) {
  wire.generate = stash.store(engineGenerate(engine));
  ids.push(wire.generate);
  if (wire.contextWindow === undefined && typeof engine.getLoadedContextInfo === "function") {
    let n;
    try {
      n = engine.getLoadedContextInfo()?.n_ctx;
    } catch {
      // no model loaded (yet): the module's default window
    }
    if (Number.isInteger(n) && n > 0) wire.contextWindow = n;
  }
  const p = probed.get(engine);
  if (p && wire.nativeTools === undefined && !p.native) wire.nativeTools = false;
  if (p?.thinks && wire.templateOpensThink === undefined) wire.templateOpensThink = false;
}
