// `spell view`'s server on 127.0.0.1: the tree it gives (every turn reachable, the fork a branch,
// the child under its caller, the fold marked), redaction of every answer, who may speak
// (spell serve's rules), and that nothing outside the named loom or folder is read.
import { execFile } from "node:child_process";
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALL_TURNS,
  jsonl,
  KNOWN_SECRET,
  OUTSIDE_MARKER,
  SHAPED_SECRET,
  startViewer,
  viewFolder,
  type Viewer,
  type ViewFolder,
} from "../support/view.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with exactly these headers (fetch would not let a test set Host). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const json = async (port: number, path: string) => {
  const a = await get(port, path);
  expect(a.status, `${path}: ${a.body}`).toBe(200);
  return JSON.parse(a.body) as Record<string, unknown> & { rows: Record<string, unknown>[] };
};

let folder: ViewFolder;
let viewer: Viewer;
/** The eval run's number in the sources. */
let run: string;
beforeAll(async () => {
  folder = viewFolder();
  viewer = await startViewer(folder.root);
  const sources = (await json(viewer.port, "/api/sources")) as unknown as {
    id: string;
    kind: string;
  }[];
  run = sources.find((s) => s.kind === "eval")!.id;
});
afterAll(() => viewer?.app.close());

describe("spell view: the API", () => {
  it("lists the looms and the eval run of the folder, not what links lead outside", async () => {
    const sources = (await json(viewer.port, "/api/sources")) as unknown as {
      kind: string;
      name: string;
    }[];
    expect(sources.map((s) => `${s.kind} ${s.name}`).sort()).toEqual([
      "eval runs/eval-1",
      "loom loom.jsonl",
      "loom runs/eval-1/loom.jsonl",
    ]);
  });

  it("every turn is reachable from the root entities' trees; the fork is a branch, the child under its caller, the fold marked", async () => {
    const entities = await json(viewer.port, "/api/l/0/entities");
    expect(entities.rows.map((e) => `${String(e["id"])}:${String(e["kind"])}`)).toEqual([
      "ent_root:root",
      "ent_child:child",
      "ent_fork:fork",
    ]);
    const rows = (await json(viewer.port, "/api/l/0/e/ent_root/rows")).rows;
    const seen = rows.filter((r) => r["kind"] === "turn").map((r) => r["id"]);
    expect([...seen].sort()).toEqual([...ALL_TURNS].sort());
    const at = (id: string) => rows.find((r) => r["id"] === id)!;
    expect(rows[0]).toMatchObject({ kind: "fold", from: 1, to: 1 });
    expect(at("r1")).toMatchObject({ depth: 0, folded: true, branch: null });
    expect(at("f1")).toMatchObject({ depth: 1, branch: "fork" });
    expect(at("f2")).toMatchObject({ depth: 1, end: "truncated: max_turns" });
    expect(at("k1")).toMatchObject({ depth: 1, branch: "child" });
    expect(at("r2")).toMatchObject({ depth: 0, err: true, llm: "openai/gpt-owl", cost: 0.0123 });
    expect(at("r3")).toMatchObject({ depth: 0, reward: 1, end: "done" });
    // The fork's thread shares its original's head.
    const thread = (await json(viewer.port, "/api/l/0/e/ent_fork/thread")).rows;
    expect(thread.map((r) => r["id"])).toEqual(["r1", "f1", "f2"]);
  });

  it("a turn whole: gate calls with arguments, results, errors, start and duration", async () => {
    const d = await json(viewer.port, "/api/l/0/t/r2");
    const turn = d["turn"] as { gate_calls: Record<string, unknown>[] };
    expect(turn.gate_calls.map((c) => [c["gate_name"], c["is_error"]])).toEqual([
      ["call_entity", false],
      ["read", true],
    ]);
    expect(turn.gate_calls[0]).toMatchObject({
      duration_ms: 840,
      started_at: "2026-11-26T10:00:02.100Z",
    });
    expect(d["hanging"]).toEqual([{ entity: "ent_child", kind: "child" }]);
  });

  it("the eval run's table, read loosely", async () => {
    const t = await json(viewer.port, `/api/evals/${run}`);
    expect(t.rows.map((r) => [r["case"], r["repeat"], r["pass"], r["entity"]])).toEqual([
      ["owls", 1, true, "ent_root"],
      ["owls", 2, false, "ent_fork"],
    ]);
  });

  it("no answer holds a secret: every page, entity, thread, turn and the eval run", async () => {
    const paths = ["/", "/api/sources", "/api/l/0/stat", "/api/l/0/entities", `/api/evals/${run}`];
    for (const e of ["ent_root", "ent_child", "ent_fork"])
      paths.push(`/api/l/0/e/${e}/rows`, `/api/l/0/e/${e}/thread`);
    for (const t of ALL_TURNS) paths.push(`/api/l/0/t/${t}`);
    let redacted = 0;
    for (const path of paths) {
      const a = await get(viewer.port, path);
      expect(a.status, path).toBe(200);
      expect(a.body, path).not.toContain(SHAPED_SECRET);
      expect(a.body, path).not.toContain(KNOWN_SECRET);
      expect(a.body, path).not.toContain("PLANTED");
      redacted += a.body.split("[REDACTED]").length - 1;
    }
    expect(redacted).toBeGreaterThan(5);
  });

  it("grows as turns land: a turn appended to the file is in the next answer", async () => {
    const before = await json(viewer.port, "/api/l/0/stat");
    const extra = {
      type: "turn",
      id: "r4",
      parent_id: "r3",
      cantrip_id: "c_main",
      entity_id: "ent_late",
      role: "turn",
      sequence: 1,
      utterance: "",
      observation: "",
      gate_calls: [],
      metadata: {
        tokens_prompt: 1,
        tokens_completion: 1,
        tokens_cached: 0,
        duration_ms: 1,
        timestamp: "",
        intent: "late",
      },
      reward: null,
      terminated: false,
      truncated: false,
      reason: null,
    };
    appendFileSync(folder.loom, jsonl([extra]));
    const after = await json(viewer.port, "/api/l/0/stat");
    expect(after["version"]).not.toBe(before["version"]);
    expect(after["turns"]).toBe(7);
    const rows = (await json(viewer.port, "/api/l/0/e/ent_root/rows")).rows;
    expect(rows.find((r) => r["id"] === "r4")).toMatchObject({ branch: "child", depth: 1 });
  });
});

