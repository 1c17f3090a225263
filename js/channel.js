// The channel to the module, page side: requests with ids and their replies, and the
// engine's messages, read in order and handed on: its events to their session, its calls
// to the page (execute, approve, fetch, generate) to pagecalls.js (protocol.js).

import { abortReason, makeError } from "./errors.js";
import { microtask } from "./microtask.js";
import { attachment, unpackHistory } from "./pack.js";
import { PageCalls } from "./pagecalls.js";
import { EVENT_TYPES } from "./protocol.js";

// Channel speaks protocol.js over the module's port {send, query, connect}. fetchFn
// returns the fetch the engine's requests go through.
export class Channel {
  #port;
  #next = 1;
  #pending = new Map(); // request id → its Pending
  #answered = new Set(); // request ids whose reply has arrived and waits for its microtask
  #outbox = []; // requests to send once the page's synchronous code has run (see request)
  #flushing = false; // a microtask is sending the outbox
  #sessions = new Map(); // session key → event dispatcher
  #calls; // the engine's calls to the page (pagecalls.js)
  #dead = null;

  constructor(port, fetchFn) {
    this.#port = port;
    this.#calls = new PageCalls(this, this.#sessions, port, fetchFn);
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
  // callIDs), whose execute has started or whose approval is being asked (pagecalls.js).
  callsOf(key, pending) {
    return this.#calls.callsOf(key, pending);
  }

  unlisten(key) {
    this.#calls.forget(key);
    this.#sessions.delete(key);
  }

  // fail rejects everything pending with err, once and for all (the module stopped), and
  // aborts the page's calls running for the engine.
  fail(err) {
    this.#dead ??= err;
    for (const p of [...this.#pending.values()]) p.reject(err);
    this.#calls.abortAll(err);
  }

  // abortSession aborts the page's calls (tools, approvals) running for the session key
  // and drops what they answer (pagecalls.js): destroy() calls it before it rejects the
  // session's prompts.
  abortSession(key, reason) {
    this.#calls.abortSession(key, reason);
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
          this.#calls.execute(m);
          return;
        case "tool-approve":
          this.#calls.approve(m);
          return;
        case "fetch":
          this.#calls.fetch(m);
          return;
        case "generate":
          this.#calls.generate(m);
          return;
        case "fetch-more":
          this.#calls.more(m.id);
          return;
        case "tool-abort":
        case "fetch-abort":
        case "generate-abort":
          this.#calls.abort(m.id);
          return;
        default:
          // Events for a destroyed session find no listener: dropped on purpose.
          if (EVENT_TYPES.includes(m.type) || m.type === "modelstep") this.#sessions.get(m.session)?.(m.type, m.detail);
      }
    } catch (e) {
      console.error("language-model: while handling a message from the engine:", e);
    }
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
