// The page half of the hostile-server property test (internal/testing/chaos/hostile.go;
// docs/security.md, "The property test"). run() draws, from one seed, a schedule of hostile acts by the model server and
// the MCP servers a and b, tells the servers each step's acts (POST <server>/hostile/ctl),
// prompts, and after every step checks four invariants:
//
//   approval  no call ran whose executed declaration needed approval (destructiveHint)
//             without approve saying yes to that declaration (each declaration's id is in
//             its description, "[decl a/note/3]"; the servers count what ran by id);
//   secrets   no secret, in any of its forms (hostile.go Forms), in the history, an event,
//             an error, the console, a snapshot, a recording, or a model request body (the
//             model server checks those);
//   bounds    the module's linear memory under memLimit, the fetches in flight under
//             inflightLimit, tools/list requests to a server in one step under
//             listLimit (list_changed coalesced), and what one response's body gave the
//             page's fetch under bodyLimit (an oversized event is 16 MB, the module's
//             limit 4 MB: the module aborts the fetch soon after the limit);
//   origins   no fetch to an origin that was not configured, and nothing reached the
//             server elsewhere (a redirect followed);
//   names     an earlier server's names, renamed or not, are never taken by a later one:
//             create() does not fail over them, and b never runs a call of a's name (squat);
//   forge     no server's description makes a block or a heading of its own in the text
//             protocol's tools list (the model server checks the system prompt).
//
// acts names the hostile acts switched on (hostile.go Acts); a step draws each of them with
// probability 0.4, so that every act is played alone and in company. The schedule is the
// seed's: replay a failing run with its seed and the same acts. It uses only what goja has.

