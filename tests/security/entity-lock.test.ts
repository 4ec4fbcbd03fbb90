// Durable entities (issue 20): one writer per entity, with real processes racing for the lock.
// Every process a test aims at is one it started itself (a `sleep`, a node worker); the locks
// and looms live in the test's own temporary folder.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { entityFiles } from "../../src/loom/entities/index.js";
import { onlyWhere } from "../support/needs.js";

const run = promisify(execFile);
const WORKER = "tests/support/summon-worker.mjs";
const tempLoom = () => join(mkdtempSync(join(tmpdir(), "entity-lock-")), "loom.jsonl");
const onLinux = process.platform === "linux";
const started: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** One worker process (tests/support/summon-worker.mjs): summons or resumes an entity. */
function worker(loom: string, args: string[], waitMs = 300) {
  return run(process.execPath, [WORKER, loom, ...args], {
    encoding: "utf8",
    env: { ...process.env, SUMMON_WAIT_MS: String(waitMs) },
  });
}

const lockOf = (loom: string, id: string) => join(entityFiles(loom).locks, `${id}.lock`);

function writeLock(loom: string, id: string, text: string): string {
  const path = lockOf(loom, id);
  mkdirSync(entityFiles(loom).locks, { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A process this test starts and keeps alive: a live pid that is not a Spellbook holder. */
function sleeper(): ChildProcessWithoutNullStreams {
  const child = spawn("sleep", ["60"]);
  started.push(child);
  return child;
}

/** The pid of a process this test started and that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

const startTime = (pid: number) =>
  readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]!;
const bootId = () => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();

interface LoomTurn {
  type: string;
  id: string;
  parent_id: string | null;
  entity_id: string;
  sequence: number;
}

function turnsOf(loom: string, id: string): LoomTurn[] {
  return readFileSync(loom, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as LoomTurn)
    .filter((t) => t.type === "turn" && t.entity_id === id);
}

/** Two turns hung from the same parent at the same sequence: a split thread. */
function splits(turns: LoomTurn[]): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const t of turns) {
    const key = `${t.parent_id}/${t.sequence}`;
    if (seen.has(key)) twice.push(key);
    seen.add(key);
  }
  return twice;
}

onlyWhere(onLinux ? undefined : "needs Linux's /proc").describe(
  "a lock whose pid is alive again (Linux: /proc)",
  () => {
    it("a live pid with another start time is a dead holder: its lock is taken over", async () => {
      const loom = tempLoom();
      const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
      // The pid is alive (a sleep this test started) but the holder that wrote the lock was
      // another process: its start time differs (a reused pid).
      const other = sleeper();
      writeLock(loom, id, `${other.pid} ${bootId()} 1\n`);
      const again = await worker(loom, ["1", "2", "0", id]);
      expect(again.stdout.trim()).toBe(id);
      expect(other.exitCode).toBeNull(); // the live process is left alone
    }, 120_000);

    it("a lock from another boot (a restarted container's pid 1) is taken over", async () => {
      const loom = tempLoom();
      const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
      writeLock(loom, id, `1 00000000-0000-0000-0000-000000000000 1\n`);
      const again = await worker(loom, ["1", "2", "0", id]);
      expect(again.stdout.trim()).toBe(id);
    }, 120_000);

    it("a live holder's lock is kept, and the refusal says how to recover", async () => {
      const loom = tempLoom();
      const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
      const holder = sleeper();
      const path = writeLock(loom, id, `${holder.pid} ${bootId()} ${startTime(holder.pid!)}\n`);
      const refused = await worker(loom, ["1", "2", "0", id]).then(
        () => "",
        (err: { stderr: string }) => err.stderr,
      );
      expect(refused).toContain(`in use by pid ${holder.pid}`);
      expect(refused).toContain(`remove ${path}`);
      expect(readFileSync(path, "utf8")).toContain(`${holder.pid} `);
    }, 120_000);
  },
);

describe("20 processes racing for a dead holder's lock", () => {
  it("exactly one holds it, take-over after take-over", async () => {
    // 20 processes (tests/support/lock-worker.mjs, built library) take one lock 10 times each;
    // each holder logs "+pid" … "-pid" and then leaves the lock as a killed holder would, so
    // every take is a race of the others to take over a dead holder's lock.
    const dir = mkdtempSync(join(tmpdir(), "entity-lock-race-"));
    const dead = await deadPid();
    const [lock, log, go] = ["x.lock", "log", "go"].map((f) => join(dir, f)) as [
      string,
      string,
      string,
    ];
    writeFileSync(lock, `${dead}\n`);
    const racers = Array.from({ length: 20 }, () => {
      const child = spawn(
        process.execPath,
        ["tests/support/lock-worker.mjs", lock, log, "10", `${dead}\n`, go],
        { stdio: ["pipe", "pipe", "pipe"] },
      );
      started.push(child);
      let err = "";
      const ready = new Promise<void>((resolve) =>
        child.stderr.on("data", (c: Buffer) => {
          err += c.toString();
          if (err.includes("ready")) resolve();
        }),
      );
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      return { ready, exited };
    });
    await Promise.all(racers.map((r) => r.ready));
    writeFileSync(go, ""); // let go at once
    expect(await Promise.all(racers.map((r) => r.exited))).toEqual(Array(20).fill(0));
    let holding = 0;
    let most = 0;
    const lines = readFileSync(log, "utf8").trim().split("\n");
    for (const line of lines) {
      holding += line.startsWith("+") ? 1 : -1;
      most = Math.max(most, holding);
    }
    expect(lines).toHaveLength(20 * 10 * 2);
    expect(most).toBe(1);
  }, 180_000);

  it("a guard left by a breaker that died inside it does not block the take-over", async () => {
    const loom = tempLoom();
    const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
    const dead = await deadPid();
    const lock = writeLock(loom, id, `${dead}\n`);
    writeFileSync(`${lock}.break`, `${dead}\n`);
    const again = await worker(loom, ["1", "2", "0", id]);
    expect(again.stdout.trim()).toBe(id);
  }, 120_000);

  it("all of them waiting in turn make one thread: no two turns share parent and sequence", async () => {
    const loom = tempLoom();
    const id = (await worker(loom, ["1", "2", "0"])).stdout.trim();
    writeLock(loom, id, `${await deadPid()}\n`);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => worker(loom, ["1", "2", "0", id], 90_000)),
    );
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const turns = turnsOf(loom, id);
    expect(turns).toHaveLength(2 + 20 * 2);
    expect(splits(turns)).toEqual([]);
    expect(turns.map((t) => t.sequence).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 42 }, (_, i) => i + 1),
    );
  }, 180_000);
});

describe("a summon continues from the thread as it is once the entity is held", () => {
  it("turns sent by another summon while this one waited are continued, not split", async () => {
    const path = tempLoom();
    const summon = (responses: string[]) =>
      new Cantrip({
        llm: new ScriptedLLM({ responses: responses.map((content) => ({ content })) }),
        identity: { systemPrompt: "one writer" },
        circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
        loom: new Loom(new JsonlStore(path), { entityWaitMs: 100 }),
      });
    const first = summon(["a", "b"]).summon();
    await first.send("one");
    // A second summon of the same entity (another Loom on the same file, as another process
    // would have) is made while the first still holds it and sends again.
    const second = summon(["c"]).summon({ entity: first.id });
    await first.send("two");
    first.dispose();
    const r = await second.send("three");
    second.dispose();
    expect(r.status).toBe("terminated");
    const turns = turnsOf(path, first.id);
    expect(splits(turns)).toEqual([]);
    expect(turns.map((t) => t.sequence)).toEqual([1, 2, 3]);
    expect(turns[2]!.parent_id).toBe(turns[1]!.id);
  });
});
