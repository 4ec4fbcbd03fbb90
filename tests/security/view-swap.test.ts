import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonl, loomRecords, startViewer, type Viewer } from "../support/view.js";

/**
 * `spell view` while another process swaps a folder for a symlink to a folder outside (one this
 * test made, of the same shape, whose loom, results.jsonl, summary.json and file names carry a
 * marker): a folder ABOVE a listed loom and eval run (`root/runs`), or the served folder
 * itself. Issue 38: O_NOFOLLOW guarded only the last name, so 155 of 1,044 answers held the
 * outside loom or summary.json. No answer (the listing, a loom's stat, entities, a turn, a
 * thread, the eval run's table) may hold anything from outside. Only paths below the test's own
 * temporary folder are touched.
 */
const MARK = "OUTSIDE-SWAP-MARKER-9c41";

const outsideTurn = {
  type: "turn",
  id: "r1",
  parent_id: null,
  cantrip_id: MARK,
  entity_id: "ent_root",
  role: "turn",
  sequence: 1,
  utterance: MARK,
  observation: MARK,
  gate_calls: [],
  metadata: { intent: MARK },
  reward: null,
  terminated: false,
  truncated: false,
  reason: null,
};

/** `runs/eval-1` as the viewer lists it inside `root`, and its marked twin in `outside`. */
function swapTree() {
  const top = mkdtempSync(join(tmpdir(), "view-swap-"));
  const root = join(top, "looms");
  const run = join(root, "runs", "eval-1");
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, "loom.jsonl"), jsonl(loomRecords()));
  writeFileSync(join(run, "results.jsonl"), jsonl([{ case: "owls", pass: true }]));
  writeFileSync(join(run, "summary.json"), JSON.stringify({ cases: 1, passed: 1 }));
  // The outside twin: the same names (so a swapped path resolves), and names only it has.
  const outside = join(top, "outside");
  const twin = join(outside, "runs", "eval-1");
  mkdirSync(twin, { recursive: true });
  writeFileSync(join(twin, "loom.jsonl"), jsonl([{ type: "loom", version: 2 }, outsideTurn]));
  writeFileSync(join(twin, "results.jsonl"), jsonl([{ case: MARK, pass: false, reason: MARK }]));
  writeFileSync(join(twin, "summary.json"), JSON.stringify({ [MARK]: MARK }));
  writeFileSync(join(twin, `${MARK}.jsonl`), jsonl([outsideTurn]));
  mkdirSync(join(outside, "runs", MARK));
  writeFileSync(join(outside, "runs", MARK, "results.jsonl"), jsonl([{ case: MARK }]));
  return { top, root, outside };
}

/**
 * Swaps the folder `path` for a symlink to `outside` and back, as fast as it can; says
 * "flipping" once it has swapped both ways.
 */
function folderFlipper(path: string, hold: string, outside: string) {
  const flipper = spawn(process.execPath, [
    "-e",
    `const fs = require("fs"); const [path, hold, outside] = process.argv.slice(1);
     for (let i = 0; ; i++) {
       if (i === 1) process.stdout.write("flipping\\n");
       try { fs.renameSync(path, hold) } catch {}
       try { fs.symlinkSync(outside, path) } catch {}
       try { fs.unlinkSync(path) } catch {}
       try { fs.renameSync(hold, path) } catch {}
     }`,
    path,
    hold,
    outside,
  ]);
  const started = new Promise((resolve, reject) => {
    flipper.stdout.once("data", resolve);
    flipper.once("exit", reject);
  });
  return { flipper, started };
}

/** Thousands of API requests while the swap runs: what held the marker, what was answered. */
async function probe(viewer: Viewer, untilRefused: boolean) {
  const ask = async (url: string) => {
    const a = await viewer.app.inject({ method: "GET", url });
    return { status: a.statusCode, body: a.body };
  };
  // The entries were listed as the server started, before the swap.
  const sources = JSON.parse((await ask("/api/sources")).body) as { id: string; kind: string }[];
  const loom = sources.find((s) => s.kind === "loom")?.id;
  const run = sources.find((s) => s.kind === "eval")?.id;
  expect(loom !== undefined && run !== undefined, JSON.stringify(sources)).toBe(true);
  const urls = [
    "/api/sources",
    `/api/l/${loom}/stat`,
    `/api/l/${loom}/entities`,
    `/api/l/${loom}/t/r1`,
    `/api/l/${loom}/e/ent_root/thread`,
    `/api/evals/${run}`,
  ];
  const held: string[] = [];
  let answered = 0;
  let refused = 0;
  // 12,000 requests; where asked, on until one met the swap (bounded for a starved flipper).
  for (let i = 0; i < 200_000 && (i < 12_000 || (untilRefused && refused === 0)); i++) {
    const url = urls[i % urls.length]!;
    const a = await ask(url);
    if (a.body.includes(MARK)) held.push(`${url} ${a.status}: ${a.body.slice(0, 200)}`);
    if (a.status === 200 && url !== "/api/sources") answered++;
    if (a.status === 404) refused++;
  }
  return { held, answered, refused };
}

describe("spell view under a folder swapped for a symlink to outside", () => {
  it("a folder above a listed loom and eval run: no answer holds anything from outside", async () => {
    const { root, outside } = swapTree();
    const viewer = await startViewer(root);
    const { flipper, started } = folderFlipper(
      join(root, "runs"),
      join(root, ".hold"),
      join(outside, "runs"),
    );
    try {
      await started;
      const { held, answered, refused } = await probe(viewer, true);
      expect(
        held.length,
        `${held.length} answers held outside data:\n${held.slice(0, 5).join("\n")}`,
      ).toBe(0);
      // The race really ran both ways: read inside, and met the folder swapped.
      expect(answered).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    } finally {
      flipper.kill("SIGKILL");
      await viewer.app.close();
    }
  }, 300_000);

  it("the served folder itself: the viewer keeps to the folder it opened", async () => {
    const { top, root, outside } = swapTree();
    const viewer = await startViewer(root);
    const { flipper, started } = folderFlipper(root, join(top, ".hold"), outside);
    try {
      await started;
      const { held, answered } = await probe(viewer, false);
      expect(
        held.length,
        `${held.length} answers held outside data:\n${held.slice(0, 5).join("\n")}`,
      ).toBe(0);
      expect(answered).toBeGreaterThan(0);
    } finally {
      flipper.kill("SIGKILL");
      await viewer.app.close();
    }
  }, 300_000);

  it("a loom named alone and swapped for a link to a file beside it is refused", async () => {
    const { root } = swapTree();
    const loom = join(root, "runs", "eval-1", "loom.jsonl");
    const beside = join(root, "runs", "eval-1", "beside.jsonl");
    writeFileSync(beside, jsonl([{ type: "loom", version: 2 }, outsideTurn]));
    const viewer = await startViewer(loom);
    try {
      expect((await viewer.app.inject({ url: "/api/l/0/entities" })).statusCode).toBe(200);
      renameSync(loom, `${loom}.aside`);
      symlinkSync(beside, loom);
      for (const url of ["/api/sources", "/api/l/0/stat", "/api/l/0/entities", "/api/l/0/t/r1"]) {
        const a = await viewer.app.inject({ url });
        expect(a.body, url).not.toContain(MARK);
      }
      expect((await viewer.app.inject({ url: "/api/l/0/stat" })).statusCode).toBe(404);
    } finally {
      await viewer.app.close();
    }
  });
});
