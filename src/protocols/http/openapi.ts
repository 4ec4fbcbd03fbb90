/**
 * The OpenAPI 3.1 document `spell serve` publishes at /openapi.json, generated from the routes the
 * server registered (fastify's `onRoute`: every method and path, and the body and path-parameter
 * schemas fastify validates), so it cannot leave a route out; what a route's operation says
 * beyond its schemas (summary, responses) comes from the descriptions below, keyed by path.
 */
import type { FastifyInstance, RouteOptions } from "fastify";
const intentBody = {
  type: "object",
  required: ["intent"],
  additionalProperties: false,
  properties: { intent: { type: "string", minLength: 1 } },
} as const;

/** POST /cast: an intent, the spell's inputs (issue 26), or both (the intent then replaces the spell's template). */
const castBody = {
  type: "object",
  additionalProperties: false,
  anyOf: [{ required: ["intent"] }, { required: ["inputs"] }],
  properties: {
    intent: { type: "string", minLength: 1 },
    inputs: { type: "object", description: "The spell's inputs:, checked before any cast." },
  },
} as const;

const result = {
  type: "object",
  description: "A cast's result, as `spell run --json` prints it.",
  properties: {
    status: { enum: ["terminated", "truncated", "failed"] },
    result: {},
    terminated: { type: "boolean" },
    truncated: { type: "boolean" },
    reason: { type: "string" },
    entity_id: { type: "string" },
    turns: { type: "integer" },
    usage: { type: "object" },
    loom: { type: "string" },
    last_turn_id: { type: ["string", "null"] },
    error: {
      type: "object",
      properties: { code: { type: "string" }, message: { type: "string" } },
    },
  },
} as const;

const error = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: { code: { type: "string" }, message: { type: "string" } },
    },
  },
} as const;

const castResponses = {
  "200": {
    description:
      "The cast's result (terminated or truncated); with `Accept: text/event-stream`, its events then a `result` event.",
    content: { "application/json": { schema: result }, "text/event-stream": {} },
  },
  "400": {
    description: "Malformed JSON or a missing intent",
    content: { "application/json": { schema: error } },
  },
  "401": {
    description: "Missing or wrong bearer token",
    content: { "application/json": { schema: error } },
  },
  "403": {
    description:
      "Without a token: a Host that is not a loopback name or the server's address, or a browser Origin not allowed (--allow-origin)",
    content: { "application/json": { schema: error } },
  },
  "413": { description: "Body over the limit", content: { "application/json": { schema: error } } },
  "429": {
    description: "Too many casts at once; see Retry-After",
    content: { "application/json": { schema: error } },
  },
  "502": {
    description: "The cast failed (a provider, the model)",
    content: { "application/json": { schema: result } },
  },
};

const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } } as const;

/** Issue 25: a session's approval questions (also `approval` events on its send's SSE stream). */
const approvalPaths = {
  "/sessions/{id}/approvals": {
    get: {
      summary: "The session's open approval questions: id, gate, arguments (redacted), rule",
      parameters: [idParam],
      responses: {
        "200": { description: "{ approvals: [...] }" },
        "404": { description: "Unknown session" },
      },
    },
  },
  "/sessions/{id}/approvals/{approval}": {
    post: {
      summary:
        "Answer an approval question of this session; no answer before approval_timeout_ms denies the call",
      parameters: [
        idParam,
        { name: "approval", in: "path", required: true, schema: { type: "string" } },
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["allow"],
              properties: { allow: { type: "boolean" } },
            },
          },
        },
      },
      responses: {
        "204": { description: "Answered" },
        "400": {
          description: "Not {allow: boolean}: the call is denied",
          content: { "application/json": { schema: error } },
        },
        "404": {
          description: "No such open question in this session (another session's id is refused)",
        },
      },
    },
  },
};

