import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  createIdentity,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  readLoomFile,
  ScriptedLLM,
} from "../../src/index.js";

const tmp = () => mkdtempSync(join(tmpdir(), "loom-test-"));

function cantrip(loom: Loom, responses: ConstructorParameters<typeof ScriptedLLM>[0]["responses"]) {
  return new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: createIdentity({ systemPrompt: "test" }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    loom,
  });
}

describe("JSONL loom", () => {
  it("has every turn on disk before the next query (LOOM-1)", async () => {
    const path = join(tmp(), "loom.jsonl");
    const store = new JsonlStore(path);
    const seen: number[] = [];
    const llm = new ScriptedLLM({
      responses: [{ tool_calls: [{ gate: "echo", args: { text: "a" } }] }, { content: "end" }],
    });
    const spy = {
      name: "spy",
      query: (m: Parameters<typeof llm.query>[0], o?: Parameters<typeof llm.query>[1]) => {
        seen.push(
          readFileSync(path, { flag: "a+" })
            .toString()
            .split("\n")
            .filter((l) => l.includes('"type":"turn"')).length,
        );
        return llm.query(m, o);
      },
    };
    const c = new Cantrip({
      llm: spy,
      identity: {},
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
      loom: new Loom(store),
    });
    await c.cast("go");
    expect(seen).toEqual([0, 1]);
  });

  it("reopens a file with its turns, identity and rewards", async () => {
    const path = join(tmp(), "loom.jsonl");
    const loom = new Loom(new JsonlStore(path));
    const r = await cantrip(loom, [
      { tool_calls: [{ gate: "echo", args: { text: "a" } }] },
      { content: "end" },
    ]).cast("go");
    loom.annotateReward(r.lastTurnId!, 1);
    loom.close();
    const again = new Loom(new JsonlStore(path));
    expect(again.size).toBe(2);
    expect(again.thread(r.lastTurnId!).map((t) => t.sequence)).toEqual([1, 2]);
    expect(again.get(r.lastTurnId!)!.reward).toBe(1);
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(["loom", "identity", "turn", "turn", "reward"]);
  });

  it("loses nothing before a torn last line and says so", async () => {
    const path = join(tmp(), "loom.jsonl");
    const loom = new Loom(new JsonlStore(path));
    await cantrip(loom, [{ content: "one" }]).cast("go");
    loom.close();
    appendFileSync(path, '{"type":"turn","id":"half');
    const read = readLoomFile(path);
    expect(read.tornTail).toBe('{"type":"turn","id":"half');
    expect(read.records.filter((r) => r.type === "turn")).toHaveLength(1);
    const store = new JsonlStore(path);
    const reopened = new Loom(store);
    expect(reopened.size).toBe(1);
    expect(store.warnings[0]).toMatch(/cut off mid-write/);
    // Appending after a torn tail starts a fresh line; the file stays readable.
    await cantrip(reopened, [{ content: "two" }]).cast("again");
    reopened.close();
    expect(new Loom(new JsonlStore(path)).size).toBe(2);
  });

  it("is read when it is asked, not when it is opened", async () => {
    const path = join(tmp(), "loom.jsonl");
    writeFileSync(path, '{"type":"loom","version":1,"created":"x"}\nnot json\n');
    const loom = new Loom(new JsonlStore(path)); // a long history costs nothing here
    const r = await cantrip(loom, [{ content: "one" }]).cast("go"); // appending reads nothing
    expect(r.terminated).toBe(true);
    expect(() => loom.turns()).toThrow(/loom.jsonl:2: not a JSON record/);
  });

  it("keeps its index current once read", async () => {
    const path = join(tmp(), "loom.jsonl");
    const loom = new Loom(new JsonlStore(path));
    const c = cantrip(loom, [{ content: "one" }, { content: "two" }]);
    const one = await c.cast("go");
    expect(loom.turns().map((t) => t.id)).toEqual([one.lastTurnId]); // read from the file
    const two = await c.cast("again");
    expect(loom.turns().map((t) => t.id)).toEqual([one.lastTurnId, two.lastTurnId]);
    expect(new Loom(new JsonlStore(path)).turns()).toEqual(loom.turns());
  });

  it("never appends to a file that is not a loom, or a loom of a newer format", async () => {
    for (const text of ["# my notes\nhello\n", '{"type":"loom","version":99,"created":"x"}\n']) {
      const path = join(tmp(), "file");
      writeFileSync(path, text);
      const store = new JsonlStore(path);
      expect(store.refusal).toMatch(/is not a loom file|newer than this Spellbook writes/);
      await expect(cantrip(new Loom(store), [{ content: "one" }]).cast("go")).rejects.toThrow(
        store.refusal!,
      );
      expect(readFileSync(path, "utf8")).toBe(text);
    }
  });

  it("ends a last record that lacks its newline without calling it torn", async () => {
    const path = join(tmp(), "loom.jsonl");
    const loom = new Loom(new JsonlStore(path));
    await cantrip(loom, [{ content: "one" }]).cast("go");
    loom.close();
    writeFileSync(path, readFileSync(path, "utf8").trimEnd()); // the final newline is lost
    const store = new JsonlStore(path);
    expect(store.warnings).toEqual([]);
    const again = new Loom(store);
    await cantrip(again, [{ content: "two" }]).cast("again");
    again.close();
    const read = readLoomFile(path);
    expect(read.tornTail).toBeNull();
    expect(read.records.map((r) => r.type)).toEqual([
      "loom",
      "identity",
      "turn",
      "identity",
      "turn",
    ]);
  });

  it("refuses a corrupt line in the middle", () => {
    const path = join(tmp(), "loom.jsonl");
    writeFileSync(
      path,
      '{"type":"loom","version":1,"created":"x"}\nnot json\n{"type":"loom","version":1,"created":"y"}\n',
    );
    expect(() => readLoomFile(path)).toThrow(/loom.jsonl:2: not a JSON record/);
  });

  it("reads the frozen version-1 sample forever", () => {
    const read = readLoomFile("tests/fixtures/loom-v1.jsonl");
    expect(read.version).toBe(1);
    const loom = new Loom(new JsonlStore("tests/fixtures/loom-v1.jsonl"));
    expect(loom.size).toBe(2);
    const [first, second] = loom.turns();
    expect(first!.gate_calls[0]!.gate_name).toBe("echo");
    expect(second!.terminated).toBe(true);
    expect(loom.threads()).toHaveLength(1);
  });
});

