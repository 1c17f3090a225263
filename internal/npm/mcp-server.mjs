// An MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk, pinned here,
// dev only): its Streamable HTTP transport under Node's http, stateful (Mcp-Session-Id),
// with CORS for any origin. TestNode_MCP (internal/integration_test/node) starts it and drives the
// module's MCP client (loop/mcp, under Node through js/language-model.node.js) against
// it. It prints its endpoint's URL, then serves until killed. GET /log answers what
// happened.
//
// Tools: weather {city} (text and image, readOnlyHint), forecast {city} (isError), slow
// (two progress notifications), delete_file {path} (destructiveHint).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const log = [];
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: "mcpnode", version: "1.0.0" });
  server.registerTool(
    "weather",
    { title: "Weather", description: "Weather in a city", inputSchema: { city: z.string() }, annotations: { readOnlyHint: true } },
    async ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }, { type: "image", data: "AQID", mimeType: "image/png" }] }),
  );
  server.registerTool("forecast", { description: "Forecast for a city", inputSchema: { city: z.string() } }, async ({ city }) => ({
    content: [{ type: "text", text: `no forecast for ${city}` }],
    isError: true,
  }));
  server.registerTool("slow", { description: "A slow job that reports progress" }, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      for (const [progress, message] of [[1, "half"], [2, "all"]]) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total: 2, message } });
      }
    }
    return { content: [{ type: "text", text: "slow done" }] };
  });
  server.registerTool(
    "delete_file",
    { description: "Deletes a file", inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
    async ({ path }) => {
      log.push(`deleted ${path}`);
      return { content: [{ type: "text", text: `deleted ${path}` }] };
    },
  );
  return server;
}

const http = createServer(async (req, res) => {
  res.setHeader("Access-Control-Allow-Origin", req.headers.origin ?? "*");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id");
  res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id");
  if (req.method === "OPTIONS") return res.writeHead(204).end();
  if (req.url === "/log") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(log));
  if (req.method === "DELETE") log.push("DELETE");
  const id = req.headers["mcp-session-id"];
  let transport = id ? transports.get(id) : undefined;
  if (!transport) {
    if (id) return res.writeHead(404).end();
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => transports.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res);
});

http.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
