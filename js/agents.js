// Sessions as tools (docs/chat-ui.md "Sessions as tools"): a tool declared with `agent`
// (a child session's create() options) in place of execute. The face turns it into an
// execute that creates the child, prompts it with the parent model's task, and hands its
// answer back as the call's result. It is composition of the public API (create, prompt,
// addEventListener, destroy), so it lives here and costs the .wasm nothing; the engine
// sees an ordinary tool with an execute.
//
// A child is made fresh for each call and destroyed after it: a call is a task, as any
// tool call is; two calls of one batch run side by side without sharing a queue or a
// history; nothing a child said lingers unseen between calls (a snapshot of the parent
// could not save it); and the parent's abort and destroy need only end the one child.
//
// The tree under a session shares limits its root sets in toolUseConfig: maxDepth (how
// deep agents nest, default 2) and maxTotalToolCalls (the calls all its descendants may
// run in one of the root's prompts, default 64; 0: none). Each child keeps its own
// toolUseConfig stops besides, per its prompt.

import { EVENT_TYPES } from "./protocol.js";
import { LanguageModelToolCall, SESSION_KEY } from "./tools.js";

export const DEFAULT_MAX_DEPTH = 2;
export const DEFAULT_MAX_TOTAL_TOOL_CALLS = 64;

/** The inputSchema every agent tool has: the task, which is all the child is told. */
export const AGENT_SCHEMA = Object.freeze({
  type: "object",
  properties: Object.freeze({ task: Object.freeze({ type: "string", description: "The whole task: the agent sees nothing else of this conversation." }) }),
  required: Object.freeze(["task"]),
});

// What an agent may set: a child's create() options, less what belongs to the tree
// (approve goes through the parent's; the limits are the root's) and what a child run as
// a tool cannot use (expectedOutputs with tool calls would hand its calls back to no one;
// mcpServers and modelContext tools run in the engine, beyond the tree's count).
const AGENT_OPTIONS = ["initialPrompts", "tools", "toolUseConfig", "backend", "samplingMode", "temperature", "topK", "toolChoice"];
const TREE_OPTIONS = ["approve", "maxDepth", "maxTotalToolCalls"];

// The events a child's listeners pass up: all the engine's but contextoverflow, which
// concerns the child's own window.
const FORWARDED = EVENT_TYPES.filter((t) => t !== "contextoverflow");

// PARENT is the key of the hidden create() option that makes a session a child: {tree,
// depth, path, approve, backend} of the call that made it.
const PARENT = Symbol("agent parent");

// nodes: session key → the node of a session that has agent tools: {session, listening
// (its event types the engine sends), children (the live children's subscribe), depth,
// path, tree}.
const nodes = new Map();

// limit reads one of toolUseConfig's tree limits: a whole number, 0 or more.
function limit(use, k, dflt) {
  const v = use?.[k];
  if (v === undefined) return dflt;
  if (!(Number.isSafeInteger(v) && v >= 0)) throw new TypeError(`toolUseConfig.${k} must be a whole number, 0 or more, not ${String(v)}`);
  return v;
}

function list(v, what) {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === "object" && typeof v[Symbol.iterator] === "function") return [...v];
  throw new TypeError(`${what} must be a sequence of tools`);
}

