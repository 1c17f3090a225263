// Streaming: the ReadableStream promptStreaming() returns, async-iterable in every engine.

import { abortReason } from "./errors.js";
import { LanguageModelToolCall } from "./tools.js";

// promptStream returns a stream of the chunks run(signal, enqueue) delivers: strings, and
// tool calls as {type: "tool-call", value}. run's promise ends the stream (closed, or
// errored with its reason); cancelling the stream, or the page's signal, aborts run's
// signal.
export function promptStream(userSignal, run) {
  const ctrl = new AbortController();
  let controller;
  let running; // run's promise, settled
  const enqueue = (detail) => {
    try {
      controller.enqueue(typeof detail === "string" ? detail : { type: "tool-call", value: new LanguageModelToolCall(detail.value) });
    } catch {
      // the reader cancelled
    }
  };
  const stream = new ReadableStream({
    start: (c) => {
      controller = c;
      try {
        if (userSignal?.aborted) throw abortReason(userSignal);
        const onAbort = () => ctrl.abort(abortReason(userSignal));
        userSignal?.addEventListener("abort", onAbort);
        // a long-lived page signal must not keep every finished prompt's listener
        running = run(ctrl.signal, enqueue).finally(() => userSignal?.removeEventListener("abort", onAbort));
        running.then(
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
    // The cancel (and so a `for await` left early) ends when the prompt has been rolled
    // back, which with the module in a Worker is a round trip later (mirror.js).
    cancel: (reason) => {
      ctrl.abort(reason ?? new DOMException("The stream was cancelled.", "AbortError"));
      return running?.then(() => {}, () => {});
    },
  });
  return iterable(stream);
}

// iterable gives a stream the Streams standard's async iteration where the engine's own
// ReadableStream lacks it (WebKit's: `for await` over it throws "undefined is not a
// function"): values({preventCancel}) and Symbol.asyncIterator, defined on this instance
// only, never on the page's global ReadableStream. See RATIONALE.md.
export function iterable(stream) {
  if (typeof stream[Symbol.asyncIterator] === "function" && typeof stream.values === "function") return stream;
  const values = (options) => streamIterator(stream, Boolean(options?.preventCancel));
  Object.defineProperty(stream, "values", { value: values, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(stream, Symbol.asyncIterator, { value: values, writable: true, configurable: true, enumerable: false });
  return stream;
}

// streamIterator is the standard's ReadableStream async iterator: it locks the stream to
// a reader; next() reads (one at a time, in call order), releasing the lock at the end
// or on an error; return() — a break or a throw inside `for await` — cancels the stream
// with its argument unless preventCancel, and releases the lock.
function streamIterator(stream, preventCancel) {
  const reader = stream.getReader();
  let finished = false;
  let ongoing = Promise.resolve();
  const finish = () => {
    if (finished) return;
    finished = true;
    reader.releaseLock();
  };
  const nextStep = async () => {
    if (finished) return { value: undefined, done: true };
    let r;
    try {
      r = await reader.read();
    } catch (e) {
      finish();
      throw e;
    }
    if (r.done) finish();
    return r.done ? { value: undefined, done: true } : { value: r.value, done: false };
  };
  const returnStep = async (value) => {
    if (finished) return { value, done: true };
    finished = true;
    if (!preventCancel) {
      const cancelled = reader.cancel(value);
      reader.releaseLock();
      await cancelled;
    } else {
      reader.releaseLock();
    }
    return { value, done: true };
  };
  const chain = (step) => {
    const p = ongoing.then(step, step);
    ongoing = p.then(
      () => {},
      () => {},
    );
    return p;
  };
  return {
    next: () => chain(nextStep),
    return: (value) => chain(() => returnStep(value)),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
