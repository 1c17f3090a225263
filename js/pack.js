// A history of text messages packed for the engine without JSON (wasm/packed.go): what a
// page passes back as initialPrompts is mostly that, often thousands of messages, and
// JSON.stringify on the page plus the engine's scan of every string cost more than the
// rest of create() (RATIONALE.md "How does create() read a long history?").

// attachment is the key of a message's attachment: text sent after the message's JSON,
// not in it (a symbol, so JSON.stringify leaves it out). channel.js hands it to the port.
export const attachment = Symbol("attachment");

/**
 * packText returns msgs (initialPrompts, converted by webidl.js, or a snapshot's history)
 * packed, or null when they are not a history this form holds: each message {role,
 * content, prefix?} with a string content or one text part ({type: "text", value}, as
 * session.history gives it), a system message only first, a prefix only on the last
 * message, an assistant's. Anything else (other parts, tool roles, a rule broken)
 * crosses as JSON, and the engine names what is wrong. For each message: a role letter (s, u, a, or p for an
 * assistant's prefix), its text's length in UTF-16 code units, a colon and the text.
 * @returns {{count: number, text: string} | null}
 */
export function packText(msgs) {
  if (!Array.isArray(msgs) || msgs.length === 0) return null;
  const last = msgs.length - 1;
  const pieces = new Array(msgs.length * 4);
  for (let i = 0; i <= last; i++) {
    const m = msgs[i];
    if (m === null || typeof m !== "object") return null;
    let text = m.content;
    if (typeof text !== "string") {
      const p = Array.isArray(text) && text.length === 1 ? text[0] : null;
      if (p === null || typeof p !== "object" || p.type !== "text" || typeof p.value !== "string") return null;
      for (const k in p) if (k !== "type" && k !== "value") return null;
      text = p.value;
    }
    let letter;
    switch (m.role) {
      case "user":
        letter = "u";
        break;
      case "assistant":
        letter = m.prefix === true ? "p" : "a";
        break;
      case "system":
        letter = "s";
        break;
      default:
        return null;
    }
    if ((letter === "s" && i > 0) || (m.prefix === true && (letter !== "p" || i < last))) return null;
    for (const k in m) if (k !== "role" && k !== "content" && k !== "prefix") return null;
    const at = i * 4;
    pieces[at] = letter;
    pieces[at + 1] = text.length;
    pieces[at + 2] = ":";
    pieces[at + 3] = text;
  }
  return { count: msgs.length, text: pieces.join("") };
}

/**
 * unpackHistory builds session.history from the module's packed answer (wasm/packed_out.go
 * packHistory), the reverse of packText: from text[at] on, for each of value.count
 * messages, a text message as packText writes it (role letter, length in UTF-16 code
 * units, a colon, the text), or the letter j for the next message of value.json, which
 * came parsed with the reply. The objects are those JSON.parse makes of the history's
 * JSON, keys in the same order; the texts are cut out of text, not parsed.
 * @returns {object[]}
 */
export function unpackHistory({ count, json }, text, at) {
  const out = [];
  let next = 0;
  for (let k = 0; k < count; k++) {
    const letter = text.charCodeAt(at++);
    if (letter === 106) {
      // j
      out.push(json[next++]);
      continue;
    }
    let n = 0;
    let c = text.charCodeAt(at++);
    for (; c >= 48 && c <= 57; c = text.charCodeAt(at++)) n = n * 10 + c - 48;
    if (c !== 58) throw new DOMException("langmodel: the module's packed history is malformed", "OperationError");
    const value = text.slice(at, (at += n));
    switch (letter) {
      case 115: // s
        out.push({ role: "system", content: [{ type: "text", value }] });
        break;
      case 117: // u
        out.push({ role: "user", content: [{ type: "text", value }] });
        break;
      case 97: // a
        out.push({ role: "assistant", content: [{ type: "text", value }] });
        break;
      case 112: // p
        out.push({ role: "assistant", content: [{ type: "text", value }], prefix: true });
        break;
      default:
        throw new DOMException("langmodel: the module's packed history is malformed", "OperationError");
    }
  }
  return out;
}