// check validates an agent declaration and, below it, its agents' (TypeError naming the
// field): depth is the depth of the child it makes (the root's children are 1), stack
// the agents above it (a cycle).
function check(t, depth, maxDepth, stack) {
  const name = String(t.name);
  const agent = t.agent;
  if (t.execute !== undefined) throw new TypeError(`tool ${name}: agent and execute both given: an agent tool's execute is its child session`);
  if (t.inputSchema !== undefined) throw new TypeError(`tool ${name}: agent and inputSchema both given: an agent tool takes {task: string}`);
  if (agent === null || typeof agent !== "object") throw new TypeError(`tool ${name}: agent must be an object, a child session's create() options`);
  if (stack.includes(agent)) throw new TypeError(`tool ${name}: agent.tools lead back to agent ${name} (a cycle)`);
  if (depth > maxDepth) throw new TypeError(`tool ${name}: agents nest ${depth} deep here, more than toolUseConfig.maxDepth (${maxDepth}) allows`);
  for (const k of Object.keys(agent)) {
    if (!AGENT_OPTIONS.includes(k)) throw new TypeError(`tool ${name}: agent.${k} is not an agent's option (${AGENT_OPTIONS.join(", ")})`);
  }
  const use = agent.toolUseConfig;
  for (const k of TREE_OPTIONS) {
    if (use?.[k] !== undefined) throw new TypeError(`tool ${name}: agent.toolUseConfig.${k} is the root session's: a child's approvals go through its parent's approve, and the limits hold for the whole tree`);
  }
  stack.push(agent);
  for (const c of list(agent.tools, `tool ${name}: agent.tools`)) {
    if (c === null || typeof c !== "object") continue; // the child's create() names it
    if (c.agent !== undefined) check(c, depth + 1, maxDepth, stack);
    else if (typeof c.execute !== "function") throw new TypeError(`tool ${name}: agent.tools: ${String(c.name)} has no execute, and a child's tools run in its own loop`);
  }
  stack.pop();
}

/**
 * agentSetup reads create()'s options for what this file does, before wireOptions: the
 * tree's limits (checked even with no agent tools, as any option's value), and the tools,
 * with each agent declaration checked and given its execute, and, in a child, each tool's
 * execute counting toward the tree's total. backend is the backend option as given (what
 * children inherit). It returns null when the session is neither a parent nor a child
 * (nothing to do: the options are left as they are), else {options, level}: level goes
 * into the session's Shared (null for a child with no agents of its own).
 */
export function agentSetup(options, backend, create) {
  const parent = options[PARENT];
  const use = options.toolUseConfig;
  const maxDepth = parent ? parent.tree.maxDepth : limit(use, "maxDepth", DEFAULT_MAX_DEPTH);
  const maxTotal = parent ? parent.tree.maxTotal : limit(use, "maxTotalToolCalls", DEFAULT_MAX_TOTAL_TOOL_CALLS);
  // tools is read once: an iterable that is not an array (a Set, a generator) is read
  // here and handed on as an array.
  const raw = options.tools;
  const iterable = raw !== null && typeof raw === "object" && !Array.isArray(raw) && typeof raw[Symbol.iterator] === "function";
  const tools = iterable ? [...raw] : raw;
  const withTools = (value) => Object.create(options, { tools: { value, enumerable: true } });
  if (!parent && !(Array.isArray(tools) && tools.some((t) => t !== null && typeof t === "object" && t.agent !== undefined))) {
    return iterable ? { options: withTools(tools), level: null } : null;
  }
  if (!Array.isArray(tools)) return { options, level: null }; // the engine names the problem
  const depth = parent ? parent.depth : 0;
  const level = { depth, maxDepth, maxTotal, approve: use?.approve, backend, parent, create };
  let agents = false;
  const out = tools.map((t) => {
    if (t === null || typeof t !== "object") return t;
    let execute = t.execute;
    if (t.agent !== undefined) {
      check(t, depth + 1, maxDepth, []);
      agents = true;
      execute = agentExecute(String(t.name), t.agent, level);
    }
    if (parent && typeof execute === "function") execute = counted(execute, parent.tree);
    if (execute === t.execute) return t;
    // The declaration approve is shown: the page's, with the execute that runs it.
    const fields = { execute };
    if (t.agent !== undefined) {
      fields.inputSchema = AGENT_SCHEMA;
      const a = agentAnnotations(t);
      if (a !== undefined) fields.annotations = a;
    }
    return withFields(t, fields);
  });
  return { options: withTools(out), level: agents ? level : null };
}

// withFields is declaration t with fields set: a copy of a plain object, and for an
// instance of a class (whose members may be getters on its prototype) an object that
// inherits from it.
function withFields(t, fields) {
  const proto = Object.getPrototypeOf(t);
  if (proto === Object.prototype || proto === null) return { ...t, ...fields };
  const d = Object.create(t);
  for (const [k, value] of Object.entries(fields)) Object.defineProperty(d, k, { value, enumerable: true, writable: true, configurable: true });
  return d;
}