describe("spell view: nothing outside the folder", () => {
  it("refuses paths that climb out, and never serves a file by its name", async () => {
    for (const path of [
      "/api/l/..%2F..%2F..%2Fetc%2Fpasswd/stat",
      "/api/l/../../etc/passwd",
      "/../../../../etc/passwd",
      "/app.js/../../package.json",
      "/api/l/%2Fetc%2Fpasswd/entities",
      "/api/evals/..%2Foutside",
      "/loom.jsonl",
      "/escape.jsonl",
    ]) {
      const a = await get(viewer.port, path);
      expect([400, 404], `${path}: ${a.status}`).toContain(a.status);
      expect(a.body).not.toContain("root:");
      expect(a.body).not.toContain(OUTSIDE_MARKER);
    }
  });

  it("no source, entity or answer comes from a file or folder reached by a link", async () => {
    const a = await get(viewer.port, "/api/sources");
    expect(a.body).not.toContain("escape");
    expect(a.body).not.toContain("linked-dir");
    for (let id = 0; id < 10; id++) {
      for (const p of [`/api/l/${id}/entities`, `/api/evals/${id}`]) {
        expect((await get(viewer.port, p)).body).not.toContain(OUTSIDE_MARKER);
      }
    }
  });

  it("a loom swapped for a link after it was listed is refused", async () => {
    const mine = viewFolder();
    const own = await startViewer(mine.root);
    try {
      const sources = JSON.parse((await get(own.port, "/api/sources")).body) as {
        id: string;
        name: string;
      }[];
      const id = sources.find((s) => s.name === "loom.jsonl")!.id;
      expect((await get(own.port, `/api/l/${id}/entities`)).status).toBe(200);
      renameSync(mine.loom, `${mine.loom}.aside`);
      symlinkSync(mine.outsideFile, mine.loom);
      const a = await get(own.port, `/api/l/${id}/entities`);
      expect(a.status).toBe(404);
      expect(a.body).not.toContain(OUTSIDE_MARKER);
      expect((await get(own.port, "/api/sources")).body).not.toContain(OUTSIDE_MARKER);
    } finally {
      await own.app.close();
    }
  });
});

