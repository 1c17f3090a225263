// The MCP server settings: connecting creates the session again with the server in
// mcpServers (sessions.js mcpServer), says how much context its tools take, and lists
// them (session.listTools()); disconnecting creates it again without.

import { $, state } from "./state.js";
import { switchSession } from "./sessions.js";
import { describe } from "./status.js";

/**
 * connectMCP creates the session again with the MCP server the settings name (or none:
 * disconnect). It shows that it connected, how much more context the session takes with
 * the server's tool declarations, and the server's tools (session.listTools()). Its tools
 * show as cards when called.
 */
export async function connectMCP(connect) {
  if (state.busy) return;
  const out = $("mcp-result");
  const before = state.session?.contextUsage ?? 0;
  const was = state.mcp;
  state.mcp = connect ? { url: $("mcp-url").value.trim(), name: $("mcp-name").value.trim() || "server", token: $("mcp-token").value } : null;
  out.className = "result";
  out.textContent = connect ? "Connecting…" : "";
  try {
    if (state.mcp && !state.mcp.url) throw new TypeError("Type the server's URL.");
    const session = await switchSession(state.config, state.session?.history);
    const after = session.contextUsage;
    out.className = "result ok";
    out.textContent = state.mcp
      ? `Connected to ${state.mcp.name}: its tools' declarations take ${(after - before).toLocaleString("en")} tokens of context (contextUsage ${before.toLocaleString("en")} → ${after.toLocaleString("en")}).`
      : "Disconnected.";
    showMCPTools(state.mcp ? (await session.listTools()).filter((t) => t.source.kind === "mcp") : []);
  } catch (err) {
    state.mcp = was;
    const { title: head, text } = describe(err);
    out.className = "result error";
    out.textContent = err instanceof TypeError ? err.message : `${head}. ${text}`;
  }
  $("mcp-connect").hidden = Boolean(state.mcp);
  $("mcp-disconnect").hidden = !state.mcp;
}

// showMCPTools lists the MCP server's tools under the settings' result: each its name as
// the model calls it, its title and description (the server's words, shown as text only).
function showMCPTools(tools) {
  const list = $("mcp-tools");
  list.replaceChildren(
    ...tools.map((t) => {
      const li = document.createElement("li");
      const name = document.createElement("code");
      name.textContent = t.name;
      const title = t.annotations?.title;
      li.append(name, ` ${title ? title + ": " : ""}${t.description}`);
      return li;
    }),
  );
  list.hidden = tools.length === 0;
}