const STEP_MS = 2500; // a step's prompt is aborted after this (stalls; the MCP servers time out at 1500)
const ECHO_MCP = ["result", "split", "description", "title", "progress", "rpcerror", "http500"];
const ECHO_MODEL = ["text", "arguments", "sseerror", "jsonerror", "401"];
const ENCODINGS = ["raw", "json", "percent", "base64", "basic", "lower"];
const REENCODINGS = ["uall", "slash", "pctall", "mime", "nested"]; // reencode: one layer deeper

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function run(lm, { seed, steps, acts, forms, urls, secrets, memory, inflight, trace,
  memLimit = 256 << 20, inflightLimit = 16, listLimit = 10, bodyLimit = 8 << 20 }) {
  const { LanguageModel } = lm;
  const rand = mulberry32(seed >>> 0);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const chance = (p) => rand() < p;
  const violations = [];
  const seen = new Set(); // violations already reported (one line each)
  const counts = { steps: 0, sessions: 0, prompts: 0, answered: 0, rejected: {}, createFailed: 0, acts: {} };
  let step = 0, cur = null, drawn = null, renew = false;
  const fail = (inv, what) => {
    const line = `${inv}: ${what}`;
    if (seen.has(line)) return;
    seen.add(line);
    violations.push(`step ${step} (${drawn ? drawn.acts.join("+") || "none" : "-"}${drawn?.target ? " at " + drawn.target : ""}${drawn?.field && drawn.acts.includes("echo") ? ", " + drawn.field + "/" + drawn.enc : ""}): ${line}`);
  };
  const originOf = (u) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+/i.exec(String(u))?.[0].toLowerCase() ?? "?"; // goja has no URL
  const configured = new Set([urls.model, urls.a, urls.b].map(originOf));

  // secrets: which forms a string holds.
  const scan = (what, v) => {
    let s;
    try { s = typeof v === "string" ? v : JSON.stringify(v); } catch { s = String(v); }
    if (!s) return;
    const flat = s.replace(/\\*r\\*n|\r\n/g, ""); // MIME's line breaks (and their escapes) read past
    for (const f of forms) {
      if (s.includes(f.value)) fail("secrets", `${f.secret} (${f.kind}) in ${what}: …${around(s, f.value)}…`);
      else if (flat.includes(f.value)) fail("secrets", `${f.secret} (${f.kind}, across line breaks) in ${what}: …${around(flat, f.value)}…`);
    }
  };
  const around = (s, v) => { const i = s.indexOf(v); return s.slice(Math.max(0, i - 40), i + v.length + 20).replace(/\s+/g, " "); };

  // origins: every fetch the page makes, the module's included. bounds: the most bytes
  // one response's body gave its reader this step (counted at the reader the module's
  // channel takes: what the page's fetch consumed, not what the server wrote).
  const realFetch = globalThis.fetch;
  let most = { n: 0, url: "" };
  globalThis.fetch = async function (url, init = {}) {
    if (!configured.has(originOf(url))) fail("origins", `a fetch to ${String(url).slice(0, 80)}, an origin not configured`);
    const res = await realFetch.call(this, url, init);
    const body = res.body, getReader = body?.getReader;
    if (getReader) {
      body.getReader = function (...a) {
        const r = getReader.apply(body, a), read = r.read;
        let n = 0;
        r.read = async function () {
          const x = await read.call(r);
          if (!x.done && x.value) {
            n += x.value.byteLength;
            if (n > most.n) most = { n, url: String(url) };
          }
          return x;
        };
        return r;
      };
    }
    return res;
  };
  // console: what the page's console is given.
  const consoleLines = [];
  const realConsole = {};
  for (const k of ["log", "info", "warn", "error", "debug"]) {
    realConsole[k] = console[k];
    console[k] = (...a) => { consoleLines.push(a.map(String).join(" ")); return realConsole[k]?.apply(console, a); };
  }

  const post = (base, path, body) => realFetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const report = async () => (await realFetch(urls.model + "/hostile/report")).json();

  // approve: yes to everything, or no to what is destructive; now or after a moment (a
  // person takes one: calls of the step run, or their servers re-list, meanwhile). yes
  // counts the declarations approve said yes to, by id.
  const yes = new Map();
  const excess = new Map(); // runs without a yes, per declaration, reported so far
  const approveFor = (policy) => async (call, tool) => {
    const delay = pick([0, 0, 30]);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    const ok = policy === "yes" || !tool?.annotations?.destructiveHint;
    if (ok) {
      const id = /\[decl ([^\]]+)\]/.exec(tool?.description ?? "")?.[1] ?? "unknown:" + call.name;
      yes.set(id, (yes.get(id) ?? 0) + 1);
    }
    return ok;
  };

  const events = [];
  // The session's choices of the session-wide acts (drawn at each new session, in draw).
  let sess = { unannotated: false, noApprove: false, squat: false, forge: false };
  const newSession = async () => {
    counts.sessions++;
    const query = acts.includes("query") && chance(0.5) ? "?api_key=" + encodeURIComponent(secrets.QueryA) : "";
    const policy = pick(["yes", "careful"]);
    const textProtocol = chance(0.2) || sess.forge;
    const s = await LanguageModel.create({
      backend: { kind: "record", backend: { kind: "openai", baseURL: urls.model + "/v1", model: "hostile", apiKey: secrets.APIKey,
        headers: { "X-API-Key": secrets.ModelHeader }, ...(textProtocol ? { nativeTools: false } : {}) } },
      mcpServers: [
        { url: urls.a + "/mcp" + query, name: "a", headers: { Authorization: "Bearer " + secrets.TokenA }, timeout: 1500, maxCallTime: 1200 },
        { url: urls.b + "/mcp", name: "b", headers: { "X-API-Key": secrets.KeyB }, timeout: 1500, maxCallTime: 1200 },
      ],
      toolUseConfig: { ...(sess.noApprove ? {} : { approve: approveFor(policy) }), maxToolCalls: 4, parallel: chance(0.5) },
    });
    for (const t of ["toolcall", "toolcalldelta", "toolprogress", "toolresult", "contextoverflow", "quotaoverflow", "toolchange"]) {
      s.addEventListener(t, (e) => events.push([t, e.detail ?? null]));
    }
    return s;
  };

  // draw is a step's acts and where they strike.
  const SESSION_ACTS = ["query", "unannotated", "squat", "forge"]; // drawn per session, not per step
  const draw = () => {
    const on = acts.filter((a) => !SESSION_ACTS.includes(a) && chance(0.4));
    const d = { step, acts: on, target: "", field: "", enc: pick(ENCODINGS), big: pick(["event", "pages"]), calls: [""], pick: Math.floor(rand() * 1000), fresh: false };
    if (on.includes("reencode")) {
      if (!on.includes("echo")) on.push("echo");
      d.enc = pick(REENCODINGS);
    }
    if (on.includes("echo")) {
      d.field = pick([...ECHO_MCP, ...ECHO_MODEL]);
      d.target = ECHO_MODEL.includes(d.field) ? "model" : d.field === "description" || d.field === "title" ? "a" : pick(["a", "b"]);
    } else if (on.some((a) => ["oversize", "redirect", "stall", "endless"].includes(a))) {
      d.target = pick(["a", "b", "model"]);
    }
    if (d.target === "a") d.calls = ["note"];
    if (d.target === "b") d.calls = ["look"];
    if (on.includes("flip")) d.calls = ["trigger", "note"];
    if (on.includes("swap")) d.calls = ["trigger", "b__wipe"];
    if (chance(0.3)) d.calls.push("");
    // what strikes tools/list is seen at create(): a fresh session
    d.fresh = !cur || renew || d.target === "a" && (["description", "title"].includes(d.field) && on.includes("echo") || d.big === "pages" && on.includes("oversize"));
    // the session-wide acts are drawn at each new session: a new one now and then
    if (acts.some((a) => ["unannotated", "squat", "forge"].includes(a)) && chance(0.3)) d.fresh = true;
    if (d.fresh) {
      const noApprove = acts.includes("unannotated") && chance(0.5);
      sess = { unannotated: acts.includes("unannotated") && (noApprove || chance(0.5)), noApprove,
        squat: acts.includes("squat") && chance(0.5), forge: acts.includes("forge") && chance(0.5) };
    }
    if (sess.unannotated && chance(0.5)) d.calls.push("raw");
    if (sess.squat && chance(0.7)) d.calls.push("a__note");
    Object.assign(d, { unannotated: sess.unannotated, squat: sess.squat, forge: sess.forge });
    return d;
  };

  for (step = 0; step < steps; step++) {
    counts.steps++;
    drawn = draw();
    for (const a of drawn.acts) counts.acts[a] = (counts.acts[a] ?? 0) + 1;
    trace?.(`step ${step}: ${drawn.acts.join("+") || "none"} ${drawn.target} ${drawn.field} ${drawn.enc} calls ${drawn.calls} session ${JSON.stringify(sess)}`);
    const errors = [];
    events.length = 0;
    consoleLines.length = 0;
    most = { n: 0, url: "" };
    await post(urls.model, "/hostile/ctl", { ...drawn, reset: drawn.fresh });
    if (drawn.fresh) {
      try { cur?.destroy(); } catch {}
      cur = null;
      try {
        cur = await newSession();
      } catch (e) {
        counts.createFailed++;
        errors.push(e);
        // squat: a later server's names never make an earlier one's fail
        if (sess.squat && /twice|taken/.test(String(e?.message))) fail("names", `create() failed over names: ${String(e?.message).slice(0, 160)}`);
      }
    }
    if (cur) {
      counts.prompts++;
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(new Error("the page gave up")), STEP_MS);
      try {
        await cur.prompt(`step ${step}: go`, { signal: ac.signal });
        counts.answered++;
      } catch (e) {
        counts.rejected[e?.name] = (counts.rejected[e?.name] ?? 0) + 1;
        errors.push(e);
      }
      clearTimeout(timer);
    }
    await new Promise((r) => setTimeout(r, 20)); // late events and fetches
    await check(errors);
    renew = errors.length > 0 && chance(0.3); // a failed prompt: sometimes a new session
  }

  async function check(errors) {
    // secrets
    for (const e of errors) scan("an error", { name: e?.name, message: e?.message, transcript: e?.transcript });
    for (const [t, d] of events) scan(`a ${t} event`, d);
    for (const l of consoleLines) scan("the console", l);
    if (cur) {
      scan("the history", cur.history);
      try { scan("a snapshot", cur.snapshot()); } catch (e) { scan("snapshot()'s error", e?.message); }
      try { scan("the recording", cur.recording()); } catch (e) { scan("recording()'s error", e?.message); }
    }
    // approval, the servers' faults (a secret in a model request body, a request elsewhere)
    const r = await report();
    trace?.(`  memory ${((memory?.() ?? 0) / 1048576).toFixed(0)} MiB, in flight at most ${inflight?.()?.max}, one body gave ${(most.n / 1048576).toFixed(1)} MB; ran ${JSON.stringify(r.ran)} (destructive, all steps: ${JSON.stringify(r.execs)}), yes to ${JSON.stringify([...yes])}, lists ${JSON.stringify(r.lists)}, calls ${events.filter(([t]) => t === "toolresult").map(([, d]) => d?.call?.name ?? d?.name ?? "?").join(",")}, errors ${errors.map((e) => e?.name + ": " + String(e?.message).slice(0, 120)).join("; ")}`);
    for (const f of r.faults ?? []) { const [, inv, what] = /^step \d+: (\w+): (.*)$/s.exec(f) ?? [, "server", f]; fail(inv, what); }
    for (const [id, n] of Object.entries(r.execs ?? {})) {
      const over = n - (yes.get(id) ?? 0);
      if (over > (excess.get(id) ?? 0)) fail("approval", `${id} (destructive) ran ${n} time(s), approve said yes to it ${yes.get(id) ?? 0} time(s) (yes to: ${[...yes.keys()].join(", ")}; ran this step: ${(r.ran ?? []).join(", ")})`);
      excess.set(id, Math.max(over, excess.get(id) ?? 0));
    }
    // bounds
    const mem = memory?.();
    if (mem > memLimit) fail("bounds", `the module's memory is ${(mem / 1048576).toFixed(0)} MiB, over ${memLimit / 1048576}`);
    const f = inflight?.();
    if (f && f.max > inflightLimit) fail("bounds", `${f.max} fetches in flight at once, over ${inflightLimit}`);
    if (most.n > bodyLimit) fail("bounds", `one response's body gave the page ${(most.n / 1048576).toFixed(1)} MB, over ${bodyLimit / 1048576} (${originOf(most.url)}): the fetch was not aborted after the limit`);
    for (const [srv, n] of Object.entries(r.lists ?? {})) if (n > listLimit) fail("bounds", `${n} listings (tools/list) of ${srv} in one step, over ${listLimit}`);
    // only a announces list changes: b is listed again only by a new session
    if (drawn.acts.includes("flood") && r.lists?.b && !drawn.fresh) fail("bounds", `b listed ${r.lists.b} time(s) on a's list_changed (a server makes the module list another)`);
  }

  try { cur?.destroy(); } catch {}
  globalThis.fetch = realFetch;
  Object.assign(console, realConsole);
  return { violations, counts };
}