describe("spell view: who may speak (spell serve's rules)", () => {
  it("without a token: a Host that is not loopback, or a foreign Origin, is refused", async () => {
    expect((await get(viewer.port, "/api/sources", { host: "evil.example:80" })).status).toBe(403);
    expect((await get(viewer.port, "/api/sources", { origin: "http://evil.example" })).status).toBe(
      403,
    );
    expect((await get(viewer.port, "/api/sources")).status).toBe(200);
  });

  it("with a token: every request carries it (header, or the cookie of /?token=…)", async () => {
    const own = await startViewer(folder.root, "view-token-123456");
    try {
      expect((await get(own.port, "/api/sources")).status).toBe(401);
      expect((await get(own.port, "/")).status).toBe(401);
      expect((await get(own.port, "/?token=wrong")).status).toBe(401);
      const ok = { authorization: "Bearer view-token-123456" };
      expect((await get(own.port, "/api/sources", ok)).status).toBe(200);
      const first = await get(own.port, "/?token=view-token-123456");
      expect(first.status).toBe(303);
      const cookie = String(first.headers["set-cookie"]).split(";")[0]!;
      expect(String(first.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
      expect((await get(own.port, "/api/sources", { cookie })).status).toBe(200);
      expect(
        (await get(own.port, "/api/sources", { cookie: "spell_view_token=nope" })).status,
      ).toBe(401);
    } finally {
      await own.app.close();
    }
  });
});

// The shapes the real writers give: a `spell eval --out` run (results.jsonl, summary.json, its
// loom in format 3: `llm` and `cost_usd` at a turn's top level, gate calls' started_at and
// duration_ms), the example eval made priced and calling `done` (offline, scripted).
describe("spell view: a real spell eval run", { timeout: 120_000 }, () => {
  it("shows the run as its table, every cell linking to its cast; a turn's model, cost, gate call times", async () => {
    const root = mkdtempSync(join(tmpdir(), "view-real-eval-"));
    const spells = join(import.meta.dirname, "../../spells");
    writeFileSync(
      join(root, "arithmetic-eval.yaml"),
      readFileSync(join(spells, "arithmetic-eval.yaml")),
    );
    const spell = readFileSync(join(spells, "arithmetic.yaml"), "utf8")
      .replace("cycle: true", "cycle: true\n  price: { input: 2, output: 8 }")
      .replace(
        /\{ content: "(\d)" \}/g,
        '{ tool_calls: [{ gate: done, args: { answer: "$1" } }], usage: { prompt_tokens: 10, completion_tokens: 5 } }',
      );
    writeFileSync(join(root, "arithmetic.yaml"), spell);
    const bin = join(import.meta.dirname, "../../bin/run.js");
    await promisify(execFile)(
      process.execPath,
      [bin, "eval", "arithmetic-eval.yaml", "--out", "out"],
      {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "", HOME: root },
      },
    ).catch((err: { code?: number }) => expect(err.code).toBe(1)); // one wrong reply on purpose
    const own = await startViewer(join(root, "out"));
    try {
      const sources = (await json(own.port, "/api/sources")) as unknown as {
        id: string;
        kind: string;
        loom?: string;
      }[];
      const run = sources.find((s) => s.kind === "eval")!;
      const table = (await json(own.port, `/api/evals/${run.id}`)) as unknown as {
        loom: string;
        summary: [string, unknown][];
        rows: { case: string; pass: boolean; entity: string | null }[];
      };
      expect(table.rows).toHaveLength(6);
      expect(table.rows.filter((r) => r.pass)).toHaveLength(5);
      expect(new Map(table.summary).get("groups")).toBeDefined();
      for (const r of table.rows) {
        expect(r.entity, `case ${r.case} links to its cast`).toMatch(/\S/);
        const cast = await json(
          own.port,
          `/api/l/${table.loom}/e/${encodeURIComponent(r.entity!)}/rows`,
        );
        const turn = cast.rows.find((x) => x["kind"] === "turn")!;
        // $2/M in × 10 + $8/M out × 5: the turn's cost, and who answered.
        expect(String(turn["llm"])).toMatch(/^scripted/);
        expect(turn["cost"]).toBeCloseTo(10 * 2e-6 + 5 * 8e-6, 12);
        const detail = (await json(
          own.port,
          `/api/l/${table.loom}/t/${String(turn["id"])}`,
        )) as unknown as {
          turn: { gate_calls: { gate_name: string; started_at?: string; duration_ms?: number }[] };
        };
        const call = detail.turn.gate_calls[0]!;
        expect(call.gate_name).toBe("done");
        expect(call.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(typeof call.duration_ms).toBe("number");
      }
    } finally {
      await own.app.close();
    }
  });
});