describe("loom tree", () => {
  it("is append-only (LOOM-3)", async () => {
    const loom = new Loom();
    const r = await cantrip(loom, [{ content: "x" }]).cast("go");
    expect(() => loom.deleteTurn(r.lastTurnId!)).toThrow("loom is append-only");
    expect(() => loom.append(loom.get(r.lastTurnId!)!)).toThrow("loom is append-only");
    expect(
      () => ((loom.get(r.lastTurnId!) as { utterance: string }).utterance = "changed"),
    ).toThrow();
  });

  it("extracts threads root to leaf across casts (LOOM-10)", async () => {
    const loom = new Loom();
    const c = cantrip(loom, [
      { tool_calls: [{ gate: "echo", args: { text: "a" } }] },
      { content: "b" },
      { content: "c" },
    ]);
    const one = await c.cast("first");
    // The seed's second cast: of the cantrip the first returned, which goes on in the script.
    const two = await one.nextCantrip.cast("second");
    expect(loom.threads()).toHaveLength(2);
    expect(loom.thread(one.lastTurnId!).map((t) => t.utterance)).toEqual([
      'echo({"text":"a"})',
      "b",
    ]);
    expect(loom.thread(two.lastTurnId!).map((t) => t.utterance)).toEqual(["c"]);
  });
  it("refuses a parent cycle in a hand-edited file instead of hanging", () => {
    const path = join(tmp(), "cycle.jsonl");
    const turn = JSON.parse(
      readFileSync("tests/fixtures/loom-v1.jsonl", "utf8").split("\n")[2]!,
    ) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...turn, id: "t1", parent_id: "t1" }) + "\n");
    expect(() => new Loom(new JsonlStore(path)).thread("t1")).toThrow(/parent cycle/);
  });
});
