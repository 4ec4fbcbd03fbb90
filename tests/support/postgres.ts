/**
 * A real PostgreSQL for a test file (the server itself: postgres-server.mjs, shared with the
 * benches): one server per file, stopped and removed after; `createDatabase` gives each test a
 * fresh database on it.
 *
 *   const pg = usePostgres();            // beforeAll starts, afterAll stops
 *   needs(noPostgres).describe(…, () => { … await pg().createDatabase() … });
 *
 * Without the binaries, the tests skip with `POSTGRES_MISSING` as the reason (and fail under
 * CI=true: tests/support/needs.ts).
 */
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import {
  POSTGRES_MISSING,
  postgresBin,
  startPostgres,
  type PostgresServer,
} from "./postgres-server.mjs";

export { POSTGRES_MISSING, postgresBin, startPostgres, type PostgresServer };

/** Why the PostgreSQL tests cannot run here, or undefined when the binaries are there. */
export const noPostgres: string | undefined = postgresBin ? undefined : POSTGRES_MISSING;

/** One server for the test file: started before its tests, stopped after. */
export function usePostgres(): () => PostgresServer {
  let server: PostgresServer | null = null;
  beforeAll(async () => {
    if (postgresBin) server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error(POSTGRES_MISSING);
    return server;
  };
}

/** One statement on a connection of its own (a test's look at the tables behind a store). */
export async function sql(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
