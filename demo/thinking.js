// The "thinking" demo model: a custom backend (backend: {kind: "custom", generate}) that,
// like a real model, thinks before it acts and writes its answer a few characters at a
// time. It follows the offline model's rules (RULES in tools.js), but it writes each call
// as text, in the text protocol's ```tool_call block, over a second or so: the page sees
// the call form (toolcalldelta) before it happens (toolcall), and its thinking arrives as
// reasoning pieces (the reasoning event). It is not a language model either.

import { RULES } from "./tools.js";

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

// textOf is a message's text (the text protocol renders calls and results as text).
const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => (p.type === "text" ? p.value : "")).join(""));

// callFor is the first rule that matches text, as a call: {name, arguments}.
function callFor(text) {
  const lower = text.toLowerCase();
  for (const r of RULES) {
    const at = lower.indexOf(r.match);
    if (at < 0) continue;
    const rest = text.slice(at + r.match.length).replace(/^[\s:,-]+/, "").replace(/[\s?!.]+$/, "");
    const args = JSON.parse(JSON.stringify(r.arguments ?? {}), (k, v) => (v === "{{text}}" ? rest : v));
    return { name: r.tool, arguments: args };
  }
  return null;
}

// resultsIn reads the tool_result blocks of a message: [{name, result | error}].
function resultsIn(text) {
  const out = [];
  for (const m of text.matchAll(/```tool_result\n([\s\S]*?)\n```/g)) {
    try {
      out.push(JSON.parse(m[1]));
    } catch {
      // not a block the module wrote
    }
  }
  return out;
}

/** thinkingBackend is the model's backend; delay is the pause between pieces, in ms. */
export function thinkingBackend(delay = 40) {
  async function* generate(request, { signal }) {
    const last = request.messages.at(-1);
    const text = last ? textOf(last) : "";
    const results = resultsIn(text);
    const pieces = [];
    const think = (s) => pieces.push(...chunks(s, 12).map((value) => ({ type: "reasoning", value })));
    const say = (s, n = 6) => pieces.push(...chunks(s, n));
    if (results.length) {
      think(`The tool answered; I report what it said.`);
      for (const r of results) say(r.error !== undefined ? `${r.name} failed: ${r.error}\n` : `${r.name}: ${r.result}\n`);
    } else if (/\bexample of a call\b/i.test(text)) {
      // What looks like a call as it is written, and turns out to be prose: the card that
      // formed is dropped (toolcalldelta's dropped: true).
      think("They ask what a call looks like: I show one, which is not a call.");
      say("Here is what a call looks like:\n```json\n" + JSON.stringify([{ name: "calculate", arguments: { expression: "2 + 2" } }, "an example, not a call"]) + "\n```\n", 3);
    } else {
      const call = callFor(text);
      if (call) {
        think(`The message asks for ${call.name}; I call it with ${JSON.stringify(call.arguments)}.`);
        say("```tool_call\n" + JSON.stringify(call) + "\n```", 3);
      } else {
        think("No tool fits this message; I answer it myself.");
        say(`You said: ${text}`);
      }
    }
    for (const p of pieces) {
      await sleep(delay, signal);
      yield p;
    }
  }
  return { kind: "custom", generate, contextWindow: 8192 };
}

function chunks(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}
