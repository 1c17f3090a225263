// The demo's tools in WebMCP (webmachinelearning/webmcp), where the page has
// document.modelContext (Chromium with WebMCP, or a polyfill): registered there, a
// browser's own agent can use them too, and the chat's closed loop takes them from there
// with create({modelContext}) instead of declaring them again. clear_notes, destructive,
// is registered as consequential: the module runs it only after the user approves.
//
// executeTool gives a tool neither the call's id nor a way to report progress, so the
// chat pairs each run with the call its session announced (the toolcall event, which
// comes first) to drive that call's card; a run nobody announced (another agent's) just runs.

const announced = new Map(); // tool name → the cards of calls announced and not yet run, in order

/** announce records that the chat's session is about to run a call of tool name (its card ref). */
export function announce(name, ref) {
  if (!announced.has(name)) announced.set(name, []);
  announced.get(name).push(ref);
}

/** settled forgets a call that ended without running (declined, refused, aborted). */
export function settled(name, ref) {
  const q = announced.get(name);
  const i = q ? q.indexOf(ref) : -1;
  if (i >= 0) q.splice(i, 1);
}

/**
 * registerTools registers tools in mc and resolves once all are registered. run(tool,
 * args, ref) runs one for a call announced with card ref (undefined for others); an
 * object it returns goes back as structuredContent. A thrown error goes back as an MCP result with isError, which keeps its message (Chromium
 * turns a throw into a generic UnknownError).
 */
export async function registerTools(mc, tools, run) {
  await Promise.all(
    tools.map((t) => {
      const a = t.annotations ?? {};
      return mc.registerTool({
        name: t.name,
        title: a.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { readOnlyHint: a.readOnlyHint === true, consequentialHint: a.destructiveHint === true },
        async execute(args) {
          try {
            const v = await run(t, args, announced.get(t.name)?.shift());
            // An object (read_data_file's) as MCP's structuredContent: the module reads it
            // back as an object part, as when execute returns it.
            return typeof v === "string" ? v : { content: [], structuredContent: v };
          } catch (e) {
            return { content: [{ type: "text", text: e?.message ?? String(e) }], isError: true };
          }
        },
      });
    }),
  );
}
