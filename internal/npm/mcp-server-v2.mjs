// MCP servers on the official TypeScript SDK's v2 line (@modelcontextprotocol/server,
// pinned here, dev only), which speaks the 2026-07-28 revision: createMcpHandler's
// default endpoint (/mcp), which also serves 2025-era clients statelessly, and its
// modern-only endpoint (/modern, legacy: "reject"), which refuses them. Both under
// Node's http, with CORS for any origin. It prints its base URL, then serves until
// killed. moduletest.StartMCPServerV2 starts it for TestNode_MCPServerSDKs and
// TestBrowser_MCPServerSDKs, which drive the module's MCP client against it.
//
// Tools: weather {city} (text, readOnlyHint).
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

function newServer() {
  const server = new McpServer({ name: "mcpv2", version: "1.0.0" });
  server.registerTool(
    "weather",
    { title: "Weather", description: "Weather in a city", inputSchema: z.object({ city: z.string() }), annotations: { readOnlyHint: true } },
    async ({ city }) => ({ content: [{ type: "text", text: `Sunny in ${city}` }] }),
  );
  return server;
}

const endpoints = {
  "/mcp": createMcpHandler(newServer),
  "/modern": createMcpHandler(newServer, { legacy: "reject" }),
};

const http = createServer(async (req, res) => {
  res.setHeader("Access-Control-Allow-Origin", req.headers.origin ?? "*");
  res.setHeader("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "*");
  res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id");
  if (req.method === "OPTIONS") return res.writeHead(204).end();
  const url = new URL(req.url, "http://" + req.headers.host);
  const handler = endpoints[url.pathname];
  if (!handler) return res.writeHead(404).end();
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Readable.toWeb(req);
  const answer = await handler.fetch(new Request(url, { method: req.method, headers: req.headers, body, duplex: "half" }));
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (!answer.body) return res.end();
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
});

http.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${http.address().port}`);
});
