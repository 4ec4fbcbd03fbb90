// `spell view --allow-fork`: the page's fork endpoint spends the user's tokens, so it exists only
// with the flag, and even then answers only the page itself: the `x-spell-view: fork` header and
// a JSON body (a form or another site cannot send either without a CORS preflight, which is
// refused), no foreign Origin even with the token (a page on another port of the same host
// carries the same-site cookie), the guard's loopback or token. Refused requests never reach
// the fork; what comes back is redacted; one fork at a time.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { viewCommand } from "../../src/cli/view.js";
import type { ForkRequest, ForkRunner } from "../../src/protocols/viewer/fork-route.js";
import {
  KNOWN_SECRET,
  SHAPED_SECRET,
  startViewer,
  viewFolder,
  type Viewer,
} from "../support/view.js";
import { io } from "../support/io.js";

interface Answer {
  status: number;
  body: string;
}

/** A request with exactly these headers (fetch would not let a test set Host or Origin). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const PAGE = { "content-type": "application/json", "x-spell-view": "fork" };
const ASK = JSON.stringify({ turn: "r2", intent: "count again" });
const code = (a: Answer) => (JSON.parse(a.body) as { error?: { code: string } }).error?.code;

/** A fork that records what reached it; `hold` keeps it running until released. */
function recordingFork() {
  const calls: { path: string; request: ForkRequest }[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const runner: ForkRunner = async (path, request) => {
    calls.push({ path, request });
    if (hold) await new Promise<void>((r) => (release = r));
    if (request.intent === "fail")
      throw new Error(`no spell; key ${SHAPED_SECRET} ${KNOWN_SECRET}`);
    return {
      entity: "ent_new",
      status: "terminated",
      reason: `done ${KNOWN_SECRET}`,
      last_turn_id: "t9",
    };
  };
  return {
    runner,
    calls,
    hold: () => (hold = true),
    release: () => {
      hold = false;
      release?.();
    },
  };
}

describe("spell view: the fork endpoint", () => {
  let plain: Viewer;
  let forking: Viewer;
  let tokened: Viewer;
  const fork = recordingFork();
  const TOKEN = "fork-token-0123456789";
  beforeAll(async () => {
    const root = viewFolder().root;
    plain = await startViewer(root);
    forking = await startViewer(root, undefined, {
      fork: fork.runner,
      forkModels: ["anthropic/claude-owl", "openai/gpt-owl"],
    });
    tokened = await startViewer(root, TOKEN, { fork: fork.runner });
  });
  afterAll(async () => {
    await Promise.all([plain, forking, tokened].map((v) => v?.app.close()));
  });

  it("without --allow-fork there is no fork: 404, and the page is told it cannot", async () => {
    expect((await send(plain.port, "POST", "/api/l/0/fork", PAGE, ASK)).status).toBe(404);
    const features = await send(plain.port, "GET", "/api/l/0/features");
    expect(JSON.parse(features.body)).toEqual({ fork: false, models: [] });
    // The models given (--fork-llm) first, then those the loom has seen, each once.
    expect(JSON.parse((await send(forking.port, "GET", "/api/l/0/features")).body)).toEqual({
      fork: true,
      models: ["anthropic/claude-owl", "openai/gpt-owl"],
    });
    expect(
      JSON.parse(
        (
          await send(tokened.port, "GET", "/api/l/0/features", {
            authorization: `Bearer ${TOKEN}`,
          })
        ).body,
      ),
    ).toEqual({ fork: true, models: ["openai/gpt-owl"] });
  });

  it("the page's request forks, from the loom on disk; the answer is redacted", async () => {
    const before = fork.calls.length;
    const a = await send(forking.port, "POST", "/api/l/0/fork", PAGE, ASK);
    expect(a.status, a.body).toBe(200);
    expect(JSON.parse(a.body)).toMatchObject({ entity: "ent_new", last_turn_id: "t9" });
    expect(a.body).not.toContain(KNOWN_SECRET);
    expect(a.body).toContain("[REDACTED]");
    const calls = fork.calls.slice(before);
    expect(calls.map((c) => c.request)).toEqual([{ turn: "r2", intent: "count again" }]);
    expect(calls[0]!.path).toMatch(/\/loom\.jsonl$/);
  });

  it("refused without reaching the fork: no page header, a form's body, another origin, a preflight", async () => {
    const before = fork.calls.length;
    const refused = [
      // a plain JSON post (a script elsewhere cannot add the header without a preflight)
      [{ "content-type": "application/json" }, ASK, 403, "fork_refused"],
      // what a form can send: no custom header, a simple content type
      [
        { "content-type": "application/x-www-form-urlencoded" },
        "turn=r2&intent=x",
        403,
        "fork_refused",
      ],
      [{ "content-type": "text/plain", "x-spell-view": "fork" }, ASK, 403, "fork_refused"],
      // another site's page (loopback without a token: the guard refuses its Origin)
      [{ ...PAGE, origin: "http://evil.example" }, ASK, 403, "forbidden_origin"],
      // a page on another port of this host
      [{ ...PAGE, origin: "http://127.0.0.1:1" }, ASK, 403, "forbidden_origin"],
    ] as const;
    for (const [headers, body, status, why] of refused) {
      const a = await send(forking.port, "POST", "/api/l/0/fork", { ...headers }, body);
      expect(a.status, `${JSON.stringify(headers)}: ${a.body}`).toBe(status);
      expect(code(a)).toBe(why);
    }
    const preflight = await send(forking.port, "OPTIONS", "/api/l/0/fork", {
      origin: "http://evil.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-spell-view, content-type",
    });
    expect(preflight.status).toBe(403);
    expect(fork.calls.length).toBe(before);
  });

  it("with a token: none or a wrong one is refused; the right one from another origin too", async () => {
    const before = fork.calls.length;
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await send(tokened.port, "POST", "/api/l/0/fork", PAGE, ASK)).status).toBe(401);
    const wrong = { authorization: `Bearer ${"x".repeat(TOKEN.length)}` };
    expect(
      (await send(tokened.port, "POST", "/api/l/0/fork", { ...PAGE, ...wrong }, ASK)).status,
    ).toBe(401);
    // The cookie a page on another port of the same host would carry (same site): its Origin says.
    const cookie = { cookie: `spell_view_token=${TOKEN}`, origin: "http://127.0.0.1:9" };
    const other = await send(tokened.port, "POST", "/api/l/0/fork", { ...PAGE, ...cookie }, ASK);
    expect(other.status).toBe(403);
    expect(code(other)).toBe("fork_refused");
    expect(fork.calls.length).toBe(before);
    const ok = await send(tokened.port, "POST", "/api/l/0/fork", { ...PAGE, ...bearer }, ASK);
    expect(ok.status, ok.body).toBe(200);
  });

  it("a bad request says what is wrong; a failed fork's message is redacted", async () => {
    const bad = [
      JSON.stringify({ turn: "r2" }),
      JSON.stringify({ turn: "r2", intent: "  " }),
      JSON.stringify({ turn: "nope", intent: "x" }),
      JSON.stringify({ turn: "r2", intent: "x", llm: "not a model; rm -rf" }),
      JSON.stringify(["r2"]),
    ];
    for (const body of bad) {
      const a = await send(forking.port, "POST", "/api/l/0/fork", PAGE, body);
      expect(a.status, body).toBe(400);
      expect(code(a)).toBe("fork_invalid");
    }
    const failed = await send(
      forking.port,
      "POST",
      "/api/l/0/fork",
      PAGE,
      JSON.stringify({ turn: "r2", intent: "fail" }),
    );
    expect(failed.status).toBe(422);
    expect(code(failed)).toBe("fork_failed");
    expect(failed.body).not.toContain(KNOWN_SECRET);
    expect(failed.body).not.toContain(SHAPED_SECRET);
  });

  it("one fork at a time: a second while one runs is told to wait", async () => {
    fork.hold();
    const first = send(forking.port, "POST", "/api/l/0/fork", PAGE, ASK);
    await expect
      .poll(() => fork.calls.at(-1)?.request.intent === "count again" && fork.calls.length)
      .toBeTruthy();
    const second = await send(forking.port, "POST", "/api/l/0/fork", PAGE, ASK);
    expect(second.status).toBe(409);
    expect(code(second)).toBe("fork_busy");
    fork.release();
    expect((await first).status).toBe(200);
  });
});

describe("spell view --allow-fork: where it may listen", () => {
  it("not on another address without a token, not on a postgres:// snapshot", async () => {
    const never = new Promise(() => undefined);
    const wide = io();
    expect(
      await viewCommand(viewFolder().root, { host: "0.0.0.0", allowFork: true }, wide, never),
    ).toBe(3);
    expect(wide.err).toContain("without a token");
    const pg = io();
    expect(await viewCommand("postgres://u@127.0.0.1:1/loom", { allowFork: true }, pg, never)).toBe(
      3,
    );
    expect(pg.err).toContain("--allow-fork");
  });

  it("--fork-llm needs --allow-fork, and each is a provider/model", async () => {
    const never = new Promise(() => undefined);
    const alone = io();
    expect(
      await viewCommand(viewFolder().root, { forkLlm: ["openai/gpt-4.1"] }, alone, never),
    ).toBe(3);
    expect(alone.err).toContain("give --allow-fork too");
    for (const model of ["bad model", "openai", "openai/gpt\u0000x"]) {
      const bad = io();
      expect(
        await viewCommand(viewFolder().root, { allowFork: true, forkLlm: [model] }, bad, never),
      ).toBe(3);
      expect(bad.err).toContain("--fork-llm");
    }
  });
});
