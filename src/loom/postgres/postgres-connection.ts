import { SpellbookError, SystemError } from "../../core/errors.js";
import { Redactor } from "../../core/redact.js";
import type { Pool, PoolClient } from "pg";
import { migrate } from "./postgres-schema.js";

/** Whether a loom location names a PostgreSQL database rather than a file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Query options whose value is a secret: libpq (and `pg`) read `?password=` and `?sslpassword=`. */
const SECRET_OPTION = /pass/i;

/**
 * A URL's password where the URL does not parse: from the first `:` of its authority (which ends
 * at the first `/`, `?` or `#`) to the authority's last `@` (a password may hold an `@`).
 */
const USERINFO_PASSWORD = /\/\/([^:/@?#]*):([^/?#]*)@/;

/** The URL with its password (and any `?…pass…=` option) replaced by `***`: what messages show. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    for (const key of [...parsed.searchParams.keys()])
      if (SECRET_OPTION.test(key)) parsed.searchParams.set(key, "***");
    return parsed.toString();
  } catch {
    return url
      .replace(USERINFO_PASSWORD, "//$1:***@")
      .replace(/([?&][^=&#]*pass[^=&#]*=)[^&#]*/gi, "$1***");
  }
}

/** The URL without its password or a secret option (null: not a URL): what may travel. */
export function urlWithoutSecrets(url: string): string | null {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    for (const key of [...parsed.searchParams.keys()])
      if (SECRET_OPTION.test(key)) parsed.searchParams.delete(key);
    return parsed.href;
  } catch {
    return null;
  }
}

/** `part` decoded; a malformed `%` escape (which `pg` accepts) kept as written, not a throw. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The URL's secrets — its password, its `?…pass…=` options — so messages can be scrubbed of them:
 * decoded as `pg` decodes them (pg-connection-string: a URL with a space or a malformed `%`
 * escape is read through `encodeURI` first, so `p%zz` is the password `p%zz`).
 */
export function urlSecrets(url: string): string[] {
  const found = new Set<string>();
  const read = (text: string) => {
    const parsed = new URL(text);
    found.add(decoded(parsed.password));
    for (const [key, value] of parsed.searchParams) if (SECRET_OPTION.test(key)) found.add(value);
  };
  try {
    read(url);
  } catch {
    // not a URL as written: its password as the authority holds it (pg may still make a URL)
    const password = USERINFO_PASSWORD.exec(url)?.[2];
    if (password !== undefined) found.add(decoded(password));
  }
  try {
    if (/ |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url))
      read(encodeURI(url).replace(/%25(\d\d)/g, "%$1"));
  } catch {
    // not a URL pg could connect to either
  }
  return [...found].filter((s) => s !== "");
}

/**
 * `message` with the URL's secrets redacted by the one redactor (every form: base64, hex, URL- and
 * JSON-encoded, reversed); one too short for it (under 4 characters) still becomes `***` as written.
 */
export function withoutUrlSecrets(message: string, url: string): string {
  const redactor = new Redactor();
  const secrets = urlSecrets(url);
  for (const secret of secrets) redactor.add(secret);
  let out = redactor.redact(message);
  for (const secret of secrets) out = out.split(secret).join("***");
  return out;
}

/** SQLSTATE classes and socket errors after which the same statement may simply be sent again. */
const RETRY_STATES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);
const RETRY_SOCKET = /ECONNRESET|ECONNREFUSED|EPIPE|Connection terminated|connection is closed/i;

function retryable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (RETRY_STATES.has(code) || RETRY_SOCKET.test(code))) return true;
  return RETRY_SOCKET.test(err.message);
}

const ATTEMPTS = 6;

/**
 * A pool to one loom database: `pg` loaded on first use (so `spell --help` never loads it), the
 * schema migrated once, and every statement retried when the connection drops (every write of
 * the store is idempotent by id, so a statement whose answer was lost is safe to send again).
 */
export class PostgresConnection {
  readonly location: string;
  private pool: Promise<Pool> | null = null;
  private closed = false;

  constructor(private readonly url: string) {
    this.location = redactUrl(url);
  }

  /** Runs `work` on a pooled client; retried after a dropped connection; errors made ours. */
  async run<T>(work: (client: Pool | PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work(await this.open());
      } catch (err) {
        if (attempt < ATTEMPTS && retryable(err) && !this.closed) {
          await new Promise((resolve) => setTimeout(resolve, 25 * attempt * attempt));
          continue;
        }
        throw this.ours(err);
      }
    }
  }

  /**
   * A client of its own, for statements that must share one session (a cursor in a
   * transaction): never retried (a dropped session loses its cursor). Release it when done.
   */
  async session(): Promise<PoolClient> {
    try {
      return await (await this.open()).connect();
    } catch (err) {
      throw this.ours(err);
    }
  }

  /** An error of a session's statement as this connection's (the URL's password never in it). */
  error(err: unknown): Error {
    return this.ours(err);
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.end();
  }

  private open(): Promise<Pool> {
    this.pool ??= this.connect().catch((err: unknown) => {
      this.pool = null; // a failed start is not remembered: the next call tries again
      throw err;
    });
    return this.pool;
  }

  private async connect(): Promise<Pool> {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: this.url, max: 4 });
    // An idle client whose server went away must not crash the process: the next query retries.
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, this.location);
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return pool;
  }

  /** A pg error as a SpellbookError whose message never holds the URL's password. */
  private ours(err: unknown): Error {
    if (SpellbookError.isInstance(err)) return err;
    const raw = err instanceof Error ? err.message : String(err);
    return new SystemError(
      "loom_db",
      `PostgreSQL loom at ${this.location}: ${withoutUrlSecrets(raw, this.url)}`,
    );
  }
}
