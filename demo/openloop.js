// The open loop: the module hands each step's calls back, and the page runs them (pausing
// before each if the settings ask, asking before a destructive tool), shows them on their
// cards, and sends the results back, until the model answers in text.
//
// The page counts the turn's calls itself, as the settings' maxToolCalls and onLimit say:
// the module's maxToolCalls counts the calls it handles in one prompt() (docs/design.md
// "Tools and modes", docs/decisions.md), and an open loop's calls are handed back, never
// handled, each step's results going back in a prompt() of their own, so the module has
// no count of a turn's calls to keep. Past the limit the page answers each call over it
// with a tool error in the module's words; under "error" it then sends those answers
// (append(), so that no call stays without its result) and fails the turn with the
// OperationError the module words so, and under "answer" the model is asked on.

import { LanguageModelToolError, LanguageModelToolSuccess } from "../js/language-model.js";
import { ask, liveCall, liveText, setCall, update } from "./live.js";
import { byName, state } from "./state.js";
import { setStep } from "./status.js";
import { applyResult } from "./view.js";

const limitMessage = (max) => `not run: the limit of ${max} tool calls for one prompt was reached; answer with what you have`;

// runOpen runs a turn of the open loop from the user's text: each step's calls run here
// (pausing before each if asked), and their results go back, until the model answers in text.
export async function runOpen(text, signal, turn) {
  const { maxToolCalls: max, onLimit, pause } = state.config;
  let input = text;
  for (let step = 1; ; step++) {
    const calls = [];
    setStep(step === 1 ? "Asking the model…" : `Step ${step}: sending ${input.length} result${input.length === 1 ? "" : "s"} to the model…`);
    const stream = state.session.promptStreaming(input, { signal });
    for await (const chunk of stream) {
      if (typeof chunk === "string") liveText(chunk);
      else calls.push(liveCall(chunk.value, "requested"));
    }
    turn.mark = state.entries.length; // this prompt is in the history now
    if (calls.length === 0) return;
    const room = Math.max(0, max - turn.count);
    const over = calls.length > room;
    const runnable = over && onLimit === "error" ? [] : calls.slice(0, room);
    const results = new Map();
    for (const ref of calls) {
      if (runnable.includes(ref)) continue;
      results.set(ref, new LanguageModelToolError(ref.call.callID, ref.call.name, limitMessage(max)));
      applyResult(ref.call, { errorMessage: limitMessage(max) });
      update(ref.entry);
    }
    turn.count += runnable.length;
    setStep(`Step ${step}: the model asked for ${calls.length} tool call${calls.length === 1 ? "" : "s"}; the page runs them${pause ? " one by one" : ""}`);
    const running = [];
    for (const ref of runnable) {
      const p = runOpenCall(ref, signal, pause).then((r) => results.set(ref, r));
      running.push(p);
      if (pause || byName.get(ref.call.name)?.annotations?.destructiveHint) await p;
    }
    await Promise.all(running);
    input = calls.map((ref) => ({ role: "tool-result", content: [{ type: "tool-result", value: results.get(ref) }] }));
    turn.mark = state.entries.length;
    if (over && onLimit === "error") {
      await state.session.append(input, { signal });
      const name = calls[room].call.name;
      const err = new DOMException(`maxToolCalls is ${max} and the model asked for call ${max + 1} (${name})`, "OperationError");
      err.inHistory = true;
      throw err;
    }
  }
}

// runOpenCall runs one call in the open loop and returns its result or error.
async function runOpenCall(ref, signal, pause) {
  const { callID, name, args } = ref.call;
  const tool = byName.get(name);
  const refuse = (msg) => {
    applyResult(ref.call, { errorMessage: msg });
    update(ref.entry);
    return new LanguageModelToolError(callID, name, msg);
  };
  if (!tool) return refuse(`unknown tool "${name}"; the tools are: ${[...byName.keys()].join(", ")}`);
  if (pause) {
    const d = await ask(ref, "paused", signal);
    if (d === "abort") throw signal.reason;
    if (d === "refuse") return refuse("the user refused to run this tool call");
  } else if (tool.annotations?.destructiveHint) {
    const d = await ask(ref, "approval", signal);
    if (d === "abort") throw signal.reason;
    if (d === "decline") return refuse("the user declined this tool call");
  }
  setCall(ref, { state: "running" });
  const t0 = performance.now();
  try {
    const value = await tool.run(args, {
      signal,
      progress: (v) => {
        if (ref.call.state === "running") setCall(ref, { progress: v });
      },
    });
    state.meta.durations.set(callID, performance.now() - t0);
    const parts = typeof value === "string" ? [{ type: "text", value }] : [{ type: "object", value }];
    applyResult(ref.call, { result: parts });
    update(ref.entry);
    return new LanguageModelToolSuccess(callID, name, parts);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    return refuse(e?.message ?? String(e));
  }
}
