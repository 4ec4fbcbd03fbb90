/**
 * The servers' own answers in the one error-code table (core/error-codes.ts): what
 * `spell serve` and `spell view` send as `{ error: { code, message } }` when the request, not a
 * cast, fails. They are never thrown and end no command, so they have no exit, only the HTTP
 * status each is sent with (tests/core/error-codes.test.ts checks both at every use).
 */

/** A server's own answer, never thrown: the HTTP status it is sent with, no exit. */
export const HTTP_CODES = {
  bad_request: {
    http: 400,
    meaning:
      "spell serve: a request failed with an error that names no code of its own (a thrown error's code is sent as it is)",
  },
  body_too_large: { http: 413, meaning: "spell serve: the request body is over the size limit" },
  fork_busy: {
    http: 409,
    meaning: "spell view --allow-fork: a fork from the page is already running (one at a time)",
  },
  fork_failed: {
    http: 422,
    meaning:
      "spell view --allow-fork: the fork could not start or failed (no spell recorded for the entity, an unknown model, the cast failed)",
  },
  fork_invalid: {
    http: 400,
    meaning:
      "spell view --allow-fork: the fork request is not { turn, intent, llm? } with a known turn and an intent",
  },
  fork_refused: {
    http: 403,
    meaning:
      "spell view --allow-fork: a fork request without the page's x-spell-view header, or from another origin",
  },
  forbidden_host: {
    http: 403,
    meaning:
      "spell serve, spell view: the Host header is not the server's address or a loopback name (DNS rebinding), and no --token",
  },
  forbidden_origin: {
    http: 403,
    meaning:
      "spell serve, spell view: the Origin is not one given with --allow-origin (a CORS preflight too)",
  },
  malformed_answer: {
    http: 400,
    meaning:
      'spell serve: an approval answer is not {"allow": true} or {"allow": false}; the call is denied',
  },
  no_mcp_session: {
    http: 400,
    meaning: "spell serve /mcp: a GET or DELETE without an MCP session (begin one with a POST)",
  },
  not_found: { http: 404, meaning: "spell view: no such page, loom, entity or eval run" },
  session_busy: { http: 409, meaning: "spell serve: a send of this session is already running" },
  too_many_casts: {
    http: 429,
    meaning: "spell serve: as many casts as --max-concurrent are running (retry-after: 1)",
  },
  too_many_mcp_sessions: { http: 503, meaning: "spell serve /mcp: the MCP sessions are all open" },
  too_many_sessions: {
    http: 503,
    meaning: "spell serve: the sessions are all open (retry-after: 5)",
  },
  unauthorized: {
    http: 401,
    meaning:
      "spell serve, spell view: no or a wrong bearer token (--token); spell view: a wrong ?token= for its page",
  },
  unknown_approval: {
    http: 404,
    meaning: "spell serve: no open approval of that id in the session",
  },
  unknown_mcp_session: {
    http: 404,
    meaning: "spell serve /mcp: the Mcp-Session-Id names no open MCP session (it ended)",
  },
  unknown_route: {
    http: 404,
    meaning:
      "spell serve: no route takes that method and path (an unknown path, or a method the path does not take)",
  },
  unknown_session: {
    http: 404,
    meaning: "spell serve: no session of that id (never opened, or opened in another server)",
  },
  view_failed: {
    http: 500,
    meaning:
      "spell view: a page or its data failed to build (the error's own status when it has one)",
  },
} as const satisfies Record<string, { http: number; meaning: string }>;
