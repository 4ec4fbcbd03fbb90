#!/usr/bin/env node
// A small MCP server over stdio, bundled with spells/notes.yaml as an example of a server a
// spell declares: it serves the Markdown notes of the folder it runs in (default its own, or
// NOTES_DIR), read-only. Written with the official SDK's server side.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const dir = process.env.NOTES_DIR || join(import.meta.dirname, "notes");
const titles = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3));
const text = (t) => ({ content: [{ type: "text", text: t }] });
const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "search",
  {
    description: "Titles of the notes whose text contains a word (case-insensitive), as JSON.",
    inputSchema: { query: z.string().describe("The word to look for") },
  },
  ({ query }) => {
    const q = query.toLowerCase();
    const hits = titles().filter((t) =>
      readFileSync(join(dir, `${t}.md`), "utf8")
        .toLowerCase()
        .includes(q),
    );
    return text(JSON.stringify(hits));
  },
);
server.registerTool(
  "read",
  { description: "The text of one note, by title.", inputSchema: { title: z.string() } },
  ({ title }) =>
    titles().includes(title)
      ? text(readFileSync(join(dir, `${title}.md`), "utf8"))
      : { isError: true, content: [{ type: "text", text: `no note titled ${title}` }] },
);

await server.connect(new StdioServerTransport());
