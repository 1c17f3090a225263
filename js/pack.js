// A history packed for the engine (wasm/packed.go): its text messages without JSON, any
// other message as its own JSON. What a page passes back as initialPrompts, and what a
// snapshot holds, is mostly text messages, often thousands, and JSON.stringify on the
// page plus the engine's scan of every string cost more than the rest of create()
// (RATIONALE.md "How does create() read a long history?").

// attachment is the key of a message's attachment: text sent after the message's JSON,
// not in it (a symbol, so JSON.stringify leaves it out). channel.js hands it to the port.
export const attachment = Symbol("attachment");

/**
 * packText returns msgs (initialPrompts, converted by webidl.js, or a snapshot's history)
 * packed, or null when one of them is no JSON value (JSON.stringify throws: the JSON way
 * names the problem) or there are none. A text message is its role letter (s, u, a, or p
 * for an assistant's prefix), its text's length in UTF-16 code units, a colon and the
 * text: {role, content, prefix?} with a string content or one text part ({type: "text",
 * value}, as session.history gives it), a system message only first, a prefix only on
 * the last message, an assistant's. Any other message (tool calls and results, other
 * parts, a rule broken) is "j", its JSON's length, a colon and its JSON, which the engine
 * reads at its place with the rules and errors of the same message in a JSON array.
 * Keys beyond those are the engine's to ignore, as it does in JSON.
 * @returns {{count: number, text: string} | null}
 */
export function packText(msgs) {
  if (!Array.isArray(msgs) || msgs.length === 0) return null;
  const last = msgs.length - 1;
  // Pieces joined once: concatenation builds the string in half the time in Chromium, but
  // leaves a rope that encoding it into the module's memory must flatten first, and
  // the two together took as long or longer (RATIONALE.md).
  const pieces = new Array(msgs.length * 4);
  for (let i = 0; i <= last; i++) {
    const m = msgs[i];
    const letter = textLetter(m, i, last);
    let text;
    if (letter !== "") {
      text = m.content;
      if (typeof text !== "string") text = text[0].value;
    } else {
      try {
        text = JSON.stringify(m) ?? "null"; // undefined and functions are null in an array
      } catch {
        return null;
      }
    }
    const at = i * 4;
    pieces[at] = letter || "j";
    pieces[at + 1] = text.length;
    pieces[at + 2] = ":";
    pieces[at + 3] = text;
  }
  return { count: msgs.length, text: pieces.join("") };
}

// textLetter is the letter of message m (at i of a history whose last index is last) as
// a text message, or "" when it must cross as JSON.
function textLetter(m, i, last) {
  if (m === null || typeof m !== "object" || typeof m.toJSON === "function") return "";
  const text = m.content;
  if (typeof text !== "string") {
    const p = Array.isArray(text) && text.length === 1 ? text[0] : null;
    if (p === null || typeof p !== "object" || p.type !== "text" || typeof p.value !== "string" || typeof p.toJSON === "function") return "";
  }
  const prefix = m.prefix;
  if (prefix !== undefined && prefix !== null && typeof prefix !== "boolean") return "";
  switch (m.role) {
    case "user":
      return prefix === true ? "" : "u";
    case "assistant":
      return prefix !== true ? "a" : i === last ? "p" : "";
    case "system":
      return prefix === true || i > 0 ? "" : "s";
  }
  return "";
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
    const end = textEnd(text, at);
    const value = text.slice(text.indexOf(":", at) + 1, end);
    at = end;
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
        throw malformed();
    }
  }
  return out;
}

// textEnd reads a packed text message's length at text[at] (after its letter) and its
// colon, and returns where its text, after the colon, ends.
function textEnd(text, at) {
  let n = 0;
  let c = text.charCodeAt(at++);
  for (; c >= 48 && c <= 57; c = text.charCodeAt(at++)) n = n * 10 + c - 48;
  if (c !== 58) throw malformed();
  return at + n;
}

function malformed() {
  return new DOMException("langmodel: the module's packed history is malformed", "OperationError");
}

/**
 * splitPacked cuts, from text[at] on, the count messages of a change of worker mode's
 * copy (wasm.Mirror.Changes: a text message as packHistory packs it, any other as j, its
 * JSON and a newline) and pushes each onto out: a text message as it came packed (its
 * letter, length, colon and text), any other as its JSON alone, which starts with "{",
 * as no letter does. packedReply joins them back into the answer unpackHistory reads.
 * Returns where the messages end.
 * @returns {number}
 */
export function splitPacked(text, at, count, out) {
  for (let k = 0; k < count; k++) {
    const start = at++;
    if (text.charCodeAt(start) === 106) {
      // j
      const nl = text.indexOf("\n", at);
      if (nl < 0) throw malformed();
      out.push(text.slice(at, nl));
      at = nl + 1;
      continue;
    }
    at = textEnd(text, at);
    out.push(text.slice(start, at));
  }
  return at;
}

/**
 * packedReply answers a history query from msgs (splitPacked's pieces) as the module
 * answers it packed (wasm/packed_out.go packHistory): the reply with the JSON messages
 * in value.json, a newline, and every message packed, j for a JSON one.
 * @returns {string}
 */
export function packedReply(msgs) {
  const json = [];
  const packed = new Array(msgs.length);
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.charCodeAt(0) === 123) {
      json.push(m);
      packed[i] = "j";
    } else packed[i] = m;
  }
  return `{"type":"reply","ok":true,"value":{"count":${msgs.length},"json":[${json.join(",")}]}}\n${packed.join("")}`;
}
