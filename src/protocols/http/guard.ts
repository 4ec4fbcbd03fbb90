/**
 * Who may speak to `spell serve`. With a token, whoever carries it (compared in constant
 * time). Without one (loopback only), a DNS-rebinding page is refused: its request carries its
 * own name in `Host` and its own origin in `Origin`, so the server answers only a `Host` that is
 * a loopback name or the address the connection came in on, and a browser `Origin` that is
 * allowed (`--allow-origin`). Allowed origins get CORS answers (a preflight, then
 * `Access-Control-Allow-Origin`). Every refusal closes the connection: a refused client keeps
 * no socket (and sends no body that is read).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorCode } from "../../core/error-codes.js";
import { fail } from "./cast-route.js";

export interface GuardOptions {
  token?: string | undefined;
  /** Origins (scheme://host[:port]) whose browser pages may call the server. */
  allowOrigins?: readonly string[] | undefined;
}

/** A refusal that ends the connection after it is sent. */
export const refuse = (reply: FastifyReply, status: number, code: ErrorCode, message: string) =>
  fail(reply.header("connection", "close"), status, code, message);

/** `http://localhost:3000/` → `http://localhost:3000`; throws on what is not an origin. */
export function normalizeOrigin(origin: string): string {
  const url = new URL(origin);
  if (url.origin === "null") throw new TypeError(`${origin} is not an origin (scheme://host:port)`);
  return url.origin;
}

const LOOPBACK_NAME = /^(localhost|127(\.\d{1,3}){3}|::1)$/;

/** The name in a Host header, without its port and brackets, lower case. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  const colon = h.indexOf(":");
  return colon >= 0 && colon === h.lastIndexOf(":") ? h.slice(0, colon) : h;
}

export function guard(app: FastifyInstance, options: GuardOptions): void {
  const allowed = new Set((options.allowOrigins ?? []).map(normalizeOrigin));
  const cors = (req: FastifyRequest) => {
    const origin = req.headers.origin;
    return origin !== undefined && allowed.has(origin) ? origin : undefined;
  };
  // A hook that answers does not call `done` (fastify's callback hooks); one that lets the
  // request through does. Callback style: no promise per request (issue 40).
  app.addHook("onRequest", (req, reply, done) => {
    const origin = cors(req);
    if (origin) void reply.header("access-control-allow-origin", origin).header("vary", "Origin");
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      if (!origin) return void refuse(reply, 403, "forbidden_origin", "origin not allowed");
      return void reply
        .code(204)
        .header("access-control-allow-methods", "GET, POST")
        .header("access-control-allow-headers", "authorization, content-type, accept")
        .header("access-control-max-age", "600")
        .send();
    }
    if (options.token)
      return void checkToken(req, reply, options.token).then((refused) => {
        if (!refused) done();
      }, done);
    if (!checkSource(req, reply, origin !== undefined)) done();
  });
}

async function checkToken(req: FastifyRequest, reply: FastifyReply, token: string) {
  const { timingSafeEqual } = await import("node:crypto");
  const given = Buffer.from(req.headers.authorization ?? "");
  const want = Buffer.from(`Bearer ${token}`);
  if (given.length !== want.length || !timingSafeEqual(given, want))
    return refuse(
      reply,
      401,
      "unauthorized",
      "a bearer token is required (Authorization: Bearer …)",
    );
  return undefined;
}

const localAddress = (req: FastifyRequest): string =>
  (req.socket.localAddress ?? "").replace(/^::ffff:/, "");

function checkSource(req: FastifyRequest, reply: FastifyReply, originAllowed: boolean) {
  const host = req.headers.host ?? "";
  const name = hostName(host);
  // The address the connection came in on is asked of the socket (a system call) only for a
  // name that is not a loopback one.
  if (!LOOPBACK_NAME.test(name) && name !== localAddress(req))
    return refuse(
      reply,
      403,
      "forbidden_host",
      `Host ${JSON.stringify(host.slice(0, 100))} is not this server's address or a loopback name ` +
        "(a page whose name points at 127.0.0.1, DNS rebinding, is refused); give --token to serve other names",
    );
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed && origin !== `http://${host}`)
    return refuse(
      reply,
      403,
      "forbidden_origin",
      `Origin ${JSON.stringify(origin.slice(0, 100))} is not allowed: a web page may call spell serve only from an origin given with --allow-origin`,
    );
  return undefined;
}
