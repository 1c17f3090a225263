// WebMCP (webmachinelearning/webmcp): create({modelContext: document.modelContext}) gives
// the session the tools the page registered there. This file only adapts: it turns each
// registered tool into a declaration whose execute runs executeTool, and follows
// toolchange. What is the same for every tool source (argument validation, reading the
// MCP CallToolResult string executeTool returns, approval of consequential tools,
// untrusted output) is the engine's tool policy (loop/policy.go).
//
// The two implementations differ in one place: Chromium's executeTool takes the
// arguments as an object (a JSON string is a TypeError), @mcp-b/webmcp-polyfill's as a
// JSON string; the polyfill marks its context with __isWebMCPPolyfill.

// fromModelContext marks a declaration made here: its execute returns executeTool's
// string, which the engine reads as a CallToolResult (the wire's mcpResult).
export const fromModelContext = Symbol("modelContext");

// modelContextOf checks create()'s modelContext option: undefined, null, or an object
// with getTools() and executeTool().
export function modelContextOf(mc) {
  if (mc === undefined || mc === null) return undefined;
  if (typeof mc !== "object" || typeof mc.getTools !== "function" || typeof mc.executeTool !== "function") {
    throw new TypeError("modelContext must be a WebMCP model context (document.modelContext): getTools() and executeTool() are missing");
  }
  return mc;
}

// modelContextTools returns the declarations of the tools registered in mc now, beside
// the page's own tools (a name in both is a TypeError).
export async function modelContextTools(mc, own) {
  const names = new Set();
  if (Array.isArray(own)) for (const t of own) if (t && typeof t === "object") names.add(t.name);
  const out = [];
  for (const t of Array.from(await mc.getTools())) {
    if (names.has(t.name)) throw new TypeError(`tool ${t.name} is both in tools and registered in modelContext`);
    out.push(declaration(mc, t));
  }
  return out;
}

// declaration is the tool getTools() described, as create()'s tools take one.
function declaration(mc, t) {
  const name = t.name;
  let schema = t.inputSchema;
  if (typeof schema === "string") schema = schema === "" ? undefined : JSON.parse(schema);
  if (schema && typeof schema === "object" && schema.type === undefined) schema = { type: "object", ...schema };
  const a = t.annotations ?? {};
  const annotations = {};
  for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"]) {
    if (typeof a[k] === "boolean") annotations[k] = a[k];
  }
  return {
    name,
    title: typeof t.title === "string" && t.title !== "" ? t.title : undefined,
    description: t.description || t.title || name,
    inputSchema: schema,
    annotations,
    [fromModelContext]: true,
    execute: (args, { signal }) => run(mc, name, args, signal),
  };
}

// run runs the tool registered now under name. A tool unregistered since the session saw
// it, or while it runs, is "no longer available" for the model, whatever the
// implementation does (the polyfill rejects the running call, Chromium 156 lets it run on).
async function run(mc, name, args, signal) {
  const gone = () => new Error(`tool ${name} is no longer available: the page unregistered it`);
  const registered = async () => Array.from(await mc.getTools()).find((t) => t.name === name);
  const tool = await registered();
  if (!tool) throw gone();
  signal?.throwIfAborted();
  const input = mc.__isWebMCPPolyfill === true ? JSON.stringify(args) : args;
  let onChange;
  const unregistered = new Promise((_, reject) => {
    onChange = async () => {
      if (!(await registered())) reject(gone());
    };
    mc.addEventListener?.("toolchange", onChange);
  });
  unregistered.catch(() => {}); // a change after the call settled
  try {
    return await Promise.race([mc.executeTool(tool, input, { signal }), unregistered]);
  } catch (e) {
    if (signal?.aborted) throw e;
    if (!(await registered())) throw gone();
    throw e;
  } finally {
    mc.removeEventListener?.("toolchange", onChange);
  }
}

// follow keeps the session key's tools those of mc, from mc's toolchange on: each change
// sends the engine the whole new set (the page's own tools and the context's) in a tools
// message, which it offers from the session's next model step on. tools (the session's
// name → tool map, which approve reads) and ids (stash ids released with the session)
// grow with the new ones; wireToolList is webidl.js's (passed in: the module loaders of
// some hosts refuse import cycles). It returns the function that stops following.
export function follow(mc, own, { channel, key, tools, ids, wireToolList }) {
  let stopped = false;
  const onChange = async () => {
    let list;
    try {
      list = [...own, ...(await modelContextTools(mc, own))];
    } catch {
      return; // a name now in both, or getTools() failed: the session keeps its tools
    }
    if (stopped) return;
    const fresh = new Map();
    const wire = wireToolList(list, fresh, ids);
    for (const [name, t] of fresh) tools.set(name, t);
    channel.notify({ type: "tools", session: key, tools: wire });
  };
  mc.addEventListener?.("toolchange", onChange);
  return () => {
    stopped = true;
    mc.removeEventListener?.("toolchange", onChange);
  };
}

// withModelContext returns create()'s options with the tools registered in
// options.modelContext added to options.tools, and the context (undefined without one).
export async function withModelContext(options) {
  const mc = modelContextOf(options.modelContext);
  if (!mc) return { options, mc };
  const own = options.tools === undefined || options.tools === null ? [] : Array.from(options.tools);
  return { options: { ...options, tools: [...own, ...(await modelContextTools(mc, own))] }, mc, own };
}
