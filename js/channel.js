// The channel to the module, page side: requests with ids and their replies, the engine's
// calls to the page (execute, approve, fetch, generate) and its events (protocol.js).

import { answerOf, remember } from "./approvals.js";
import { abortReason, errorMessage, makeError } from "./errors.js";
import { microtask } from "./microtask.js";
import { attachment, unpackHistory } from "./pack.js";
import { EVENT_TYPES, FETCH_WINDOW } from "./protocol.js";
import { stash } from "./stash.js";
import { LanguageModelToolCall, LanguageModelToolError, LanguageModelToolSuccess, SESSION_KEY } from "./tools.js";
import { plain } from "./webidl.js";

// Channel speaks protocol.js over the module's port {send, query, connect}. fetchFn
// returns the fetch the engine's requests go through.
export class Channel {
  #port;
  #fetchFn;
  #next = 1;
  #pending = new Map(); // request id → its Pending
  #running = new Map(); // engine call id → AbortController of a running execute/approve/fetch/generate
  #more = new Map(); // engine call id → a running fetch's fetch-more handler
  #answered = new Set(); // request ids whose reply has arrived and waits for its microtask
  #outbox = []; // requests to send once the page's synchronous code has run (see request)
  #flushing = false; // a microtask is sending the outbox
  #sessions = new Map(); // session key → event dispatcher
  // A snapshot's (snapshot.js): session key → Map(callID → "running" | "approving") of the
  // calls the page is running or asking approval for; in a session that has taken a
  // snapshot (#tracked), an execute that ended stays "running" until its result is in the
  // history (callsOf prunes it then), since a snapshot taken before must not run it again.
  #started = new Map();
  #tracked = new Set();
  #dead = null;

  constructor(port, fetchFn) {
    this.#port = port;
    this.#fetchFn = fetchFn;
    // The module answers within send() itself: it runs until it waits before send
    // returns, and what it wrote arrives as one batch (a JSON array). Handling the batch
    // in a microtask keeps every answer asynchronous, as a page expects (an abort right
    // after prompt() rejects it), and keeps page code (execute, event handlers) from
    // running nested inside a call to the module.
    port.connect((text) => {
      let batch;
      try {
        batch = JSON.parse(text);
      } catch (e) {
        console.error("language-model: a message from the engine is not JSON:", e);
        return;
      }
      // A reply is the engine's word on the request: an abort that comes after it (in
      // this task, before the microtask) must not contradict it. An error is not: the
      // history is as before either way, so an abort still wins (the signal's reason).
      for (const m of batch) if (m.type === "reply" && !m.error) this.#answered.add(m.id);
      microtask(() => {
        for (const m of batch) this.#receive(m);
      });
    });
  }

