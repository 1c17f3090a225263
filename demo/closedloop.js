// The closed loop: the module runs the tools, and the page shows each call on its card.
// The page's execute and WebMCP's, approve (asking the user before a destructive or
// consequential tool), and a prompt streamed into the live view.

import { ask, liveCall, liveText, setCall } from "./live.js";
import { state } from "./state.js";

// executeClosed is a tool's execute in the closed loop: the module calls it after the
// toolcall event (and the approval); progress goes back as toolprogress events.
export async function executeClosed(name, run, args, ctx) {
  const ref = liveCall({ callID: ctx.callID, name, arguments: args }, "running");
  setCall(ref, { state: "running" });
  return run(args, { signal: ctx.signal, progress: ctx.progress });
}

// runWebMCP is a tool's WebMCP execute (demo/webmcp.js): for a call of the chat, the
// card the toolcall event made shows it running and its progress.
export async function runWebMCP(tool, args, ref) {
  if (!ref) return tool.run(args, { progress() {} });
  setCall(ref, { state: "running" });
  const signal = state.controller?.signal;
  return tool.run(args, { signal, progress: (p) => signal?.aborted || setCall(ref, { state: "running", progress: p }) });
}

// approveClosed asks the user before a destructive (or, in WebMCP, consequential) tool
// runs; the others run at once. "Allow always" answers {allow: "always"}: the session
// runs this tool unasked from then on, while it declares what was shown here
// (docs/security.md "Approvals remembered"); the snapshot keeps it across a reload.
export async function approveClosed(call, tool, context) {
  if (!tool?.annotations?.destructiveHint && !tool?.annotations?.consequentialHint) return true;
  const ref = liveCall(call, "approval", context?.path);
  ref.call.remembers = true;
  const d = await ask(ref, "approval", state.controller?.signal);
  return d === "always" ? { allow: "always" } : d === "run";
}

export async function runClosed(text, signal) {
  const stream = state.session.promptStreaming(text, { signal });
  for await (const chunk of stream) {
    if (typeof chunk === "string") liveText(chunk);
    else liveCall(chunk.value, "requested"); // a hybrid session hands calls back
  }
}
