// `spell view --allow-fork` and the entity query, attacked: each wall a request that must be
// refused before it reaches the fork (or answer nothing it should hide). DNS rebinding (a foreign
// Host on a loopback server), a body that is not JSON even with the token, a model the server
// does not offer (the page's list is not trusted), control characters, a turn id that is a path
// or another loom's, a flood (one fork at a time, a body limit), and the served folder swapped
// for a link to outside after start (the fork goes through the held handle). The query: a
// pattern is plain text, a prototype name is no column, a secret is not searchable.
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ForkRequest, ForkRunner } from "../../src/protocols/viewer/fork-route.js";
import {
  jsonl,
  KNOWN_SECRET,
  loomRecords,
  SHAPED_SECRET,
  startViewer,
  viewFolder,
  type Viewer,
} from "../support/view.js";

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
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        headers: { host: `127.0.0.1:${port}`, ...headers },
        agent: false, // a connection the server closed (a refusal) is not used again
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    // A refused request may be cut before its body is sent: that is a refusal too.
    req.on("error", (err: NodeJS.ErrnoException) =>
      err.code === "ECONNRESET" || err.code === "EPIPE"
        ? resolve({ status: 0, body: "{}" })
        : reject(err),
    );
    req.end(body);
  });
}

const PAGE = { "content-type": "application/json", "x-spell-view": "fork" };
const code = (a: Answer) => (JSON.parse(a.body) as { error?: { code: string } }).error?.code;
const ask = (fields: Record<string, unknown>) =>
  JSON.stringify({ turn: "r2", intent: "count again", ...fields });

