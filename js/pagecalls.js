// The engine's calls to the page, page side (the page's half of wasm/pagecall.go,
// fetch.go and generate.go): a tool's execute, approve, the engine's HTTP through the
// page's fetch, and a page-supplied model's generate, each run here and answered over the
// channel (channel.js hands them over as they come). It keeps the calls that are running,
// so that an abort reaches them (the engine's tool-abort, destroy(), the module stopping)
// and a snapshot can list them (callsOf).

import { answerOf, remember } from "./approvals.js";
import { errorMessage } from "./errors.js";
import { FETCH_WINDOW } from "./protocol.js";
import { stash } from "./stash.js";
import { LanguageModelToolCall, LanguageModelToolError, LanguageModelToolSuccess, SESSION_KEY } from "./tools.js";
import { plain } from "./webidl.js";

// PageCalls runs the engine's calls for one channel. channel is the Channel (notify),
// sessions its map of session key → event dispatcher, port the module's port (pace, in
// worker mode), and fetchFn returns the fetch the engine's requests go through.
export class PageCalls {
  #channel;
  #sessions;
  #port;
  #fetchFn;
  #running = new Map(); // engine call id → AbortController of a running execute/approve/fetch/generate
  #more = new Map(); // engine call id → a running fetch's fetch-more handler
  // A snapshot's (snapshot.js): session key → Map(callID → "running" | "approving") of the
  // calls the page is running or asking approval for; in a session that has taken a
  // snapshot (#tracked), an execute that ended stays "running" until its result is in the
  // history (callsOf prunes it then), since a snapshot taken before must not run it again.
  #started = new Map();
  #tracked = new Set();

  constructor(channel, sessions, port, fetchFn) {
    this.#channel = channel;
    this.#sessions = sessions;
    this.#port = port;
    this.#fetchFn = fetchFn;
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

  // forget drops what is kept of a session that is gone (Channel.unlisten).
  forget(key) {
    this.#started.delete(key);
    this.#tracked.delete(key);
  }

  // abortAll aborts every running call with err (the module stopped: Channel.fail).
  abortAll(err) {
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

  // abort aborts the call id, at the engine's word that it stopped waiting (tool-abort,
  // fetch-abort, generate-abort).
  abort(id) {
    const c = this.#running.get(id);
    this.#running.delete(id);
    c?.abort(new DOMException("The prompt that made this call was aborted.", "AbortError"));
  }

  // more lets the running fetch id read on (fetch-more).
  more(id) {
    this.#more.get(id)?.();
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
    this.#channel.notify(reply);
  }

  execute(m) {
    this.#call(
      m,
      (ctrl) => {
        const execute = stash.get(m.fn);
        if (typeof execute !== "function") throw new TypeError(`tool ${m.call.name} has no execute`);
        return execute(m.call.arguments, new ToolContext(this.#channel, m, ctrl));
      },
      toolValue,
    );
  }

  approve(m) {
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
        remember(this.#channel, m.session, JSON.parse(declared));
        this.#sessions.get(m.session)("calls"); // the session's snapshot changed
      }
      return true;
    });
  }

  // fetch runs the engine's HTTP request and streams the response back: status and
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
  async fetch(m) {
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
      this.#channel.notify({ type: "fetch-response", id: m.id, status: res.status, headers: h });
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
          if (data) this.#channel.notify({ type: "fetch-chunk", id: m.id, data });
          if (done) break;
        }
      }
      this.#running.delete(m.id);
      this.#channel.notify({ type: "fetch-end", id: m.id });
    } catch (e) {
      if (!live()) return; // aborted: the engine no longer listens
      this.#running.delete(m.id);
      this.#channel.notify({ type: "fetch-end", id: m.id, error: { message: errorMessage(e) } });
    } finally {
      this.#more.delete(m.id);
    }
  }

  // generate runs a page-supplied model (or the built-in driver of the native one):
  // generate(request, {signal}) may return a string, a piece, an array of pieces, an
  // async iterable of them, or a Promise of any of these. Each piece crosses as it comes;
  // the engine reads them (DESIGN.md §4). generate-abort aborts the signal and stops the
  // iteration.
  async generate(m) {
    const ctrl = new AbortController();
    this.#running.set(m.id, ctrl);
    const live = () => this.#running.get(m.id) === ctrl;
    const piece = (value) => this.#channel.notify({ type: "generate-piece", id: m.id, value: plain(value) });
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
    this.#channel.notify(end);
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
