// The module's port, page side: the channel's messages move through the module's linear
// memory by its exports (wasm/cmd/langmodel), never as JS strings handed to Go or
// js.FuncOf calls, which cost more than the engine's own work (RATIONALE.md "Why does the
// page read the module's memory?"). load.js makes one for the module it starts; a page or
// a test host that starts the module itself makes one the same way and sets it as
// globalThis.__langmodel_channel before install().

import { microtask } from "./microtask.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SHORT = 512; // the length under which port.js copies ASCII text itself

/**
 * modulePort returns the port {send, query, connect, mirror} of a running langmodel.wasm:
 * go is wasm_exec.js's Go instance that runs it.
 *  - send(json, attach?): the engine gets the message (and its attachment, a string
 *    sent after it: pack.js) and runs until it waits; what it wrote meanwhile goes to
 *    receive before send returns;
 *  - query(json) → json: a synchronous history/usage question;
 *  - connect(receive): receive(text) gets every later batch of the module's messages,
 *    one JSON array each, starting with any written before;
 *  - mirror() → text | null: what changed in the histories since the last call, a JSON
 *    array and then the messages it adds, a line each (wasm.Mirror; worker mode,
 *    worker.js).
 */
export function modulePort(go) {
  const ex = go?._inst?.exports;
  if (typeof ex?.lm_send !== "function" || typeof go._resume !== "function") {
    throw new DOMException("The module is not a langmodel.wasm run by Go's wasm_exec.js (no lm_send export, or no resume).", "OperationError");
  }
  let receive = null;
  let waking = false;

  // read returns the text at ptr, of the length the module recorded, or null. Short ASCII
  // text (most of a step's messages) is read byte by byte: cheaper than TextDecoder's
  // call for a few hundred bytes.
  const read = (ptr) => {
    if (ptr === 0) return null;
    const bytes = new Uint8Array(ex.mem.buffer, ptr >>> 0, ex.lm_length());
    if (bytes.length <= SHORT) {
      let i = 0;
      while (i < bytes.length && bytes[i] < 0x80) i++;
      if (i === bytes.length) return String.fromCharCode.apply(null, bytes);
    }
    return decoder.decode(bytes);
  };
  // write puts json, then attach if given, into the module's inbox and returns their
  // lengths in bytes. Most text is ASCII, a byte a character: the room asked for first
  // is that and an eighth, and only a message that does not fit is written again into
  // room for the worst case (a UTF-16 code unit takes at most 3 bytes of UTF-8). The
  // memory may grow in lm_inbox: the view is made after.
  const sizes = [0, 0]; // write's answer: [bytes in all, bytes of the attachment]
  const sized = (n, tail) => {
    sizes[0] = n;
    sizes[1] = tail;
    return sizes;
  };
  const write = (json, attach = "") => {
    if (json.length <= SHORT && attach === "") {
      const ptr = ex.lm_inbox(json.length) >>> 0;
      const into = new Uint8Array(ex.mem.buffer, ptr, json.length);
      let i = 0;
      for (; i < json.length; i++) {
        const c = json.charCodeAt(i);
        if (c >= 0x80) break;
        into[i] = c;
      }
      if (i === json.length) return sized(i, 0); // all ASCII: a byte each, as TextEncoder writes them
    }
    const length = json.length + attach.length;
    let room = length + (length >> 3) + 16;
    for (;;) {
      const ptr = ex.lm_inbox(room) >>> 0;
      const into = new Uint8Array(ex.mem.buffer, ptr, room);
      const a = encoder.encodeInto(json, into);
      if (a.read === json.length) {
        if (attach === "") return sized(a.written, 0);
        const b = encoder.encodeInto(attach, into.subarray(a.written));
        if (b.read === attach.length) return sized(a.written + b.written, b.written);
      }
      room = length * 3;
    }
  };
  const pull = () => {
    const text = read(ex.lm_take());
    if (text !== null) receive(text);
  };
  // The module calls this when it wrote what no send will take (a timer, a fetch's body
  // ran it): the batch is taken a microtask later, once the module waits again.
  globalThis.__langmodel_wake = () => {
    if (waking) return;
    waking = true;
    microtask(() => {
      waking = false;
      if (receive) pull();
    });
  };

  return {
    send(json, attach) {
      if (typeof json !== "string") return;
      const [n, tail] = write(json, typeof attach === "string" ? attach : "");
      ex.lm_send(n, tail);
      go._resume();
      if (receive) pull();
    },
    query(json) {
      if (typeof json !== "string") return undefined;
      return read(ex.lm_query(write(json)[0])) ?? undefined;
    },
    connect(r) {
      receive = r;
      ex.lm_connect();
      pull();
    },
    mirror() {
      return read(ex.lm_mirror());
    },
  };
}