function recordingFork() {
  const calls: { path: string; request: ForkRequest }[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const runner: ForkRunner = async (path, request) => {
    calls.push({ path, request });
    if (hold) await new Promise<void>((r) => (release = r));
    if (request.intent.startsWith("append "))
      appendFileSync(path, `${JSON.stringify({ type: "note", text: request.intent })}\n`);
    return { entity: "ent_new", status: "terminated", reason: "done", last_turn_id: "t9" };
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

describe("spell view --allow-fork: the walls", () => {
  let viewer: Viewer;
  let tokened: Viewer;
  let root: string;
  const fork = recordingFork();
  const TOKEN = "walls-token-0123456789";
  beforeAll(async () => {
    root = viewFolder().root;
    // A second loom whose turns are its own (z1, z2): its ids are not the first loom's.
    const other = JSON.stringify(loomRecords()).replace(/"r([123])"/g, '"z$1"');
    mkdirSync(join(root, "other"));
    writeFileSync(join(root, "other", "loom.jsonl"), jsonl(JSON.parse(other) as unknown[]));
    viewer = await startViewer(root, undefined, {
      fork: fork.runner,
      forkModels: ["anthropic/claude-owl"],
    });
    tokened = await startViewer(root, TOKEN, { fork: fork.runner });
  });
  afterAll(async () => {
    await Promise.all([viewer, tokened].map((v) => v?.app.close()));
  });

  const post = (body: string, headers: Record<string, string> = PAGE, at = viewer) =>
    send(at.port, "POST", "/api/l/0/fork", headers, body);

  it("DNS rebinding: a foreign Host on the loopback server is refused, page header or not", async () => {
    const before = fork.calls.length;
    for (const host of ["owls.example", `owls.example:${viewer.port}`, "127.0.0.1.nip.io"]) {
      const a = await post(ask({}), { ...PAGE, host, origin: `http://${host}` });
      expect(a.status, host).toBe(403);
      expect(code(a)).toBe("forbidden_host");
    }
    expect(fork.calls.length).toBe(before);
  });

  it("the token does not make a simple request a fork: text/plain and a form are refused", async () => {
    const before = fork.calls.length;
    const bearer = { authorization: `Bearer ${TOKEN}`, "x-spell-view": "fork" };
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      const a = await post(ask({}), { ...bearer, "content-type": type }, tokened);
      // Refused: by the fork route (403), or by fastify, which parses no form (415).
      expect([403, 415], type).toContain(a.status);
    }
    // The cookie a form post from anywhere would carry, without the page's header.
    const form = { cookie: `spell_view_token=${TOKEN}`, "content-type": "text/plain" };
    expect((await post(ask({}), form, tokened)).status).toBe(403);
    expect(fork.calls.length).toBe(before);
  });

  it("a model the server does not offer is refused, whatever the page sends; offered ones fork", async () => {
    const before = fork.calls.length;
    for (const llm of [
      "openai/gpt-evil",
      "anthropic/claude-owl2",
      "scripted/x",
      "OPENAI/GPT-OWL",
    ]) {
      const a = await post(ask({ llm }));
      expect(a.status, llm).toBe(400);
      expect(code(a)).toBe("fork_invalid");
      expect(a.body).toContain("not offered");
    }
    expect(fork.calls.length).toBe(before);
    // Given with --fork-llm, and seen in the loom.
    for (const llm of ["anthropic/claude-owl", "openai/gpt-owl"]) {
      const a = await post(ask({ llm }));
      expect(a.status, a.body).toBe(200);
      expect(fork.calls.at(-1)!.request.llm).toBe(llm);
    }
  });

  it("control characters in the intent or the model are refused; a secret in either never comes back", async () => {
    const before = fork.calls.length;
    const bad = [
      ask({ intent: "count\u0000again" }),
      ask({ intent: "count \u001b[2Jagain" }),
      ask({ intent: "count\u0085again" }),
      ask({ llm: "openai/gpt-owl\n" }),
      ask({ llm: `openai/${SHAPED_SECRET}\u0007` }),
    ];
    for (const body of bad) {
      const a = await post(body);
      expect(a.status, body).toBe(400);
      expect(code(a)).toBe("fork_invalid");
      expect(a.body).not.toContain(SHAPED_SECRET);
    }
    const turn = await post(ask({ turn: `r2 ${KNOWN_SECRET}` }));
    expect(turn.status).toBe(400);
    expect(turn.body).not.toContain(KNOWN_SECRET);
    const secret = await post(ask({ llm: `openai/${SHAPED_SECRET}` }));
    expect(secret.status).toBe(400);
    expect(secret.body).not.toContain(SHAPED_SECRET);
    expect(secret.body).not.toContain("PLANTED");
    expect(fork.calls.length).toBe(before);
    // Tab and newline are text.
    expect((await post(ask({ intent: "count\tagain\nplease" }))).status).toBe(200);
  });

  it("a turn id is looked up in this loom only: a path or another loom's turn forks nothing", async () => {
    const before = fork.calls.length;
    for (const turn of ["../loom.jsonl", "r2/../r1", "/etc/passwd", "z2", "r2\u0000", "%2e%2e"]) {
      const a = await post(ask({ turn }));
      expect(a.status, turn).toBe(400);
      expect(code(a)).toBe("fork_invalid");
    }
    // z2 is a turn of the other loom: there it forks.
    const sources = JSON.parse((await send(viewer.port, "GET", "/api/sources")).body) as {
      id: string;
      name: string;
    }[];
    const other = sources.find((s) => s.name === "other/loom.jsonl")!;
    const a = await send(viewer.port, "POST", `/api/l/${other.id}/fork`, PAGE, ask({ turn: "z2" }));
    expect(a.status, a.body).toBe(200);
    expect(fork.calls.length).toBe(before + 1);
    expect(fork.calls.at(-1)!.path).toMatch(/\/loom\.jsonl$/);
  });

  it("a flood: one fork at a time (the rest told to wait), a huge body refused unread", async () => {
    const huge = ask({ intent: "x".repeat(200_000) });
    const big = await post(huge);
    expect([0, 413]).toContain(big.status);
    const over = await post(ask({ intent: "y".repeat(20_001) }));
    expect(over.status).toBe(400);
    fork.hold();
    const before = fork.calls.length;
    const first = post(ask({ intent: "first" }));
    await expect.poll(() => fork.calls.length).toBe(before + 1);
    const rest = await Promise.all(Array.from({ length: 20 }, () => post(ask({}))));
    expect(rest.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 409));
    expect(fork.calls.length).toBe(before + 1);
    fork.release();
    expect((await first).status).toBe(200);
    expect((await post(ask({}))).status).toBe(200);
  });
});

describe("spell view --allow-fork: the served folder swapped for a link after start", () => {
  it("the fork writes to the folder served, through its held handle, not where the name leads now", async () => {
    const { root } = viewFolder();
    const base = dirname(root);
    const fork = recordingFork();
    const viewer = await startViewer(root, undefined, { fork: fork.runner });
    try {
      // The folder moved away, its name now a link to another folder with a loom of the same name.
      const moved = join(base, "moved");
      const decoy = join(base, "decoy");
      mkdirSync(decoy);
      writeFileSync(join(decoy, "loom.jsonl"), jsonl(loomRecords()));
      renameSync(root, moved);
      symlinkSync(decoy, root);
      const a = await send(
        viewer.port,
        "POST",
        "/api/l/0/fork",
        PAGE,
        ask({ intent: "append marker-7c1" }),
      );
      expect(a.status, a.body).toBe(200);
      expect(readFileSync(join(decoy, "loom.jsonl"), "utf8")).not.toContain("marker-7c1");
      expect(readFileSync(join(moved, "loom.jsonl"), "utf8")).toContain("marker-7c1");
    } finally {
      await viewer.app.close();
    }
  });
});

describe("spell view: the entity query, attacked", () => {
  let viewer: Viewer;
  beforeAll(async () => {
    viewer = await startViewer(viewFolder().root);
  });
  afterAll(async () => {
    await viewer?.app.close();
  });
  const entities = async (query: string) => {
    const a = await send(viewer.port, "GET", `/api/l/0/entities?${query}`);
    return {
      status: a.status,
      body: a.body,
      ids:
        a.status === 200
          ? (JSON.parse(a.body) as { rows: { id: string }[] }).rows.map((r) => r.id)
          : [],
    };
  };

  it("a pattern is plain text: no regex runs, a catastrophic one included", async () => {
    expect((await entities("q=.*")).ids).toEqual([]);
    expect((await entities(`q=${encodeURIComponent("(a+)+$")}`)).ids).toEqual([]);
    expect((await entities(`q=${encodeURIComponent("(a|a)*b " + "a".repeat(5000))}`)).ids).toEqual(
      [],
    );
    expect((await entities("q=owls")).ids.length).toBeGreaterThan(0);
  });

  it("a huge query is answered or refused, never a crash; a repeated parameter is ignored", async () => {
    const huge = await entities(`q=${"owl%20".repeat(3000)}`);
    expect([200, 414, 431]).toContain(huge.status);
    const list = await entities("status=open&status=ended&sort=turns&sort=cost");
    expect(list.status).toBe(200);
  });

  it("a prototype name is no column to sort by", async () => {
    for (const sort of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const a = await entities(`sort=${sort}&dir=desc`);
      expect(a.status, `${sort}: ${a.body}`).toBe(200);
      expect(a.ids.length).toBeGreaterThan(1);
    }
  });

  it("a secret cannot be found by searching for it, nor told by the order of a sort", async () => {
    // ent_root's intent holds SHAPED_SECRET: the page shows it redacted, and so is it searched.
    for (const q of [SHAPED_SECRET, "sk-planted", "PLANTEDshaped"])
      expect((await entities(`q=${encodeURIComponent(q)}`)).ids, q).toEqual([]);
    expect((await entities("q=count%20owls%20redacted")).ids).toContain("ent_root");
    const sorted = await entities("sort=intent");
    expect(sorted.body).not.toContain(SHAPED_SECRET);
    expect(sorted.body).not.toContain(KNOWN_SECRET);
  });
});
