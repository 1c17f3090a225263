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
// the page's own tools (a name in both is a TypeError). A getTools() that never settles
// cannot outlive signal.
export async function modelContextTools(mc, own, signal) {
  const names = new Set();
  if (Array.isArray(own)) for (const t of own) if (t && typeof t === "object") names.add(t.name);
  const out = [];
  for (const t of Array.from(await orAbort(mc.getTools(), signal))) {
    if (names.has(t.name)) throw new TypeError(`tool ${t.name} is both in tools and registered in modelContext`);
    out.push(declaration(mc, t));
  }
  return out;
}

// orAbort is p, or signal's abort when it comes first.
function orAbort(p, signal) {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(p)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

// shape is what a decision about a call of t is made on: its description, title, schema
// and annotations, read as the session declares them. Its JSON is compared with the
// registration's at every call (run).
function shape(t) {
  let schema = t.inputSchema;
  if (typeof schema === "string" && schema !== "") {
    try {
      schema = JSON.parse(schema);
    } catch (e) {
      throw new TypeError(`tool ${t.name}: inputSchema is not JSON: ${e.message}`);
    }
  }
  if (schema === "") schema = undefined;
  if (schema && typeof schema === "object" && schema.type === undefined) schema = { type: "object", ...schema };
  const a = t.annotations ?? {};
  const annotations = {};
  for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"]) {
    if (typeof a[k] === "boolean") annotations[k] = a[k];
  }
  const title = typeof t.title === "string" && t.title !== "" ? t.title : undefined;
  return { title, description: t.description || t.title || t.name, inputSchema: schema, annotations };
}

// declaration is the tool getTools() described, as create()'s tools take one. Its
// execute runs the tool only while it is registered as declared.
function declaration(mc, t) {
  const name = t.name;
  const declared = shape(t);
  return {
    name,
    ...declared,
    [fromModelContext]: true,
    execute: (args, { signal }) => run(mc, name, JSON.stringify(declared), args, signal),
  };
}

// run runs the tool registered now under name, if it is still the one declared (its
// shape's JSON, declared): a tool unregistered since the session saw it, or while it
// runs, is "no longer available" for the model, whatever the implementation does (the
// polyfill rejects the running call, Chromium 156 lets it run on); one registered again
// with another declaration (a consequentialHint now, say) is refused, never run under the
// decision made about the old one. The call's abort settles it even when executeTool
// ignores its signal, and its toolchange listener goes with it.
async function run(mc, name, declared, args, signal) {
  const gone = () => new Error(`tool ${name} is no longer available: the page unregistered it`);
  const registered = async () => Array.from(await orAbort(mc.getTools(), signal)).find((t) => t.name === name);
  const tool = await registered();
  if (!tool) throw gone();
  let now;
  try {
    now = JSON.stringify(shape(tool));
  } catch {}
  if (now !== declared) throw new Error(`tool ${name} changed since the model was offered it (registered again with another declaration); the call was not run`);
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
    return await orAbort(Promise.race([mc.executeTool(tool, input, { signal }), unregistered]), signal);
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
    } catch (e) {
      // A name now in both, a registration that cannot be read, or getTools() failed:
      // the session keeps its tools, and the page is told.
      console.warn("language-model: the WebMCP tools changed, and the session keeps the ones it had:", e);
      return;
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
// options.modelContext added to options.tools, and the context (undefined without one);
// signal (create()'s) ends a getTools() that does not settle.
export async function withModelContext(options, signal) {
  const mc = modelContextOf(options.modelContext);
  if (!mc) return { options, mc };
  const own = options.tools === undefined || options.tools === null ? [] : Array.from(options.tools);
  return { options: { ...options, tools: [...own, ...(await modelContextTools(mc, own, signal))] }, mc, own };
}
