/**
 * A loom written before ids were UUIDv7 (`ent_9440ac3018db000002`: a per-process prefix plus a
 * counter) still loads, forks and exports, and new turns under it get UUIDv7 ids.
 * tests/fixtures/loom-old-ids.jsonl was written by `spell run grimoire/04-cantrip.yaml` of that time.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validate } from "uuid";
import { describe, expect, it } from "vitest";
import {
  Cantrip,
  Circle,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
  ScriptedLLM,
} from "../../src/index.js";
import { exportLoomFile } from "../../src/loom/reading/index.js";
import { fork } from "../../src/loom/core/index.js";

const OLD = /^(turn|ent|cantrip)_[0-9a-f]{12}[0-9a-z]{6}$/;

describe("a loom with ids of the old shape", () => {
  it("loads, forks from an old turn with new UUIDv7 ids, and exports both shapes", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "old-ids-")), "loom.jsonl");
    copyFileSync("tests/fixtures/loom-old-ids.jsonl", path);
    const loom = new Loom(new JsonlStore(path));
    const old = loom.turns();
    expect(old.map((t) => t.id)).toHaveLength(2);
    for (const t of old) {
      expect(t.id).toMatch(OLD);
      expect(t.entity_id).toMatch(OLD);
    }
    expect(loom.thread(old[1]!.id).map((t) => t.id)).toEqual(old.map((t) => t.id));

    const llm = new ScriptedLLM({ responses: [{ content: "forked" }] });
    const cantrip = new Cantrip({
      llm,
      identity: { systemPrompt: "old ids" },
      circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 3 }] }),
      loom,
    });
    const r = await fork(cantrip, old[0]!.id, { intent: "again" });
    expect(r.result).toBe("forked");
    const added = loom.turns().slice(2);
    expect(added).toHaveLength(1);
    expect(added[0]!.parent_id).toBe(old[0]!.id);
    expect(validate(added[0]!.id.replace(/^turn_/, ""))).toBe(true);
    expect(validate(added[0]!.entity_id.replace(/^ent_/, ""))).toBe(true);
    expect(loom.thread(added[0]!.id).map((t) => t.id)).toEqual([old[0]!.id, added[0]!.id]);
    loom.close();

    // Read back by a new loom, as another process would, and exported.
    const again = new Loom(new JsonlStore(path));
    expect(again.turns().map((t) => t.id)).toEqual([...old, ...added].map((t) => t.id));
    again.close();
    let out = "";
    await exportLoomFile(path, (text) => {
      out += text;
      return true;
    });
    const ids = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; id?: string })
      .filter((r) => r.type === "turn")
      .map((r) => r.id);
    expect(ids).toEqual([...old, ...added].map((t) => t.id));
  });
});
