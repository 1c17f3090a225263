// A turn of the chat: the user's message sent through the closed loop or the open loop,
// and a failed turn shown as it stands in the history (dimmed where it is not), with a
// notice and a Retry.

import { runClosed } from "./closedloop.js";
import { notice, push, saveExtras, update } from "./live.js";
import { runOpen } from "./openloop.js";
import { state } from "./state.js";
import { describe, setBusy, setStep, showStatus } from "./status.js";

export async function send(text) {
  text = text.trim();
  if (!text || state.busy || !state.session) return;
  setBusy(true);
  const controller = new AbortController();
  state.controller = controller;
  // start: where this turn's entries begin; mark: where those not yet in the history
  // begin (the open loop moves it on after each prompt that succeeded).
  const turn = { start: state.entries.length, mark: state.entries.length, count: 0, text };
  push({ kind: "user", text });
  try {
    if (state.config.loop === "closed") await runClosed(text, controller.signal);
    else await runOpen(text, controller.signal, turn);
  } catch (err) {
    failed(err, turn);
  } finally {
    for (const settle of [...state.waiters.values()]) settle("abort");
    saveExtras();
    state.controller = null;
    setStep("");
    setBusy(false);
    showStatus();
  }
}

function failed(err, turn) {
  const stopped = err?.name === "AbortError";
  const kept = Boolean(err?.inHistory);
  state.entries.slice(turn.start).forEach((e, i) => {
    const inHistory = kept || turn.start + i < turn.mark;
    if (!inHistory) e.failed = true;
    if (e.kind === "calls") {
      // A call in the history without a result shows as the history shows it: not run.
      for (const c of e.calls) {
        if (!["success", "error"].includes(c.state)) c.state = stopped && !inHistory ? "stopped" : "unanswered";
      }
    }
    update(e);
  });
  let { title: head, text } = describe(err);
  if (stopped && turn.mark > turn.start) text = "The page stopped before it sent the results. The calls stay in the session's history without results; the next prompt answers them with an error.";
  const extra = !kept && turn.mark < state.entries.length ? " The dimmed part of this turn is not in the session's history." : "";
  const actions = kept ? [] : [{ label: "Retry", onClick: () => send(turn.text) }];
  notice(stopped ? "info" : "error", head, text + extra, actions);
  if (err?.transcript) console.info("partial transcript of the failed prompt:", err.transcript);
}