/** What each path's operations say beyond their schemas; a route not here gets its schemas alone. */
const described = {
  "/healthz": { get: { summary: "Liveness", responses: { "200": { description: "ok" } } } },
  "/cast": {
    post: {
      summary: "Cast the spell on an intent: a fresh entity, released after",
      requestBody: { required: true, content: { "application/json": { schema: castBody } } },
      responses: castResponses,
    },
  },
  "/sessions": {
    post: {
      summary: "Summon an entity; returns its session id",
      responses: {
        "201": { description: "{ id }" },
        "503": {
          description: "As many sessions are open as allowed (--max-sessions); see Retry-After",
          content: { "application/json": { schema: error } },
        },
      },
    },
  },
  "/sessions/{id}": {
    delete: {
      summary:
        "Let go of a session now, as idle expiry does (a loom file brings it back when used)",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "204": { description: "Let go" },
        "404": { description: "Not open here" },
        "409": { description: "A send of it is running" },
      },
    },
  },
  "/sessions/{id}/send": {
    post: {
      summary: "Send an intent to a session's entity: it sees everything sent before",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      requestBody: { required: true, content: { "application/json": { schema: intentBody } } },
      responses: { ...castResponses, "404": { description: "Unknown session" } },
    },
  },
  ...approvalPaths,
  "/sessions/{id}/loom": {
    get: {
      summary: "The session's turns as loom JSONL, redacted",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: { "200": { description: "JSONL" }, "404": { description: "Unknown session" } },
    },
  },
  "/openapi.json": {
    get: {
      summary: "This document",
      responses: { "200": { description: "OpenAPI 3.1" } },
    },
  },
  "/.well-known/agent-card.json": {
    get: {
      summary: "The A2A agent card (A2A-Version: 1.0 gets the 1.0 card; no version, the 0.3 card)",
      responses: { "200": { description: "The agent card" } },
    },
  },
  "/a2a": {
    post: {
      summary:
        "A2A JSON-RPC (message/send, message/stream, tasks/get, tasks/cancel, and the 1.0 names)",
      requestBody: {
        required: true,
        content: { "application/json": { schema: { type: "object" } } },
      },
      responses: {
        "200": {
          description: "A JSON-RPC answer; with message/stream, Server-Sent Events",
          content: { "application/json": {}, "text/event-stream": {} },
        },
        "400": { description: "Not JSON: JSON-RPC parse error -32700, id null" },
      },
    },
  },
  "/mcp": {
    post: {
      summary: "MCP over streamable HTTP: the spell as a tool (initialize, tools/list, tools/call)",
      responses: { "200": { description: "A JSON-RPC answer or an event stream" } },
    },
    get: {
      summary: "MCP: the session's server-to-client event stream",
      responses: { "200": { description: "Server-Sent Events" } },
    },
    delete: {
      summary: "MCP: end the session (its Mcp-Session-Id)",
      responses: { "200": { description: "Ended" } },
    },
  },
} as Record<string, Record<string, Record<string, unknown>>>;

/** A route as the document needs it: method, path and the schemas fastify validates. */
interface RouteInfo {
  method: string;
  url: string;
  schema: RouteOptions["schema"];
}

/** Keeps every route the server registers from now on (call before the routes are added). */
export function routeCatalog(app: FastifyInstance): () => readonly RouteInfo[] {
  const routes: RouteInfo[] = [];
  app.addHook("onRoute", (r) => {
    for (const method of [r.method].flat())
      if (method !== "HEAD") routes.push({ method, url: r.url, schema: r.schema });
  });
  return () => routes;
}

export function openApiDocument(title: string, routes: readonly RouteInfo[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, url, schema } of routes) {
    const path = url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const verb = method.toLowerCase();
    const operation: Record<string, unknown> = { ...described[path]?.[verb] };
    const names = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
    if (names.length && !operation["parameters"])
      operation["parameters"] = names.map((name) => ({
        name,
        in: "path",
        required: true,
        schema: { type: "string" },
      }));
    if (schema?.body && !operation["requestBody"])
      operation["requestBody"] = {
        required: true,
        content: { "application/json": { schema: schema.body } },
      };
    operation["responses"] ??= { default: { description: "See the summary" } };
    (paths[path] ??= {})[verb] = operation;
  }
  return {
    openapi: "3.1.0",
    info: { title: `${title} (spell serve)`, version: "1" },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}

export const INTENT_BODY = intentBody;
export const CAST_BODY = castBody;
