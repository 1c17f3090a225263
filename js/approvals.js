// Approvals remembered (docs/security.md "Approvals remembered"): approve may answer
// {allow: "always"}, and the declaration it was shown is then allowed for the rest of the
// session. The face keeps each session's decisions (approve runs here, and snapshot() and
// session.approvals read them synchronously, in worker mode too) and gives the engine the
// whole set at every change (protocol.js ApprovalsMessage); the engine decides, before
// each call, whether the tool that will run declares exactly what was allowed
// (loop/approvals.go).

// session key → Map(tool name → the declaration allowed, as the engine described it in
// tool-approve's toolInfo: {name, description, inputSchema, annotations, source})
const remembered = new Map();

/**
 * answerOf reads what approve resolved to, for the engine: true, false or a reason string
 * as before (any other value by its truth, as JS reads it), and {allow: "once"} (true) or
 * {allow: "always"} ("always"). Any other object is a TypeError: a typo must not be a
 * silent yes, as a truthy object was before.
 */
export function answerOf(answer) {
  if (answer === null || typeof answer !== "object") return typeof answer === "string" ? answer : Boolean(answer);
  const { allow } = answer;
  if (allow === "once" || allow === "always") return allow;
  throw new TypeError(`toolUseConfig.approve answered an object whose allow is ${typeof allow === "string" ? JSON.stringify(allow) : typeof allow}: allow must be "once" or "always" (or answer true, false or a reason)`);
}

// setRemembered replaces session key's decisions with list and tells the engine.
export function setRemembered(channel, key, list) {
  const m = new Map();
  for (const d of list) m.set(d.name, d);
  if (m.size) remembered.set(key, m);
  else remembered.delete(key);
  channel.notify({ type: "approvals", session: key, tools: [...m.values()] });
}

// remember adds the declaration info (toolInfo, as the engine sent it) to session key's
// decisions.
export function remember(channel, key, info) {
  setRemembered(channel, key, [...rememberedOf(key).filter((d) => d.name !== info.name), info]);
}

// rememberedOf lists session key's decisions as the engine described them (a snapshot
// keeps them so); copy: a copy each, which the page may change freely.
export function rememberedOf(key, copy = false) {
  const list = [...(remembered.get(key)?.values() ?? [])];
  return copy ? JSON.parse(JSON.stringify(list)) : list;
}

// forget drops a destroyed session's decisions.
export function forget(key) {
  remembered.delete(key);
}

// shown is a decision as the page reads it (session.approvals): a copy, with the origin of
// a server given as a path filled in, as approve was shown it.
export function shown(d) {
  const c = JSON.parse(JSON.stringify(d));
  if (c.source?.kind === "mcp" && !c.source.origin) c.source.origin = globalThis.location?.origin ?? "";
  return c;
}

// keptApprovals reads a snapshot's approvals for restore() with keepApprovals: a list of
// declarations, each an object with a name (the engine checks the rest, and a decision
// binds only to a declaration it reads exactly so). dataError makes restore()'s DataError.
export function keptApprovals(list, dataError) {
  if (list === undefined) return [];
  try {
    if (Array.isArray(list) && list.every((d) => d !== null && typeof d === "object" && typeof d.name === "string")) return JSON.parse(JSON.stringify(list)); // a copy: the page keeps its snapshot
  } catch {} // no JSON (a cycle, a BigInt)
  throw dataError("the snapshot's approvals are not a list of tool declarations");
}
