// The page half of the chaos suite (internal/testing/chaos, docs/testing.md). run() drives the js/ face
// as a page would, through random steps drawn from one seed: prompts whose schedule
// makes the chaos server (server.go) misbehave, tools that throw, hang, return garbage
// or huge values, and a page that aborts, destroys, clones, appends and prompts again at
// random points. After every step it checks the invariants of DESIGN.md §3:
//
//   - a failed prompt leaves history and contextUsage exactly as before, with a named
//     error (the signal's own reason when the page aborted);
//   - every call in the history has exactly one result, and every result one call, but
//     for the calls an open or hybrid prompt handed back: those stand at the end of the
//     history, and are exactly the tool-call parts the prompt resolved to;
//   - contextUsage is the sum of the history's costs (what measureContextUsage says of
//     each message, plus the tool declarations) when the server reports no usage, and
//     the usage the server reported for the last step of an answered prompt when it does;
//   - no promise is left pending after destroy() (all settle, in-flight ones AbortError),
//     and a tool still running when its prompt settles has seen its signal abort;
//   - the API key is in no error, transcript, history or event, and no fetch carries it
//     except those to the configured base URL;
//   - a prompt whose schedule has nothing fatal in it (retryable storms of at most three
//     faults, tools that throw or return garbage, unknown tools) is answered.
//
// Unhandled rejections and console errors are the host's to catch (the wazero host prints
// them on stderr; browser tests read the page's console). Every loop is bounded: a
// watchdog fails a step whose promise has not settled after 20 s. Given seq (sequence.js),
// it marks its acts and checks there, so that a run's order of events can be replayed.
// It uses only what goja has: no async generators, no for await.

const KEY_ERRORS = new Set(["AbortError", "NetworkError", "OperationError", "NotAllowedError", "QuotaExceededError"]);
const RETRYABLE = ["429", "429ra", "500", "502ra", "503", "503ra"];
const FATAL = ["trunc", "badjson", "html", "empty", "401", "huge", "huge500", "400", "404"];
const MAX_REPEATED = 3; // toolUseConfig.maxRepeatedCalls when the page gives none
const SAFE_TOOLS = ["ok", "throw", "garbage", "slow", "nosuch", "progress"];
const WATCHDOG_MS = 20000;

// mulberry32: a small seeded PRNG, so a seed replays the same schedule.
function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// garbage is what a careless tool returns: unserialisable, odd or empty values.
function garbage(i) {
  const cyc = { a: 1 };
  cyc.self = cyc;
  const all = [undefined, null, NaN, Infinity, -0, "", [], {}, () => 1, Symbol("s"), cyc,
    { toJSON() { throw new Error("toJSON says no"); } }, [1, [2, [3]]], { "": { "\u0000": "\ud800" } },
    new Date(0), new Uint8Array(3), Object.create(null)];
  if (typeof BigInt === "function") all.push(BigInt(10));
  return all[i % all.length];
}

