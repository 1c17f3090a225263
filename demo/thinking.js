// The "thinking" demo model: a custom backend (backend: {kind: "custom", generate}) that,
// like a real model, thinks before it acts and writes its answer a few characters at a
// time. It follows the offline model's rules (RULES in tools.js: a rule whose tool the
// step does not offer is passed over, as there), but it writes each call as text, in the
// text protocol's ```tool_call block, over a second or so: the page sees the call form
// (toolcalldelta) before it happens (toolcall), and its thinking arrives as reasoning
// pieces (the reasoning event). It is not a language model either.

import { RULES } from "./tools.js";

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal.reason));
    const t = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

// textOf is a message's text (the text protocol renders calls and results as text).
const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => (p.type === "text" ? p.value : "")).join(""));

// callFor is the first rule that matches text and whose tool is offered, as a call:
// {name, arguments}. Its arguments come from text alone, the person's message.
function callFor(text, offered) {
  const lower = text.toLowerCase();
  for (const r of RULES) {
    const at = lower.indexOf(r.match);
    if (at < 0 || !offered.has(r.tool)) continue;
    const rest = text.slice(at + r.match.length).replace(/^[\s:,-]+/, "").replace(/[\s?!.]+$/, "");
    const args = JSON.parse(JSON.stringify(r.arguments ?? {}), (k, v) => (v === "{{text}}" ? rest : v));
    return { name: r.tool, arguments: args };
  }
  return null;
}

// offered names the tools the step offers: request.tools (native tools), else those the
// text protocol declares (### name) in the system message's tools list and after each
// tool search's result (the tools it found, from the next step on).
function offered(request) {
  const names = new Set((request.tools ?? []).map((t) => t.name));
  for (const m of request.messages) {
    const text = textOf(m);
    const at = text.indexOf(m.role === "system" ? "## Available tools\n" : "## Available tools found by search_tools\n");
    if (at >= 0) for (const d of text.slice(at).matchAll(/^### (\S+)$/gm)) names.add(d[1]);
  }
  return names;
}

// A repair round (the text protocol's): the module sends the model's reply back with a
// message of its own, which says what was wrong and shows the call format. That message
// is no person's words: the model goes by the message before its reply, as a model that
// corrects itself does, and never takes the repair's text for what it was asked.
const CALL_FORMAT = '```tool_call\n{"name": "<tool name>"';
const isRepair = (m) => m?.role === "user" && textOf(m).includes(CALL_FORMAT);

// asked is the message the step answers: the last one, or in a repair round the one the
// model's reply answered.
function asked(messages) {
  const n = messages.length;
  return isRepair(messages[n - 1]) && messages[n - 2]?.role === "assistant" ? messages[n - 3] : messages[n - 1];
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
    const last = asked(request.messages);
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
      const call = callFor(text, offered(request));
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
