// The state file beside a loom (issue 20): an index of the loom, so damage to it is repaired
// from the loom, never a reason to refuse every summon; created readable by its owner only.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Cantrip, Circle, doneGate, JsonlStore, Loom, ScriptedLLM } from "../../src/index.js";
import {
  entityFiles,
  readState,
  recordSession,
  sessionEntity,
} from "../../src/loom/entities/index.js";

const run = promisify(execFile);
const WORKER = "tests/support/summon-worker.mjs";
const tempLoom = () => join(mkdtempSync(join(tmpdir(), "entity-state-")), "loom.jsonl");
const worker = (loom: string, args: string[]) =>
  run(process.execPath, [WORKER, loom, ...args], { encoding: "utf8" });

function summoner(path: string, replies: number) {
  return new Cantrip({
    llm: new ScriptedLLM({
      responses: Array.from({ length: replies }, (_, i) => ({ content: `r${i}` })),
    }),
    identity: { systemPrompt: "state" },
    circle: new Circle({ gates: [doneGate()], wards: [{ max_turns: 2 }] }),
    loom: new Loom(new JsonlStore(path)),
  });
}

describe("a damaged state file", () => {
  it.each([
    ["not JSON", "{ damaged"],
    ["JSON of the wrong shape", '{"version":1,"entities":[],"sessions":5}'],
    ["a line of the wrong shape", '{"type":"entity","id":7}\n'],
  ])(
    "%s: the summon goes on, the file is rebuilt from the loom and says so",
    async (_, text) => {
      const loom = tempLoom();
      const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
      writeFileSync(entityFiles(loom).state, text);
      const again = await worker(loom, ["1", "2", "0", id]);
      expect(again.stdout.trim()).toBe(id);
      expect(again.stderr).toContain(entityFiles(loom).state);
      expect(again.stderr).toMatch(/rebuilt from the loom/);
      // Whole again: the next summon has nothing to say, and sessions are recorded and found.
      const third = await worker(loom, ["1", "2", "0", id]);
      expect(third.stderr).not.toMatch(/rebuilt/);
      await recordSession(loom, "http", "s1", id);
      expect(await sessionEntity(loom, "http", "s1")).toBe(id);
    },
    60_000,
  );
});

describe("a state file of the earlier format (NAME.state.json)", () => {
  it("is turned into the new one: its sessions are kept, its entities rebuilt from the loom", async () => {
    const loom = tempLoom();
    const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
    rmSync(entityFiles(loom).state);
    const earlier = {
      version: 1,
      entities: {},
      sessions: { s9: { protocol: "http", entity_id: id, created: "x" } },
    };
    writeFileSync(loom.replace(/\.jsonl$/, ".state.json"), JSON.stringify(earlier));
    expect(await sessionEntity(loom, "http", "s9")).toBe(id);
    expect(readState(loom).entities[id]).toMatchObject({ sends: 1 });
  }, 120_000);
});

describe("the state file and locks on disk", () => {
  it("are created with mode 600", async () => {
    const path = tempLoom();
    const entity = summoner(path, 1).summon();
    await entity.send("hi");
    const lock = join(entityFiles(path).locks, `${entity.id}.lock`);
    expect((statSync(lock).mode & 0o777).toString(8)).toBe("600");
    expect((statSync(entityFiles(path).state).mode & 0o777).toString(8)).toBe("600");
    entity.dispose();
  });

  it("a send adds to the state file: what was there stays, byte for byte, in the same file", async () => {
    const path = tempLoom();
    const entity = summoner(path, 2).summon();
    await entity.send("one");
    const file = entityFiles(path).state;
    const before = readFileSync(file, "utf8");
    const inode = statSync(file).ino;
    await entity.send("two");
    const after = readFileSync(file, "utf8");
    expect(statSync(file).ino).toBe(inode);
    expect(after.startsWith(before)).toBe(true);
    expect(after.length).toBeGreaterThan(before.length);
    entity.dispose();
  });
});
