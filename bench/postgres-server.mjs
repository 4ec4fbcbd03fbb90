// A real PostgreSQL for the benches (loom-pg, scale): the tests' server
// (tests/support/postgres-server.mjs) with fsync off as in the tests, but PostgreSQL's default
// sizes (connections, shared buffers). `startPostgres()` resolves to { url, pid, stop } once the
// server is ready, or null when PostgreSQL is not installed; `stop()` ends it and removes its folder.
import { postgresBin, startPostgres as start } from "../tests/support/postgres-server.mjs";

export const startPostgres = async () =>
  postgresBin ? start({ fsync: "off", synchronous_commit: "off" }) : null;