  // request sends msg with a fresh id and resolves with the reply's value.
  //
  // The engine can answer within the call that delivers a request (Go runs until it
  // blocks), so the promise must agree with the history however an abort falls:
  //  - requests with a signal leave in a microtask, in order: an abort in the page's same
  //    synchronous code (prompt() then abort(), as pages written for Chrome do) finds the
  //    request unsent, rejects, and the engine never sees it (one without a signal leaves
  //    at once when nothing is queued before it);
  //  - an abort after sending tells the engine, which rolls its work back, and rejects
  //    at once with the signal's reason;
  //  - unless the engine has replied already (the reply waits for its microtask, or
  //    arrives while the abort is being sent): then the reply settles the promise.
  //
  // msg may be a Promise of the message (inputs with Blobs being read): requests posted
  // after it wait, so the engine still gets them in order; if it rejects, so does this.
  // inflight, when given, holds the request's Pending while it is pending (a session's
  // destroy() rejects them all).
  // onSettle, when given, is called as the request settles, before its promise does.
  request(msg, { signal, onChunk, inflight, onSettle } = {}) {
    if (this.#dead) return Promise.reject(this.#dead);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = this.#next++;
    const p = new Pending(this.#pending, id, signal, inflight, onSettle, onChunk);
    const promise = new Promise((resolve, reject) => {
      p.ok = resolve;
      p.no = reject;
    });
    this.#pending.set(id, p);
    inflight?.add(p);
    let sent = false;
    if (signal) {
      p.onAbort = () => {
        if (this.#pending.get(id) !== p || this.#answered.has(id)) return;
        // A reply that arrives while the abort is being sent settles the promise: a
        // result the engine had finished is kept (the history has it), and an error,
        // its AbortError or one that was on its way before the engine heard the abort
        // (a failed fetch, an overflow: the history is as before either way), becomes
        // the signal's own reason (see #receive).
        p.abortedWith = { reason: abortReason(signal) };
        if (sent) this.notify({ type: "abort", target: id });
        if (this.#answered.has(id)) return;
        // A module in a Worker rolls back after this returns: its reply (an AbortError)
        // rejects with the reason, so that session.history agrees (mirror.js).
        if (sent && this.#port.remote) return;
        p.reject(p.abortedWith.reason);
      };
      signal.addEventListener("abort", p.onAbort);
    }
    // A request nothing can abort (no signal; destroy() rejects it whenever it comes)
    // and that nothing waits before leaves at once, without a microtask of its own.
    if (!signal && !this.#flushing && !(msg instanceof Promise)) {
      try {
        msg.id = id;
        this.notify(msg);
      } catch (e) {
        p.reject(e); // as a throw in the promise's executor would
      }
      return promise;
    }
    this.#post(msg, (m, failed, why) => {
      if (this.#pending.get(id) !== p) return; // aborted, failed or destroyed before it left
      if (failed) {
        p.reject(why);
        return;
      }
      sent = true;
      m.id = id;
      this.notify(m);
    });
    return promise;
  }

  // #post calls send(msg) in a microtask, after the sends posted before it. A msg that is
  // a Promise holds the queue until it settles; send then gets its value, or
  // (undefined, true, the reason) if it rejected.
  #post(msg, send) {
    this.#outbox.push({ msg, send });
    if (this.#flushing) return;
    this.#flushing = true;
    microtask(() => this.#flush());
  }

  // #flush sends the outbox in order. It stays synchronous until it meets a message that
  // is a Promise, and only then waits (#flushAsync): most prompts have none, and an async
  // function per flush is a promise and a microtask each.
  #flush() {
    let waiting = false;
    try {
      while (this.#outbox.length > 0) {
        if (this.#outbox[0].msg instanceof Promise) {
          waiting = true;
          this.#flushAsync();
          return;
        }
        const { msg, send } = this.#outbox.shift();
        send(msg, false, undefined);
      }
    } finally {
      // A send that threw must not strand the requests behind it.
      if (!waiting) {
        if (this.#outbox.length > 0) microtask(() => this.#flush());
        else this.#flushing = false;
      }
    }
  }

  async #flushAsync() {
    const { msg, send } = this.#outbox.shift();
    let m;
    let failed = false;
    let why;
    try {
      m = await msg;
    } catch (e) {
      failed = true;
      why = e;
    }
    try {
      send(m, failed, why);
    } finally {
      microtask(() => this.#flush()); // the rest, in order
    }
  }

  // query asks history or usage synchronously.
  query(msg) {
    if (this.#dead) throw this.#dead;
    const r = JSON.parse(this.#port.query(JSON.stringify(msg)));
    if (r.error) throw makeError(r.error);
    return r.value;
  }

  // historyOf returns a session's history (session.history) as {history, json}: json
  // holds the messages of history that are not text alone, the only ones that may hold
  // tool calls and results (snapshot.js scans them). The module answers packed (pack.js
  // unpackHistory): the reply's JSON, with those messages in it, a newline, the packed
  // messages; so does worker mode's copy (mirror.js). An error is the reply alone.
  historyOf(key) {
    if (this.#dead) throw this.#dead;
    const s = this.#port.query(JSON.stringify({ type: "history", session: key, packed: true }));
    const nl = s.indexOf("\n");
    const r = JSON.parse(nl < 0 ? s : s.slice(0, nl));
    if (r.error) throw makeError(r.error);
    return { history: unpackHistory(r.value, s, nl + 1), json: r.value.json };
  }

  // notify sends msg, with its attachment (pack.js) if it has one.
  notify(msg) {
    if (!this.#dead) this.#port.send(JSON.stringify(msg), msg[attachment]);
  }

  listen(key, dispatch) {
    this.#sessions.set(key, dispatch);
  }

  // callsOf lists the calls of a session, among its unanswered ones (pending, a Set of
  // callIDs), whose execute has started or whose approval is being asked:
  // {running: [callID…], approving: [callID…]} (a snapshot saves them, snapshot.js).
  callsOf(key, pending) {
    this.#tracked.add(key);
    const out = { running: [], approving: [] };
    const calls = this.#started.get(key);
    if (calls) {
      for (const [id, kind] of calls) {
        if (pending.has(id)) out[kind].push(id);
        else calls.delete(id);
      }
    }
    return out;
  }

  unlisten(key) {
    this.#started.delete(key);
    this.#tracked.delete(key);
    this.#sessions.delete(key);
  }

  // fail rejects everything pending with err, once and for all (the module stopped).
  fail(err) {
    this.#dead ??= err;
    for (const p of [...this.#pending.values()]) p.reject(err);
    for (const c of this.#running.values()) c.abort(err);
    this.#running.clear();
  }

  // abortSession aborts the signals of the page's calls (tools, approvals) running for the
  // session key, and drops what they answer: destroy() calls it before it rejects the
  // session's prompts, so that a running tool has seen its signal abort by the time its
  // prompt settles. The engine's own tool-abort would do it too, but from a Worker it
  // comes a round trip later, after the rejection (TestModule_RemoteRaces forces that order).
  abortSession(key, reason) {
    for (const [id, c] of this.#running) {
      if (c.session !== key) continue;
      this.#running.delete(id);
      c.abort(reason);
    }
  }

  #receive(m) {
    try {
      switch (m.type) {
        case "reply": {
          this.#answered.delete(m.id);
          const p = this.#pending.get(m.id);
          if (!p) return; // aborted or failed already: dropped on purpose
          if (m.error) p.reject(p.abortedWith ? p.abortedWith.reason : makeError(m.error));
          else p.resolve(m.value);
          return;
        }
        case "chunk":
          this.#pending.get(m.id)?.onChunk?.(m.detail);
          return;
        case "warning": // the engine's word for the console (a secret too short to redact)
          console.warn(m.detail);
          return;
        case "tool-execute":
          this.#execute(m);
          return;
        case "tool-approve":
          this.#approve(m);
          return;
        case "fetch":
          this.#fetch(m);
          return;
        case "generate":
          this.#generate(m);
          return;
        case "fetch-more":
          this.#more.get(m.id)?.();
          return;
        case "tool-abort":
        case "fetch-abort":
        case "generate-abort": {
          const c = this.#running.get(m.id);
          this.#running.delete(m.id);
          c?.abort(new DOMException("The prompt that made this call was aborted.", "AbortError"));
          return;
        }
        default:
          // Events for a destroyed session find no listener: dropped on purpose.
          if (EVENT_TYPES.includes(m.type) || m.type === "modelstep") this.#sessions.get(m.session)?.(m.type, m.detail);
      }
    } catch (e) {
      console.error("language-model: while handling a message from the engine:", e);
    }
  }

  // #call runs fn for the engine call m and sends its tool-return, unless the engine
  // stopped waiting meanwhile (tool-abort). fn gets the call's LazyAbort and returns the
  // answer or a promise of it; finish, when given, turns the answer into the value sent
  // (one async function a call, not two: an execute is a step's largest cost in the face).
  async #call(m, fn, finish) {
    const ctrl = new LazyAbort(m.session);
    this.#running.set(m.id, ctrl);
    const kind = m.type === "tool-approve" ? "approving" : "running";
    let calls = this.#started.get(m.session);
    if (!calls) this.#started.set(m.session, (calls = new Map()));
    calls.set(m.call.callID, kind);
    this.#sessions.get(m.session)?.("calls"); // the session's snapshot changed
    let reply;
    try {
      const v = await fn(ctrl);
      reply = { type: "tool-return", id: m.id, value: finish ? finish(v) : v };
    } catch (e) {
      reply = { type: "tool-return", id: m.id, error: { message: errorMessage(e) } };
    }
    if (calls.get(m.call.callID) === kind && (kind === "approving" || !this.#tracked.has(m.session))) calls.delete(m.call.callID);
    if (this.#running.get(m.id) !== ctrl) return;
    this.#running.delete(m.id);
    this.notify(reply);
  }

  #execute(m) {
    this.#call(
      m,
      (ctrl) => {
        const execute = stash.get(m.fn);
        if (typeof execute !== "function") throw new TypeError(`tool ${m.call.name} has no execute`);
        return execute(m.call.arguments, new ToolContext(this, m, ctrl));
      },
      toolValue,
    );
  }

  #approve(m) {
    this.#call(m, async (ctrl) => {
      const { approve, tools } = stash.get(m.fn) ?? {};
      // approve is shown the declaration that will run, as the engine holds it, with its
      // source ({kind: "page"|"webmcp"|"mcp", name, origin}); a tool the page declared
      // keeps its own members (execute) beside it. A server given as a path is on the
      // page's origin.
      const info = m.toolInfo ?? { name: m.tool, source: { kind: "page" } };
      const declared = m.toolInfo && JSON.stringify(m.toolInfo); // as the engine described it
      const { source } = info;
      if (source.kind === "mcp" && !source.origin) source.origin = globalThis.location?.origin ?? "";
      const tool = source.kind === "mcp" ? info : { ...tools?.get(m.tool), ...info };
      const answer = answerOf(await approve(new LanguageModelToolCall(m.call), tool, { signal: ctrl.signal }));
      if (answer !== "always") return answer === "once" || answer;
      // {allow: "always"}: this declaration is allowed for the rest of the session
      // (approvals.js), unless the call was abandoned meanwhile or the session is gone.
      if (declared && !ctrl.aborted && this.#sessions.has(m.session)) {
        remember(this, m.session, JSON.parse(declared));
        this.#sessions.get(m.session)("calls"); // the session's snapshot changed
      }
      return true;
    });
  }

  // #fetch runs the engine's HTTP request and streams the response back: status and
  // headers, the body as text (one TextDecoder in stream mode, so a character split
  // across chunks arrives whole), then the end. fetch-abort aborts it. The request's
  // headers (the API key among them) go to fetch and nowhere else.
  //
  // Redirects are refused: followed, they would carry the request, its body and its
  // headers (an MCP server's X-API-Key, the model's key) to wherever a server points.
  // redirect: "manual", not "error": both send nothing to the Location, but "error"
  // fails as a bare network error ("Failed to fetch"), which says nothing of why, while
  // "manual" hands back the redirect itself (an opaque one in browsers, the 3xx in Node),
  // to be refused here by name. A response that was redirected all the same (a page's
  // own fetch that ignores redirect) is refused too.
  async #fetch(m) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    const live = () => this.#running.get(m.id) === ctrl;
    const { method, url, headers, body } = m.request;
    let reader;
    try {
      const fetchFn = this.#fetchFn();
      const res = await fetchFn(url, { method, headers, body, signal: ctrl.signal, redirect: "manual" });
      if (!live() || res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400) || res.redirected) {
        res.body?.cancel().catch(() => {});
        if (live()) throw new TypeError(`${where(url)} answered with a redirect${res.status ? ` (HTTP ${res.status})` : ""}, and the module follows none`);
        return;
      }
      const h = {};
      res.headers.forEach((value, name) => (h[name.toLowerCase()] = value));
      this.notify({ type: "fetch-response", id: m.id, status: res.status, headers: h });
      if (res.body) {
        reader = res.body.getReader();
        const decoder = new TextDecoder();
        // Paced by the engine (protocol.js FetchMore): sent counts UTF-16 units, allowed
        // grows a window at each fetch-more; a read waits while sent is two windows over.
        let sent = 0, allowed = 0, wake = null;
        this.#more.set(m.id, () => {
          allowed += FETCH_WINDOW;
          wake?.();
        });
        ctrl.signal.addEventListener("abort", () => wake?.());
        for (;;) {
          while (sent >= allowed + 2 * FETCH_WINDOW && live()) await new Promise((r) => (wake = r));
          wake = null;
          const { done, value } = live() ? await reader.read() : {};
          if (!live()) {
            reader.cancel().catch(() => {});
            return;
          }
          const data = done ? decoder.decode() : decoder.decode(value, { stream: true });
          sent += data.length;
          if (data) this.notify({ type: "fetch-chunk", id: m.id, data });
          if (done) break;
        }
      }
      this.#running.delete(m.id);
      this.notify({ type: "fetch-end", id: m.id });
    } catch (e) {
      if (!live()) return; // aborted: the engine no longer listens
      this.#running.delete(m.id);
      this.notify({ type: "fetch-end", id: m.id, error: { message: errorMessage(e) } });
    } finally {
      this.#more.delete(m.id);
    }
  }

  // #generate runs a page-supplied model (or the built-in driver of the native one):
  // generate(request, {signal}) may return a string, a piece, an array of pieces, an
  // async iterable of them, or a Promise of any of these. Each piece crosses as it comes;
  // the engine reads them (DESIGN.md §4). generate-abort aborts the signal and stops the
  // iteration.
  async #generate(m) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    const live = () => this.#running.get(m.id) === ctrl;
    const piece = (value) => this.notify({ type: "generate-piece", id: m.id, value: plain(value) });
    const end = { type: "generate-end", id: m.id };
    try {
      const generate = stash.get(m.fn);
      if (typeof generate !== "function") throw new TypeError("the backend's generate function is gone");
      const out = await generate(m.request, m.live ? { signal: ctrl.signal, live: true } : { signal: ctrl.signal });
      if (!live()) return;
      if (out !== null && typeof out === "object" && typeof out[Symbol.asyncIterator] === "function") {
        const it = out[Symbol.asyncIterator]();
        let exhausted = false;
        try {
          for (;;) {
            const r = await it.next();
            if (!live()) return;
            if (r.done) {
              exhausted = true;
              break;
            }
            piece(r.value);
            // A module in a Worker answers between tasks: a generator that never waits is
            // held back until it can hear an abort (WorkerPort.pace, mirror.js).
            if (this.#port.pace) await this.#port.pace();
          }
        } finally {
          // Aborted, or a piece that cannot cross: let the iterator clean up.
          if (!exhausted) {
            try {
              Promise.resolve(it.return?.()).catch(() => {});
            } catch {
              // the iterator's own business
            }
          }
        }
      } else if (Array.isArray(out)) {
        out.forEach(piece);
      } else if (out !== undefined && out !== null) {
        piece(out);
      }
    } catch (e) {
      end.error = { name: typeof e?.name === "string" ? e.name : "Error", message: errorMessage(e) };
    }
    if (!live()) return;
    this.#running.delete(m.id);
    this.notify(end);
  }
}

// Pending is a request awaiting its reply (Channel.request): resolve and reject settle it
// once, taking it out of the channel's pending map, its session's inflight set and its
// signal's listeners first. One object a request, not a closure per way it may end.
class Pending {
  ok = null; // the promise's resolve
  no = null; // and reject
  onAbort = null; // the signal's listener, when there is a signal
  abortedWith = null; // {reason} once the signal has aborted
  #map;
  #id;
  #signal;
  #inflight;
  #onSettle;

  constructor(map, id, signal, inflight, onSettle, onChunk) {
    this.#map = map;
    this.#id = id;
    this.#signal = signal;
    this.#inflight = inflight;
    this.#onSettle = onSettle;
    this.onChunk = onChunk;
  }

  #settle() {
    this.#map.delete(this.#id);
    this.#signal?.removeEventListener("abort", this.onAbort);
    this.#inflight?.delete(this);
    this.#onSettle?.();
  }

  resolve(v) {
    this.#settle();
    this.ok(v);
  }

  reject(e) {
    this.#settle();
    this.no(e);
  }
}

// toolValue is the value a tool's execute answered, as it crosses.
function toolValue(result) {
  if (result instanceof LanguageModelToolError) throw new Error(result.errorMessage);
  if (result instanceof LanguageModelToolSuccess) return plain(result.result);
  return plain(result);
}

// ToolContext is execute's second argument: {callID, callId, signal, progress}. signal and
// progress are getters on the class, made when first read (most tools read neither): an
// object literal with a getter would build a closure and a fresh object shape per call.
class ToolContext {
  #channel;
  #m;
  #ctrl;
  #progress = null;

  constructor(channel, m, ctrl) {
    this.#channel = channel;
    this.#m = m;
    this.#ctrl = ctrl;
    this.callID = m.call.callID;
    this.callId = m.call.callID;
    this[SESSION_KEY] = m.session; // whose call: an agent tool's parent (js/agents.js)
  }

  get signal() {
    return this.#ctrl.signal;
  }

  get progress() {
    if (!this.#progress) {
      const channel = this.#channel, ctrl = this.#ctrl, id = this.#m.id;
      this.#progress = (value) => {
        if (!ctrl.aborted) channel.notify({ type: "tool-progress", id, value: plain(value) });
      };
    }
    return this.#progress;
  }
}

// LazyAbort is an AbortController made when its signal is first asked for: most tools
// never read theirs, and a step's call would otherwise make one it throws away (the
// face's largest cost of a step after the channel's own). An abort before that is kept,
// and the signal, when asked for, is aborted with its reason.
class LazyAbort {
  #ctrl = null;
  #reason = undefined;
  aborted = false;

  constructor(session) {
    this.session = session; // the session key of the call (abortSession)
  }

  get signal() {
    if (!this.#ctrl) {
      this.#ctrl = new AbortController();
      if (this.aborted) this.#ctrl.abort(this.#reason);
    }
    return this.#ctrl.signal;
  }

  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.#reason = reason;
    this.#ctrl?.abort(reason);
  }
}

// where is url as an error names it: origin and path, never the user-info, query or
// fragment, which may hold a credential (?api_key=…); cut as fetchport.Where cuts it, not
// with URL, which not every host has.
function where(url) {
  const m = /^(?:([a-z][a-z0-9+.-]*:\/\/)(?:[^/?#\\]*@)?([^/?#\\]*))?([^?#]*)/i.exec(String(url));
  return (m[1] ?? "") + (m[2] ?? "") + m[3];
}
