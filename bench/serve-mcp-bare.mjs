// The floor of the MCP row (bench/serve-mcp.mjs): the same SDK's low-level Server over stdio,
// with the same tool (same input and output schemas), answering every call with the spell's
// answer without casting. What `spell mcp` adds over it is the cast, the input check and the
// redaction of what leaves.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "summarize",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      outputSchema: {
        type: "object",
        properties: { words: { type: "integer" } },
        required: ["words"],
      },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (typeof request.params.arguments?.path !== "string") throw new Error("path missing");
  const answer = { words: 7 };
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
});
await server.connect(new StdioServerTransport());