export async function run(lm, { seed, steps, baseURL, key, hugeTool = 1 << 20, trace, seq }) {
  const { LanguageModel } = lm;
  const rand = mulberry32(seed >>> 0);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const chance = (p) => rand() < p;
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const violations = [];
  const counts = { prompts: 0, answered: 0, rejected: {}, sessions: 0, destroyed: 0, clones: 0, appends: 0, aborts: 0, fetches: 0, usageChecks: 0, sumChecks: 0, lateCancels: 0, hangs: 0, handedBack: 0, textProtocol: 0, limits: 0 };
  let step = 0;
  const fail = (what) => {
    const c = cur?.cfg;
    const session = c ? ` (${c.mode}${c.textProtocol ? ", text protocol" : ""}${c.usage ? ", usage" : ""}${c.small ? ", small window" : ""})` : "";
    violations.push(`step ${step}${session}: ${what}`);
  };
  const leaks = (what, v) => {
    let s;
    try { s = typeof v === "string" ? v : JSON.stringify(v); } catch { s = String(v); }
    if (s && s.includes(key)) fail(`the key in ${what}: ${s.slice(0, 200)}`);
  };

  // Every fetch the page makes: only those to the base URL may carry the key, and only
  // in the Authorization header.
  const realFetch = globalThis.fetch;
  globalThis.fetch = function (url, init = {}) {
    counts.fetches++;
    const u = String(url);
    const headers = JSON.stringify(init.headers ?? {});
    if (!u.startsWith(baseURL.usage) && !u.startsWith(baseURL.plain)) {
      leaks("a request to " + u, headers);
    }
    leaks("a request body to " + u, String(init.body ?? ""));
    return realFetch.call(this, url, init);
  };

  // Every promise the page holds, so that destroy() can be checked to settle them all.
  const track = (p, s) => {
    const t = { settled: false, s };
    t.done = p.then((v) => { t.settled = true; t.value = v; }, (e) => { t.settled = true; t.error = e; });
    return t;
  };
  // settle waits for t within the watchdog; false when it did not settle.
  const settle = async (t, what) => {
    let timer;
    const dog = new Promise((r) => { timer = setTimeout(r, WATCHDOG_MS); });
    await Promise.race([t.done, dog]);
    clearTimeout(timer);
    if (!t.settled) fail(`${what} still pending after ${WATCHDOG_MS} ms`);
    return t.settled;
  };

  const tools = (abortSeen, hangStarted) => [
    { name: "ok", description: "Looks something up", execute: (a) => "found " + a.q },
    { name: "throw", description: "Always fails", execute: () => { throw new Error("the tool failed"); } },
    { name: "garbage", description: "Returns odd values", execute: () => garbage(int(0, 99)) },
    { name: "slow", description: "Takes a while", execute: async (a) => { await sleep(int(0, 5)); return { q: a.q, n: 1 }; } },
    { name: "progress", description: "Reports progress", execute: async (a, ctx) => { for (let i = 0; i < 5; i++) ctx.progress(i); return [{ type: "text", value: "done" }]; } },
    { name: "huge", description: "Returns too much", execute: () => "x".repeat(hugeTool) },
    { name: "hang", description: "Never answers", execute: (a, ctx) => new Promise((_, reject) => {
      hangStarted.push(ctx.callID);
      ctx.signal.addEventListener("abort", () => { abortSeen.push(ctx.callID); reject(ctx.signal.reason); });
    }) },
  ].map((t) => ({ ...t, inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }));

  // A session with random options; its usage before any message is its declarations'.
  const newSession = async () => {
    counts.sessions++;
    const usage = chance(0.5);
    const small = chance(0.2);
    // closed: every tool runs in the module; open: none does, the calls come back to the
    // page; hybrid: the first three run, the others come back.
    const mode = pick(["closed", "closed", "closed", "open", "hybrid"]);
    const textProtocol = chance(0.25); // calls as blocks in the text (loop/textproto)
    if (textProtocol) counts.textProtocol++;
    const cfg = {
      usage, small, mode, textProtocol,
      max: int(1, 6), onLimit: pick(["error", "answer"]), parallel: chance(0.7),
      abortSeen: [], hangStarted: [],
    };
    const s = await LanguageModel.create({
      backend: { kind: "openai", baseURL: usage ? baseURL.usage : baseURL.plain, model: "tiny", apiKey: key, ...(small ? { contextWindow: 900 } : {}), ...(textProtocol ? { nativeTools: false } : {}) },
      tools: tools(cfg.abortSeen, cfg.hangStarted).map((t, i) =>
        mode === "open" || (mode === "hybrid" && i >= 3) ? { ...t, execute: undefined } : t),
      ...(mode === "closed" ? {} : { expectedOutputs: [{ type: "text" }, { type: "tool-call" }] }),
      // the page measures the exported history and answers handed-back calls: both are
      // caller-supplied tool calls and responses, which the spec asks to be declared
      expectedInputs: [{ type: "text" }, { type: "tool-call" }, { type: "tool-response" }],
      toolUseConfig: { maxToolCalls: cfg.max, onLimit: cfg.onLimit, parallel: cfg.parallel },
    });
    watch(s);
    return { s, cfg, usage0: s.contextUsage, overflowed: false, events: 0 };
  };
  let cur;
  const watch = (s) => {
    const on = (e) => {
      leaks("a " + e.type + " event", e.detail ?? null);
      if (cur && cur.s === s && e.type === "contextoverflow") cur.overflowed = true;
    };
    for (const t of ["toolcall", "toolprogress", "toolresult", "contextoverflow", "quotaoverflow"]) s.addEventListener(t, on);
  };

  const snapshot = (s) => ({ h: JSON.stringify(s.history), u: s.contextUsage });

  // The history's calls and results pair up. Calls without a result are allowed only in
  // open and hybrid sessions, and only at the end of the history (the calls a prompt
  // handed back); openCalls returns them.
  const openCalls = (s) => {
    const h = s.history, out = [];
    for (let i = h.length - 1; i >= 0 && (h[i].role === "tool-call" || h[i].role === "tool-result"); i--) {
      if (h[i].role === "tool-result") break;
      out.unshift(...h[i].content.map((p) => p.value));
    }
    return out;
  };
  const checkCalls = (s, what, mode) => {
    const open = new Map();
    const answered = new Set();
    for (const m of s.history) {
      for (const p of m.content) {
        if (p.type === "tool-call") {
          if (open.has(p.value.callID) || answered.has(p.value.callID)) fail(`${what}: call id ${p.value.callID} used twice`);
          open.set(p.value.callID, p.value.name);
        } else if (p.type === "tool-result" || p.type === "tool-response") {
          if (!open.has(p.value.callID)) fail(`${what}: a result for ${p.value.callID}, which has no open call`);
          open.delete(p.value.callID);
          answered.add(p.value.callID);
        }
      }
    }
    const handedBack = mode === "closed" ? new Set() : new Set(openCalls(s).map((c) => c.callID));
    for (const id of handedBack) open.delete(id);
    if (open.size) fail(`${what}: calls without a result: ${[...open.keys()].join(", ")}`);
  };

  // contextUsage against the history: the exact sum when the server reports no usage.
  const checkUsage = async (c, what) => {
    if (c.cfg.usage) return;
    counts.sumChecks++;
    const h = c.s.history;
    let sum = c.usage0;
    for (const m of h) sum += await c.s.measureContextUsage([m]);
    if (c.s.contextUsage !== sum) fail(`${what}: contextUsage ${c.s.contextUsage}, but the declarations and the history's messages cost ${sum}`);
  };

  // plan draws a prompt's schedule: tool rounds, then a text answer, each answer maybe
  // behind a storm of retryable faults or replaced by a fatal one.
  const plan = (c) => {
    let fatal = false, needsStop = false, risky = false;
    const asked = {}; // calls of each tool: every call carries the same arguments (server.go)
    const answer = (final) => {
      const storm = [];
      if (chance(0.25)) for (let n = int(1, 4); n > 0; n--) storm.push(pick(RETRYABLE));
      if (storm.length > 3) fatal = true;
      let a = final;
      if (chance(0.12)) {
        a = pick(FATAL);
        fatal = true;
      } else if (chance(0.04)) {
        a = "stall";
        needsStop = true;
      }
      return [...storm, a].join("+");
    };
    const steps = [];
    for (let r = int(0, 3); r > 0; r--) {
      const tool = chance(0.08) ? "hang" : chance(0.05) ? "huge" : pick(SAFE_TOOLS);
      if (tool === "hang") needsStop = true;
      if (tool === "huge") risky = true;
      const two = chance(0.3);
      asked[tool] = (asked[tool] ?? 0) + (two ? 2 : 1);
      steps.push(answer((two ? pick(["call2:", "call2:", "dup2:"]) : "call:") + tool));
      if (fatal || needsStop) break;
    }
    if (!fatal && !needsStop) steps.push(answer("text"));
    // A limit under onLimit "error" rejects the prompt: maxToolCalls, or the same call more
    // often than maxRepeatedCalls allows (its default, 3: loop.DefaultMaxRepeatedCalls).
    const calls = Object.values(asked);
    const overLimit = calls.reduce((a, n) => a + n, 0) > c.cfg.max || calls.some((n) => n > MAX_REPEATED);
    const clean = !fatal && !needsStop && !risky && !c.cfg.small;
    const expectOK = clean && !(overLimit && c.cfg.onLimit === "error");
    // In a closed session the loop answers every call, so it counts every call the plan
    // asks for: over a limit under "error", the limit is what stops the prompt.
    const expectLimit = clean && overLimit && c.cfg.onLimit === "error" && c.cfg.mode === "closed";
    return { spec: steps.join("|"), expectOK, expectLimit, needsStop };
  };

  // later runs f at a random point: in this task, a few microtasks on, or a few ms on.
  const later = (f) => {
    const how = int(0, 3);
    if (how === 0) { f(); return; }
    if (how === 1) {
      let p = Promise.resolve();
      for (let n = int(1, 8); n > 0; n--) p = p.then(() => {});
      p.then(f);
      return;
    }
    setTimeout(f, how === 2 ? 0 : int(1, 40));
  };

  const readAll = async (stream, cancelAt) => {
    const r = stream.getReader();
    const out = [];
    for (;;) {
      const { done, value } = await r.read();
      if (done) return out;
      out.push(value);
      if (out.length === cancelAt) {
        await r.cancel();
        const e = new DOMException("cancelled by the page", "AbortError");
        e.cancelledByPage = true;
        throw e;
      }
    }
  };

  // The page's results for calls handed back: a text, an error, or garbage-free objects.
  const resultsFor = (calls) => calls.map((call, i) => ({ type: "tool-result", value: i % 3 === 2
    ? { callID: call.callID, name: call.name, errorMessage: "the page refused" }
    : { callID: call.callID, name: call.name, result: [i % 3 ? { type: "object", value: { q: call.arguments.q ?? null } } : { type: "text", value: "from the page" }] } }));

  const promptStep = async () => {
    const c = cur;
    const s = c.s;
    const p = plan(c);
    const text = `step ${step}: chaos[${p.spec}]`;
    // Calls handed back by the last prompt: answered with append(), inside this prompt,
    // or not at all (the module answers them with an error before the new input).
    let input = text;
    const pending = c.cfg.mode === "closed" ? [] : openCalls(s);
    if (pending.length) {
      const how = pick(["append", "inline", "none"]);
      if (how === "append") {
        const b = snapshot(s);
        c.overflowed = false;
        await s.append([{ role: "tool-result", content: resultsFor(pending) }]);
        if (!c.overflowed && JSON.stringify(s.history.slice(0, JSON.parse(b.h).length)) !== b.h) fail("append() of tool results rewrote the history");
        if (openCalls(s).length) fail("append() of every result left calls open");
      } else if (how === "inline") {
        input = [{ role: "tool-result", content: resultsFor(pending) }, { role: "user", content: text }];
      }
      counts.handedBack += pending.length;
    }
    trace?.(`step ${step}: prompt ${p.spec}`);
    const before = snapshot(s);
    c.overflowed = false;
    let action = pick(["none", "none", "none", "none", "abort", "destroy", "clone", "append", "second", "stream"]);
    if (p.needsStop && !["abort", "destroy"].includes(action)) action = pick(["abort", "destroy"]);
    const ac = new AbortController();
    counts.prompts++;
    const t = track(action === "stream"
      ? readAll(s.promptStreaming(input, { signal: ac.signal }), chance(0.3) ? int(1, 20) : -1)
      : s.prompt(input, { signal: ac.signal }), s);
    let aborted = false, destroyed = false, extra = null, clone = null;
    const act = () => {
      const go = () => {
        if (t.settled) return;
        if (action === "abort") { aborted = true; counts.aborts++; ac.abort(); }
        if (action === "destroy") { destroyed = true; s.destroy(); }
      };
      const wait = seq?.at(step, "act"); // replaying: waits for what the page had seen (sequence.js)
      if (wait) wait.then(go); else go();
    };
    if (action === "abort" || action === "destroy") {
      if (p.needsStop) setTimeout(act, int(1, 40)); else later(act);
    }
    if (action === "clone") { counts.clones++; clone = track(s.clone(), s); }
    if (action === "append") { counts.appends++; extra = track(s.append(`appended at step ${step}`), s); }
    if (action === "second") extra = track(s.prompt(`step ${step} again: chaos[text]`), s);
    if (!(await settle(t, `the prompt (${action}, ${p.spec})`))) {
      s.destroy();
      cur = await newSession();
      return;
    }
    if (extra) await settle(extra, "the request queued behind the prompt");
    if (clone) await settle(clone, "the clone queued behind the prompt");
    // A tool still running when its prompt settles sees its signal abort.
    await sleep(1);
    await seq?.at(step, "check");
    for (const id of c.cfg.hangStarted.splice(0)) {
      counts.hangs++;
      if (!c.cfg.abortSeen.includes(id)) fail(`the prompt settled (${action}) while tool call ${id} ran, and its signal never aborted`);
    }
    c.cfg.abortSeen.length = 0;

    if (destroyed) {
      counts.destroyed++;
      // Everything held on the session settles; in-flight work rejects with AbortError.
      for (const x of [t, extra, clone]) {
        if (!x) continue;
        if (x.error && x.error.name !== "AbortError" && x.error.name !== "InvalidStateError") fail(`after destroy, a promise rejected with ${x.error.name}: ${x.error.message}`);
        if (x.error) leaks("an error", x.error.message);
      }
      cur = await newSession();
      return;
    }
    // A stream the page cancels after the engine has answered keeps the answer (as a late
    // abort does): then the history holds the whole answer, or else it is as before.
    const lateCancel = t.error?.cancelledByPage && snapshot(s).h !== before.h;
    if (lateCancel) counts.lateCancels++;
    if (t.error && !lateCancel) {
      const e = t.error;
      counts.rejected[e.name] = (counts.rejected[e.name] ?? 0) + 1;
      if (aborted && e !== ac.signal.reason) fail(`aborted, but the prompt rejected with ${e.name}: ${e.message}, not the signal's reason`);
      if (!aborted && action !== "stream" && !KEY_ERRORS.has(e.name)) fail(`the prompt rejected with ${e.name}: ${e.message}`);
      if (p.expectOK && !aborted && action !== "stream") fail(`expected an answer to ${p.spec}, got ${e.name}: ${e.message}`);
      if (p.expectLimit && !aborted && action !== "stream") {
        counts.limits++;
        if (!/^(tool call limit reached|repeated tool call):/.test(e.message)) fail(`expected a limit to stop ${p.spec}, got ${e.name}: ${e.message}`);
      }
      leaks("an error message", e.message);
      if (e.transcript) leaks("an error's transcript", e.transcript);
      if (action !== "append" && action !== "second") {
        const after = snapshot(s);
        if (after.h !== before.h) fail(`the failed prompt (${e.name}: ${e.message}) changed the history:\n  before ${before.h.slice(-300)}\n  after  ${after.h.slice(-300)}`);
        if (after.u !== before.u) fail(`the failed prompt (${e.name}) changed contextUsage from ${before.u} to ${after.u}`);
      }
    } else {
      counts.answered++;
      if (p.expectLimit && !lateCancel) fail(`expected a limit to stop ${p.spec}, but the prompt was answered`);
      if (c.cfg.usage && !c.cfg.small && !["append", "second"].includes(action)) {
        // The server's own count of the last step replaces the estimate (History.Calibrate).
        const { total } = await (await realFetch(`${baseURL.usage}/chaos/usage?text=${encodeURIComponent(text)}`)).json();
        counts.usageChecks++;
        if (s.contextUsage !== total) fail(`contextUsage ${s.contextUsage} after an answer whose usage the server reported as ${total} (${p.spec})`);
      }
      if (!c.overflowed && action !== "append" && action !== "second" && !snapshot(s).h.startsWith(before.h.slice(0, -1))) fail("an answered prompt rewrote earlier history");
      if (!lateCancel) leaks("an answer", t.value);
      else if (c.cfg.mode === "closed" && s.history.at(-1)?.role !== "assistant") fail(`a stream cancelled late left a partial answer: the history ends with ${JSON.stringify(s.history.at(-1))}`);
    }
    if (extra?.error && !(extra.error.name === "QuotaExceededError" && c.cfg.small)) fail(`the request queued behind the prompt rejected: ${extra.error.name}: ${extra.error.message}`);
    if (clone) {
      if (clone.error) fail(`clone() rejected: ${clone.error.name}: ${clone.error.message}`);
      else {
        if (JSON.stringify(clone.value.history) !== JSON.stringify(s.history) && action === "clone") fail("the clone's history differs from the session's after the prompt it queued behind");
        if (clone.value.contextUsage !== s.contextUsage) fail(`the clone's contextUsage ${clone.value.contextUsage} differs from the session's ${s.contextUsage}`);
        clone.value.destroy();
      }
    }
    leaks("the history", s.history);
    checkCalls(s, "after the prompt", c.cfg.mode);
    if (t.value && Array.isArray(t.value) && !lateCancel) {
      // An open or hybrid answer: its tool-call parts are exactly the calls left open.
      const returned = t.value.filter((part) => part.type === "tool-call").map((part) => part.value.callID);
      const open = openCalls(s).map((call) => call.callID);
      if (!["second", "append", "stream"].includes(action) && JSON.stringify(returned) !== JSON.stringify(open)) fail(`the prompt handed back calls ${returned}, but the history leaves ${open} open (it ends ${JSON.stringify(s.history.slice(-3)).slice(0, 600)})`);
    }
    await checkUsage(c, "after the prompt");
  };

  cur = await newSession();
  for (step = 0; step < steps; step++) {
    seq?.at(step, "start");
    const op = rand();
    try {
      if (op < 0.75) await promptStep();
      else if (op < 0.82) {
        counts.appends++;
        const before = cur.s.contextUsage;
        const repaired = openCalls(cur.s).length > 0; // answered with an error first
        const m = `a note at step ${step}`;
        const cost = await cur.s.measureContextUsage(m);
        await cur.s.append(m);
        if (!cur.cfg.usage && !cur.overflowed && !repaired && cur.s.contextUsage !== before + cost && !cur.cfg.small) fail(`append() of ${cost} moved contextUsage from ${before} to ${cur.s.contextUsage}`);
        await checkUsage(cur, "after append()");
      } else if (op < 0.9) {
        counts.clones++;
        const c = await cur.s.clone();
        if (JSON.stringify(c.history) !== JSON.stringify(cur.s.history) || c.contextUsage !== cur.s.contextUsage) fail("clone() copied neither history nor usage");
        watch(c);
        cur.s.destroy();
        cur = { ...cur, s: c };
      } else {
        // destroy with nothing in flight: later calls are InvalidStateError, synchronously or not.
        const s = cur.s;
        s.destroy();
        counts.destroyed++;
        const late = track(s.prompt("after destroy"), s);
        await settle(late, "a prompt after destroy()");
        if (late.error?.name !== "InvalidStateError") fail(`a prompt after destroy() gave ${late.error ? late.error.name : "an answer"}`);
        cur = await newSession();
      }
    } catch (e) {
      fail(`unexpected ${e && e.name}: ${e && e.message}`);
      try { cur.s.destroy(); } catch {}
      cur = await newSession();
    }
  }
  cur.s.destroy();
  globalThis.fetch = realFetch;
  return { violations, counts, sequence: seq?.log, diverged: seq?.diverged() || undefined };
}
