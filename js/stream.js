// Streaming: the ReadableStream promptStreaming() returns.

import { abortReason } from "./errors.js";
import { LanguageModelToolCall } from "./tools.js";

// promptStream returns a stream of the chunks run(signal, enqueue) delivers: strings, and
// tool calls as {type: "tool-call", value}. run's promise ends the stream (closed, or
// errored with its reason); cancelling the stream, or the page's signal, aborts run's
// signal.
export function promptStream(userSignal, run) {
  const ctrl = new AbortController();
  let controller;
  const enqueue = (detail) => {
    try {
      controller.enqueue(typeof detail === "string" ? detail : { type: "tool-call", value: new LanguageModelToolCall(detail.value) });
    } catch {
      // the reader cancelled
    }
  };
  return new ReadableStream({
    start: (c) => {
      controller = c;
      try {
        if (userSignal?.aborted) throw abortReason(userSignal);
        userSignal?.addEventListener("abort", () => ctrl.abort(abortReason(userSignal)));
        run(ctrl.signal, enqueue).then(
          () => {
            try {
              c.close();
            } catch {
              // cancelled
            }
          },
          (e) => {
            try {
              c.error(e);
            } catch {
              // cancelled
            }
          },
        );
      } catch (e) {
        c.error(e);
      }
    },
    cancel: (reason) => {
      ctrl.abort(reason ?? new DOMException("The stream was cancelled.", "AbortError"));
    },
  });
}
