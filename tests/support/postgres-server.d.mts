// The types of postgres-server.mjs (plain JavaScript, so the benches can load it with node).

export declare const POSTGRES_MISSING: string;

/** The directory holding initdb and postgres, or null when PostgreSQL is not installed. */
export declare const postgresBin: string | null;

export interface PostgresServer {
  port: number;
  /** The connection URL of the `postgres` database (`postgres://postgres@127.0.0.1:PORT/postgres`). */
  url: string;
  /** The pid of the postmaster (for fault tests aimed at this server only). */
  pid: number;
  /** A new empty database on this server; its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Ends the server (SIGQUIT) and removes its folder; the same promise on every call. */
  stop(): Promise<void>;
}

/** The tests' settings: no durability, and small, for many servers at once on one machine. */
export declare const TEST_SETTINGS: Readonly<Record<string, string>>;

/**
 * Starts a server with these `-c` settings (default TEST_SETTINGS); resolves once it accepts
 * connections. Throws POSTGRES_MISSING without PostgreSQL.
 */
export declare function startPostgres(
  settings?: Readonly<Record<string, string>>,
): Promise<PostgresServer>;
