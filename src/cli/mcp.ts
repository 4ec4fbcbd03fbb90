/**
 * `spell mcp FILE…`: the spells as tools of one MCP server on stdio, until the client closes
 * stdin. Every spell is loaded first; one that does not load stops the server before it starts
 * (exit 3), since a tool list missing a spell would be a silent surprise.
 */
import { errorMessage } from "../core/errors.js";
import { loadSpell, type LoadedSpell } from "../spell/index.js";
import { redactorOf } from "../protocols/redact-out.js";
import { displayPath, EXIT, type CliIO } from "./io.js";
import { exitFor, printWarnings, DEFAULT_LOOM } from "./load.js";
import { openSpell } from "./open-spell.js";

export interface McpStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Resolves when the server is to stop (SIGTERM, SIGINT). */
  stop: Promise<unknown>;
}

export async function mcpCommand(
  files: readonly string[],
  flags: { loom?: string | undefined; plainHttp?: boolean | undefined },
  io: CliIO,
  streams: McpStreams,
): Promise<number> {
  const spells: LoadedSpell[] = [];
  for (const file of files) {
    const opened = await openSpell(file, io, { plainHttp: flags.plainHttp });
    if (typeof opened === "number") {
      for (const s of spells) s.cantrip?.loom.close();
      return opened;
    }
    try {
      const loaded = await loadSpell(displayPath(io.cwd, opened.path), {
        ...(opened.remote ? { remote: opened.remote } : {}),
        env: io.env,
        loomPath: flags.loom,
        defaultLoomPath: DEFAULT_LOOM,
      });
      printWarnings(loaded, io);
      spells.push(loaded);
    } catch (err) {
      io.stderr(`${errorMessage(err)}\n`);
      for (const s of spells) s.cantrip?.loom.close();
      return exitFor(err);
    }
  }
  const { serveMcpStdio } = await import("../protocols/mcp/stdio.js");
  // A name may hold a `${env:…}` secret: the line is redacted as every message is (issue 38).
  const names = spells.map((s) => s.name).join(", ");
  io.stderr(
    redactorOf(spells)(
      `spell mcp: ${names} waiting for an MCP client on stdin (close stdin to stop)\n`,
    ),
  );
  await serveMcpStdio(spells, streams, streams.stop);
  for (const s of spells) s.cantrip?.loom.close();
  return EXIT.ok;
}
