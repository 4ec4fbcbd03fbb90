/** `spell mcp` on stdin/stdout: one MCP server for the process, until the client closes stdin. */
import type { LoadedSpell } from "../../spell/index.js";
import { createMcpServer } from "./server.js";

export async function serveMcpStdio(
  spells: readonly LoadedSpell[],
  streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
  stop: Promise<unknown>,
): Promise<void> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const server = await createMcpServer(spells);
  const transport = new StdioServerTransport(
    streams.input as NodeJS.ReadStream,
    streams.output as NodeJS.WriteStream,
  );
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    streams.input.once("end", () => resolve());
    streams.input.once("close", () => resolve());
  });
  await server.connect(transport);
  await Promise.race([closed, stop]);
  await server.close().catch(() => undefined);
}
