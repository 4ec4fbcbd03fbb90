/**
 * How long `spell serve` waits for a client (issue 20: slow clients held sockets forever). A
 * client has `headersMs` to send its headers, `requestMs` for the whole request with its body,
 * `keepAliveMs` of silence between requests on one connection, and `idleMs` of silence on a
 * socket otherwise — except while a cast runs for it (a cast may be quiet for minutes).
 * Node checks the header and request bounds every `connectionsCheckingInterval`.
 */
export interface ServeTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  idleMs: number;
}

export const DEFAULT_TIMEOUTS: ServeTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  idleMs: 120_000,
};

/** The fastify options that bound a client's time. */
export function timeoutOptions(given: Partial<ServeTimeouts> = {}) {
  const t = { ...DEFAULT_TIMEOUTS, ...given };
  // Node wants the headers' bound within the request's.
  const headersTimeout = Math.min(t.headersMs, t.requestMs);
  return {
    connectionTimeout: t.idleMs,
    keepAliveTimeout: t.keepAliveMs,
    requestTimeout: t.requestMs,
    http: {
      headersTimeout,
      requestTimeout: t.requestMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}