// untrustedBelow reports whether a tool below agent, at any depth, is marked
// untrustedContentHint.
function untrustedBelow(agent, seen = new Set()) {
  if (agent === null || typeof agent !== "object" || seen.has(agent)) return false;
  seen.add(agent);
  const tools = agent.tools;
  if (tools === null || typeof tools !== "object" || typeof tools[Symbol.iterator] !== "function") return false;
  for (const t of tools) {
    if (t === null || typeof t !== "object") continue;
    if (t.annotations?.untrustedContentHint || untrustedBelow(t.agent, seen)) return true;
  }
  return false;
}

/**
 * agentAnnotations is the annotations an agent tool t is declared with: its own, and
 * untrustedContentHint when a tool below it is marked so. A child that has read
 * untrusted content may have been talked into anything, and its answer carries that to
 * the parent's model: the answer is framed as data as the tool's own output would be
 * (docs/design.md "The tool policy"). restore() compares with this (snapshot.js).
 */
export function agentAnnotations(t) {
  const own = t.annotations;
  if (own?.untrustedContentHint || !untrustedBelow(t.agent)) return own;
  return { ...own, untrustedContentHint: true };
}

// counted is execute charged to the tree's total: past it, the call is not run, and the
// child's model is told to answer with what it has.
function counted(execute, tree) {
  return (args, ctx) => {
    if (tree.maxTotal > 0 && tree.calls >= tree.maxTotal) {
      throw new Error(`not run: the agents of this prompt have run ${tree.maxTotal} tool calls, the limit of toolUseConfig.maxTotalToolCalls; answer with what you have`);
    }
    tree.calls++;
    return execute(args, ctx);
  };
}

// agentExecute is the execute of the agent tool name: it creates the child, prompts it
// with the task, passes its events up marked with the call, and destroys it.
function agentExecute(name, agent, level) {
  return async (args, ctx) => {
    const node = nodes.get(ctx[SESSION_KEY]);
    if (!node) throw new Error(`the session that called ${name} is gone`);
    const call = new LanguageModelToolCall({ callID: ctx.callID, name, arguments: args });
    const path = [...node.path, call];
    const signal = ctx.signal;
    const parentApprove = level.approve;
    const o = {};
    for (const k of AGENT_OPTIONS) if (agent[k] !== undefined) o[k] = agent[k];
    o.backend ??= level.backend;
    o.toolUseConfig = {
      ...agent.toolUseConfig,
      approve: typeof parentApprove === "function" ? (c, tool, x) => parentApprove(c, tool, { ...x, path: [call, ...(x?.path ?? [])] }) : undefined,
    };
    o.signal = signal;
    o[PARENT] = { tree: node.tree, depth: node.depth + 1, path };
    let child;
    const forward = (e) => node.session.dispatchEvent(new CustomEvent(e.type, { detail: { ...e.detail, path: [call, ...(e.detail?.path ?? [])] } }));
    const subscribe = (type) => child?.addEventListener(type, forward);
    try {
      child = await level.create(o);
      node.children.add(subscribe);
      for (const type of FORWARDED) if (node.listening.has(type)) subscribe(type);
      return await child.prompt(String(args?.task ?? ""), { signal });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new Error(`the agent ${name} failed: ${e?.name ?? "Error"}: ${e?.message ?? String(e)}`);
    } finally {
      node.children.delete(subscribe);
      child?.destroy();
    }
  };
}

/** agentNodes is what session.js tells this file of the sessions that have agent tools. */
export const agentNodes = {
  // attach registers a session that has agent tools (a clone too, with its own tree:
  // each root session's prompts have their own total).
  attach(key, session, listening, level) {
    const p = level.parent;
    const tree = p ? p.tree : { maxDepth: level.maxDepth, maxTotal: level.maxTotal, calls: 0 };
    nodes.set(key, { session, listening, children: new Set(), depth: level.depth, path: p ? p.path : [], tree, root: !p });
  },
  detach(key) {
    nodes.delete(key);
  },
  // listen subscribes the live children to an event type the session now sends.
  listen(key, type) {
    const node = nodes.get(key);
    if (node && FORWARDED.includes(type)) for (const subscribe of node.children) subscribe(type);
  },
  // settled starts a root session's count afresh once its prompt has ended (its
  // prompts run one after another).
  settled(key) {
    const node = nodes.get(key);
    if (node?.root) node.tree.calls = 0;
  },
};
