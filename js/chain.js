// A chain of backends ({kind: "chain", backends}): the module tries the members in order
// for each step (loop/chain); js/ answers availability() and picks, for each create(),
// the members the session can use, since only the page knows whether the browser has its
// model and a GGUF its file (docs/backends.md, "A chain of backends").

import { ggufBackend, ggufLater, isGGUF } from "./gguf.js";
import { runtime } from "./runtime.js";

// ORDER ranks availability()'s answers, worst first.
const ORDER = ["unavailable", "downloading", "downloadable", "available"];

// isChain says whether backend is a chain, or records one ({kind: "record", backend}).
export function isChain(backend) {
  return backend !== null && typeof backend === "object" && (backend.kind === "chain" || (backend.kind === "record" && isChain(backend.backend)));
}

// chainMembers reads backend.backends: a non-empty array of backend objects, none a
// chain. The module says the same of what reaches it (wasm/chain.go).
export function chainMembers(backend) {
  const list = (backend.kind === "record" ? backend.backend : backend).backends;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError("invalid backend: backend.backends must be a non-empty array of backends");
  list.forEach((m, i) => {
    if (m === null || typeof m !== "object") throw new TypeError(`invalid backend: backend.backends[${i}] must be a backend object`);
    if (isChain(m)) throw new TypeError(`invalid backend: backend.backends[${i}] is a chain: chains do not nest`);
  });
  return list;
}

// answers is each member's availability(): ask(member) answers for one, as it would
// alone. A member's bad field is named in the chain.
function answers(backend, ask) {
  return Promise.all(
    chainMembers(backend).map((m, i) =>
      ask(m).catch((e) => {
        throw e instanceof TypeError ? new TypeError(e.message.replace("backend.", `backend.backends[${i}].`)) : e;
      }),
    ),
  );
}

// chainAvailability is the best of the members' answers.
export async function chainAvailability(backend, ask) {
  return ORDER[Math.max(...(await answers(backend, ask)).map((a) => ORDER.indexOf(a)))];
}

// chainBackend is the chain a create() sends to the module (ask: availability() with its
// options, for one member): the first available member (none: the first downloadable
// or downloading one, loaded now with target's progress), and after it the members that
// are available; the others cross as null, so that the rest keep their index. A GGUF member that comes first is loaded now (one that fails to
// load hands on to the next member), a later one when a step first reaches it.
export async function chainBackend(backend, ask, target, signal) {
  if (backend.kind === "record") return { ...backend, backend: await chainBackend(backend.backend, ask, target, signal) };
  const list = chainMembers(backend);
  const there = await answers(backend, ask);
  let chosen = there.indexOf("available");
  if (chosen < 0) chosen = there.findIndex((a) => a !== "unavailable");
  let error;
  const backends = list.map((m, i) => (there[i] === "available" || i === chosen ? m : null));
  for (let i = 0; i < list.length; i++) {
    if (!isGGUF(backends[i])) {
      if (backends[i]) break;
      continue;
    }
    try {
      backends[i] = await ggufBackend(list[i], target, signal);
      break;
    } catch (e) {
      if (signal?.aborted) throw e;
      error = e;
      backends[i] = null;
    }
  }
  const at = backends.findIndex(Boolean);
  if (at < 0) throw error ?? new DOMException("No backend of the chain is available.", "NotSupportedError");
  if (!isGGUF(list[at]) && target) runtime.progress?.attach(target);
  for (let i = at + 1; i < list.length; i++) if (backends[i] && isGGUF(backends[i])) backends[i] = ggufLater(backends[i]);
  return { ...backend, backends };
}
