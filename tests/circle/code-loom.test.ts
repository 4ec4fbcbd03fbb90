/**
 * LOOM-11's cost is lazy: the code medium asks the loom for the entity's thread only when the
 * code reads `loom`, once per run, and then only for the turns the sandbox has not seen yet.
 */
import { describe, expect, it } from "vitest";
import { Loom } from "../../src/loom/core/index.js";
import type { Turn } from "../../src/loom/records/index.js";
import { codeCantrip } from "./code-helpers.js";

/** A loom that counts the turns read back from it. */
class CountingLoom extends Loom {
  reads: string[] = [];
  override get(turnId: string): Turn | undefined {
    this.reads.push(turnId);
    return super.get(turnId);
  }
}

describe("the sandbox's loom object (LOOM-11)", () => {
  it("costs nothing in turns that do not read it", async () => {
    const loom = new CountingLoom();
    const turns = Array.from({ length: 8 }, (_, i) => `var x${i} = echo("t${i}"); 1`);
    const { cantrip } = codeCantrip([...turns, "done(1)"], { loom, wards: [{ max_turns: 12 }] });
    await cantrip.cast("no reading");
    expect(loom.reads).toEqual([]);
  });

  it("is read once per run however often the code reads it, and sends only new turns", async () => {
    const loom = new CountingLoom();
    const { cantrip } = codeCantrip(
      [
        "var a = echo('one'); 1",
        "var seen = [loom.turns.length, loom.turns.length, loom === loom]; 1",
        "echo('three')",
        // The earlier turns' objects are the ones handed out before: only new turns crossed.
        "var again = loom.turns; done([seen, again.length, again[0] === firstTurn, again[2].utterance])",
      ].map((c, i) => (i === 1 ? c + "; var firstTurn = loom.turns[0]" : c)),
      { loom, wards: [{ max_turns: 6 }] },
    );
    const result = await cantrip.cast("read twice");
    expect(result.result).toEqual([[1, 1, true], 3, true, "echo('three')"]);
    // Turn 2 read turn 1; turn 4 read turns 2 and 3 only (walking back to what it had).
    const ids = result.loom.turns().map((t) => t.id);
    expect(loom.reads).toEqual([ids[0], ids[2], ids[1]]);
  });

  it("is not defined when a variable of the circle (circle.state) is named loom", async () => {
    const { cantrip } = codeCantrip(["done(typeof loom)"], { state: { loom: "mine" } });
    expect((await cantrip.cast("x")).result).toBe("string");
  });
});
