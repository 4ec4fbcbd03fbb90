/**
 * `spell view`: a page that shows looms and eval runs (fastify). Who may speak is `spell
 * serve`'s rule (../http/guard.ts): loopback by default, Host and Origin checked; with a token,
 * every request carries it — a browser gets it once as `/?token=…`, which sets a same-site
 * cookie and drops it from the address. Every answer is redacted (PROD-8) by one JSON encoder;
 * the page's script is served from memory (bundled at build time), and nothing else is a file.
 */
import type { FastifyInstance } from "fastify";
import { guard, refuse } from "../http/guard.js";
import type { ForkRunner } from "./fork-route.js";
import { apiRoutes, fail } from "./routes.js";
import type { LoomReadStore } from "../../loom/stores/index.js";
import { Sources, type ViewerSources } from "./sources.js";
import { pageHtml } from "./page-html.js";

export interface ViewerOptions {
  /** A loom file, or a folder of looms and eval runs. */
  target: string;
  /**
   * A loom that is not a file (a database), read through its store instead of `target` (then
   * the name the page shows it by); the server closes it.
   */
  store?: LoomReadStore | undefined;
  /** When set, every request needs it (a header, or the cookie the page's first visit set). */
  token?: string | undefined;
  /** Applied to every string of every answer. */
  redact: (text: string) => string;
  /** The page's script (dist/viewer.js). */
  appJs: string;
  /** `--allow-fork`: how a fork asked by the page runs; absent, the page cannot fork. */
  fork?: ForkRunner | undefined;
  /** Models the page offers for a fork (`--fork-llm`), before those the loom has seen. */
  forkModels?: readonly string[] | undefined;
}

const TOKEN_COOKIE = "spell_view_token";

/** Headers every answer carries: the page runs only its own script and reaches only this server. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export async function createViewerServer(options: ViewerOptions): Promise<FastifyInstance> {
  const { default: Fastify } = await import("fastify");
  // No route declares a schema: fastify's validator and serializer compilers (ajv, ~100 files
  // to load) are never needed, so none is loaded (issue 40: start-up of spell view).
  const noSchemas = () => () => {
    throw new Error("spell view's routes declare no schema");
  };
  const app = Fastify({
    logger: false,
    schemaController: {
      compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas },
    },
  });
  // A store's loom is read once now (its first page): one that cannot be read fails the start.
  const sources: ViewerSources = options.store
    ? await (await import("./store-sources.js")).storeSources(options.store, options.target)
    : new Sources(options.target);
  app.addHook("onClose", async () => {
    await sources.close();
  });
  // The looms are read once the server listens, in the background (a big one a slice of the
  // event loop at a time): the page opens at once and fills in as the rest is read. (A request
  // before then, or without listening, starts the reading of the loom it names.)
  app.addHook("onListen", (done) => {
    for (const s of sources.list())
      if (s.kind === "loom")
        try {
          // An unreadable loom answers 404 when asked for, like a file removed since.
          void Promise.resolve(s.index.look()).catch(() => undefined);
        } catch {
          // (a file's look throws at once)
        }
    done();
  });
  if (options.token) tokenFromBrowser(app, options.token);
  guard(app, { token: options.token });
  app.addHook("onSend", async (_req, reply, payload) => {
    void reply.headers(SECURITY_HEADERS);
    return payload;
  });
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) =>
    fail(reply, err.statusCode ?? 500, "view_failed", options.redact(err.message)),
  );
  app.setNotFoundHandler((_req, reply) => fail(reply, 404, "not_found", "no such page"));
  app.get("/", (_req, reply) => reply.type("text/html; charset=utf-8").send(pageHtml()));
  app.get("/app.js", (_req, reply) =>
    reply.type("text/javascript; charset=utf-8").send(options.appJs),
  );
  apiRoutes(app, sources, options.redact, options.fork, options.forkModels);
  return app;
}

/**
 * A browser cannot add a header to the page's address: `/?token=T` is checked, kept in an
 * HttpOnly same-site cookie and the browser sent back to `/`; the cookie is then read as the
 * bearer token before the guard compares it (in constant time).
 */
function tokenFromBrowser(app: FastifyInstance, token: string): void {
  app.addHook("onRequest", async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    if (req.url.split("?")[0] === "/" && typeof query["token"] === "string") {
      const { timingSafeEqual } = await import("node:crypto");
      const given = Buffer.from(query["token"]);
      const want = Buffer.from(token);
      if (given.length !== want.length || !timingSafeEqual(given, want))
        return refuse(reply, 401, "unauthorized", "wrong token");
      return reply
        .header(
          "set-cookie",
          `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
        )
        .redirect("/", 303);
    }
    if (req.headers.authorization) return undefined;
    const cookie = (req.headers.cookie ?? "")
      .split(";")
      .map((c) => c.trim())
      .find((c) => c.startsWith(`${TOKEN_COOKIE}=`));
    if (cookie)
      try {
        req.headers.authorization = `Bearer ${decodeURIComponent(cookie.slice(TOKEN_COOKIE.length + 1))}`;
      } catch {
        // a cookie that is not ours: the guard refuses the request without a header
      }
    return undefined;
  });
}
