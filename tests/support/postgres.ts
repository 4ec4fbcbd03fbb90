/**
 * A real PostgreSQL for a test file (the server itself: postgres-server.mjs, shared with the
 * benches): one server per file, stopped and removed after; `createDatabase` gives each test a
 * fresh database on it.
 *
 *   const pg = usePostgres();            // beforeAll starts, afterAll stops
 *   describe.skipIf(!postgresBin)(…, () => { … await pg().createDatabase() … });
 *
 * Without the binaries, the tests skip with `POSTGRES_MISSING` as the reason.
 */
import { afterAll, beforeAll } from "vitest";
import {
  POSTGRES_MISSING,
  postgresBin,
  startPostgres,
  type PostgresServer,
} from "./postgres-server.mjs";

export { POSTGRES_MISSING, postgresBin, startPostgres, type PostgresServer };

if (!postgresBin) console.warn(`PostgreSQL tests skipped: ${POSTGRES_MISSING}`);

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
