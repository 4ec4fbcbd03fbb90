import { errorMessage, SpellbookError } from "../core/errors.js";
import { openSpell } from "./open-spell.js";
import { loadSpell, type LoadedSpell } from "../spell/index.js";
import { DEFAULT_LOOM } from "./run.js";
import { normalizeOrigin } from "../protocols/http/guard.js";
import { displayPath, EXIT, type CliIO } from "./io.js";
import { otelSetup, startOtel, type OtelFlags } from "./otel/tracing.js";

export interface ServeFlags extends OtelFlags {
  port?: number | undefined;
  host?: string | undefined;
  token?: string | undefined;
  maxConcurrent?: number | undefined;
  loom?: string | undefined;
  /** Plain HTTP to a registry not on loopback, for an oci:// spell. */
  plainHttp?: boolean | undefined;
  /** Sessions open at once (`--max-sessions`); default 1,000. */
  maxSessions?: number | undefined;
  /** Seconds a session may sit unused before it is let go (`--session-idle`); default 900. */
  sessionIdleSeconds?: number | undefined;
  /** Origins whose web pages may call the server (`--allow-origin`, repeatable). */
  allowOrigins?: readonly string[] | undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

/** The spell to serve (`oci://` fetched first), or the exit code when it does not load. */
async function loadServed(
  file: string,
  flags: ServeFlags,
  io: CliIO,
): Promise<LoadedSpell | number> {
  const opened = await openSpell(file, io, { plainHttp: flags.plainHttp });
  if (typeof opened === "number") return opened;
  try {
    return await loadSpell(displayPath(io.cwd, opened.path), {
      ...(opened.remote ? { remote: opened.remote } : {}),
      env: io.env,
      loomPath: flags.loom,
      defaultLoomPath: DEFAULT_LOOM,
    });
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return err instanceof SpellbookError && err.family === "spell" ? EXIT.invalid : EXIT.failure;
  }
}

/**
 * `spell serve FILE`: the spell over HTTP until SIGTERM or SIGINT, which drain the running
 * casts (their turns are in the loom) and exit. `stop` resolves when the server is to stop.
 */
export async function serveCommand(
  file: string,
  flags: ServeFlags,
  io: CliIO,
  stop: Promise<unknown>,
): Promise<number> {
  const host = flags.host ?? "127.0.0.1";
  const token = flags.token ?? io.env["SPELLBOOK_TOKEN"];
  if (!LOOPBACK.test(host) && !token) {
    io.stderr(
      `refusing to listen on ${host} without a token: anyone who reaches it could run the spell.\n` +
        "Give --token (or SPELLBOOK_TOKEN), or keep the default host 127.0.0.1.\n",
    );
    return EXIT.invalid;
  }
  const allowOrigins: string[] = [];
  for (const origin of flags.allowOrigins ?? []) {
    try {
      allowOrigins.push(normalizeOrigin(origin));
    } catch {
      io.stderr(
        `--allow-origin ${origin}: not an origin (scheme://host[:port], e.g. http://localhost:3000)\n`,
      );
      return EXIT.invalid;
    }
  }
  const loaded = await loadServed(file, flags, io);
  if (typeof loaded === "number") return loaded;
  if (token) loaded.redactor.add(token);
  const otel = await startOtel(flags, otelSetup(loaded), io);
  if (typeof otel === "number") return otel;
  const { createHttpServer } = await import("../protocols/http/server.js");
  const app = await createHttpServer(loaded, {
    token,
    maxConcurrent: flags.maxConcurrent,
    allowOrigins,
    maxSessions: flags.maxSessions,
    sessionIdleMs:
      flags.sessionIdleSeconds === undefined ? undefined : flags.sessionIdleSeconds * 1000,
    ...(otel ? { observe: () => otel.listener() } : {}),
  });
  const address = await app.listen({ port: flags.port ?? 8787, host });
  const listening = `spell serve: ${loaded.name} listening on ${address} (Ctrl-C or SIGTERM to stop)\n`;
  io.stderr(loaded.redactor.redact(listening)); // a name may hold a secret (issue 38)
  await stop;
  io.stderr("spell serve: draining running casts…\n");
  await app.close(); // waits for requests in flight
  await otel?.shutdown();
  loaded.cantrip!.loom.close();
  return EXIT.ok;
}
