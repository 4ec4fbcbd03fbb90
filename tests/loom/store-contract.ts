/**
 * The contract every LoomStore keeps (src/loom/stores/store-contract.ts), its read side and its appends: a
 * suite function that each store's test file runs against its own store (store-jsonl.test.ts: the
 * JSONL file and the memory store; store-postgres.test.ts: a real server on loopback).
 */
import { afterEach, describe, expect, it } from "vitest";
import { appendReward, type LoomStore, type StoredRecord } from "../../src/loom/stores/index.js";
import type { FoldNode, IdentityNode, Turn } from "../../src/loom/records/index.js";

export interface StoreUnderTest {
  store: LoomStore;
  /** A second store on the same storage (a reopened file, a new connection); absent in memory. */
  reopen?: () => Promise<LoomStore>;
}

export function turn(id: string, parent: string | null, entity = "e1", sequence = 1): Turn {
  return {
    id,
    parent_id: parent,
    cantrip_id: "c1",
    entity_id: entity,
    role: "turn",
    sequence,
    utterance: `code of ${id}`,
    observation: `result of ${id}`,
    gate_calls: [],
    metadata: {
      tokens_prompt: 1,
      tokens_completion: 2,
      tokens_cached: 0,
      duration_ms: 3,
      timestamp: "2026-01-01T00:00:00.000Z",
    },
    reward: null,
    terminated: false,
    truncated: false,
    reason: null,
  };
}

const identity: IdentityNode = {
  id: "identity_c1",
  cantrip_id: "c1",
  role: "identity",
  identity: { system_prompt: "be brief" },
  tools: ["done"],
  medium: "code",
  timestamp: "2026-01-01T00:00:00.000Z",
};

function fold(entity: string, to: number): FoldNode {
  return {
    id: `fold_${entity}_${to}`,
    cantrip_id: "c1",
    entity_id: entity,
    role: "fold",
    from_sequence: 1,
    to_sequence: to,
    from_turn_id: "t1",
    to_turn_id: `t${to}`,
    summary: `turns 1-${to}`,
    strategy: "template",
    estimated_tokens: 10,
    timestamp: "2026-01-01T00:00:00.000Z",
  };
}

const ids = (turns: readonly Turn[]) => turns.map((t) => t.id);

/** Every record of the store's pages from `from`, and the position after the last page. */
async function allPages(store: LoomStore, from = 0) {
  const records: StoredRecord[] = [];
  let next = from;
  let pages = 0;
  for await (const page of store.recordPages(from)) {
    records.push(...page.records);
    next = page.next;
    pages++;
  }
  return { records, next, pages };
}

/** What a record is known by in these tests. */
const key = (r: StoredRecord) =>
  r.type === "reward" ? `reward:${r.turn_id}:${r.reward}` : `${r.type}:${r.id}`;

/** Runs the contract against the stores `open` makes (a fresh, empty store each test). */
export function loomStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`LoomStore contract: ${name}`, () => {
    const opened: LoomStore[] = [];
    const start = async (): Promise<StoreUnderTest> => {
      const made = await open();
      opened.push(made.store);
      return made;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it("reads a thread root → turn, one per branch", async () => {
      const { store } = await start();
      // A turn is unique by (entity, sequence) in a store that fences: the branch is its own entity.
      const turns = [
        turn("t1", null),
        turn("t2", "t1", "e1", 2),
        turn("t3", "t2", "e1", 3),
        turn("t2b", "t1", "fork", 2),
      ];
      for (const t of turns) await store.append({ type: "turn", ...t });
      expect(ids(await store.readThread("t3"))).toEqual(["t1", "t2", "t3"]);
      expect(ids(await store.readThread("t2b"))).toEqual(["t1", "t2b"]);
      expect(ids(await store.readThread("t1"))).toEqual(["t1"]);
      const [first] = await store.readThread("t1");
      expect(first).toMatchObject({ utterance: "code of t1", observation: "result of t1" });
    });

    it("refuses to read the thread of a turn it does not hold", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("t1", null) });
      await expect(store.readThread("nope")).rejects.toMatchObject({ code: "loom_unknown_turn" });
    });

    it("appends idempotently by id: a retried append stores nothing twice", async () => {
      const { store } = await start();
      expect(await store.append({ type: "turn", ...turn("t1", null) })).toBe(true);
      const retried = { ...turn("t1", null), utterance: "another text" };
      expect(await store.append({ type: "turn", ...retried })).toBe(false);
      expect(await store.append({ type: "identity", ...identity })).toBe(true);
      expect(await store.append({ type: "identity", ...identity })).toBe(false);
      expect(await store.append({ type: "fold", ...fold("e1", 1) })).toBe(true);
      expect(await store.append({ type: "fold", ...fold("e1", 1) })).toBe(false);
      const turns = await store.readEntity("e1");
      expect(turns).toHaveLength(1);
      expect(turns[0]!.utterance).toBe("code of t1"); // the first append stays
      expect(await store.folds("e1")).toHaveLength(1);
    });

    it("reads a child's turns appended before the turn they hang from (COMP-5)", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("p1", null, "parent") });
      await store.append({ type: "turn", ...turn("k1", "p2", "child") });
      await store.append({ type: "turn", ...turn("p2", "p1", "parent", 2) });
      expect(ids(await store.readThread("k1"))).toEqual(["p1", "p2", "k1"]);
    });

    it("reads an entity's turns in append order, and only its own", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("a1", null, "a") });
      await store.append({ type: "turn", ...turn("b1", null, "b") });
      await store.append({ type: "turn", ...turn("a2", "a1", "a", 2) });
      expect(ids(await store.readEntity("a"))).toEqual(["a1", "a2"]);
      expect(ids(await store.readEntity("b"))).toEqual(["b1"]);
      expect(await store.readEntity("none")).toEqual([]);
    });

    it("lists each entity once, in the order of its first turn, with its count and last turn", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("b1", null, "b") });
      await store.append({ type: "turn", ...turn("a1", null, "a") });
      await store.append({ type: "turn", ...turn("b2", "b1", "b", 2) });
      expect(await store.listEntities()).toEqual([
        { entityId: "b", cantripId: "c1", turns: 2, firstTurnId: "b1", lastTurnId: "b2" },
        { entityId: "a", cantripId: "c1", turns: 1, firstTurnId: "a1", lastTurnId: "a1" },
      ]);
    });

    it("keeps rewards as records: the latest for a turn wins, and reads show it", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("t1", null) });
      await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      const at = "2026-01-01T00:00:01.000Z";
      await store.append({ type: "reward", turn_id: "t2", reward: 0.5, timestamp: at });
      await store.append({ type: "reward", turn_id: "t2", reward: 1, timestamp: at });
      expect(await store.rewards()).toEqual(new Map([["t2", 1]]));
      const thread = await store.readThread("t2");
      expect(thread.map((t) => t.reward)).toEqual([null, 1]);
      expect((await store.readEntity("e1")).map((t) => t.reward)).toEqual([null, 1]);
    });

    it("keeps folds per entity, in order, with the turns untouched (LOOM-5)", async () => {
      const { store } = await start();
      for (let i = 1; i <= 3; i++)
        await store.append({ type: "turn", ...turn(`t${i}`, i > 1 ? `t${i - 1}` : null, "e1", i) });
      await store.append({ type: "fold", ...fold("e1", 2) });
      await store.append({ type: "fold", ...fold("other", 1) });
      await store.append({ type: "fold", ...fold("e1", 3) });
      expect((await store.folds("e1")).map((f) => f.id)).toEqual(["fold_e1_2", "fold_e1_3"]);
      expect(await store.folds()).toHaveLength(3);
      expect(ids(await store.readEntity("e1"))).toEqual(["t1", "t2", "t3"]);
    });

    it("reads a cantrip's identity back", async () => {
      const { store } = await start();
      await store.append({ type: "identity", ...identity });
      expect(await store.identity("c1")).toEqual(identity);
      expect(await store.identity("c2")).toBeUndefined();
    });

    it("reads every record back in append order, in pages; from a page's position, only what came after", async () => {
      const { store } = await start();
      await store.append({ type: "identity", ...identity });
      await store.append({ type: "turn", ...turn("t1", null) });
      await store.append({ type: "reward", turn_id: "t1", reward: 1, timestamp: "x" });
      await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      await store.append({ type: "fold", ...fold("e1", 2) });
      await store.append({ type: "identity", ...identity }); // a retry: stored once
      const first = await allPages(store);
      expect(first.records.map(key)).toEqual([
        "identity:identity_c1",
        "turn:t1",
        "reward:t1:1",
        "turn:t2",
        "fold:fold_e1_2",
      ]);
      expect(first.records[1]).toMatchObject({ type: "turn", utterance: "code of t1" });
      expect(first.records[4]).toEqual({ type: "fold", ...fold("e1", 2) });
      // Nothing new: a read from the last position gives no record.
      expect((await allPages(store, first.next)).records).toEqual([]);
      await store.append({ type: "turn", ...turn("t3", "t2", "e1", 3) });
      await store.append({ type: "reward", turn_id: "t3", reward: 0, timestamp: "y" });
      const later = await allPages(store, first.next);
      expect(later.records.map(key)).toEqual(["turn:t3", "reward:t3:0"]);
      expect(later.next).not.toBe(first.next);
    });

    it("reads a loom of many records in several pages, none lost or doubled", async () => {
      const { store } = await start();
      const n = 600;
      for (let i = 1; i <= n; i++)
        await store.append({ type: "turn", ...turn(`t${i}`, i > 1 ? `t${i - 1}` : null, "e1", i) });
      const { records, pages } = await allPages(store);
      expect(pages).toBeGreaterThan(1);
      expect(records.map(key)).toEqual(Array.from({ length: n }, (_, i) => `turn:t${i + 1}`));
    });

    it("reads one turn by its id, with its latest reward; none for a turn it does not hold", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("t1", null) });
      expect(await store.turn("t1")).toMatchObject({ id: "t1", reward: null });
      await store.append({ type: "reward", turn_id: "t1", reward: 0.25, timestamp: "x" });
      expect(await store.turn("t1")).toMatchObject({ id: "t1", reward: 0.25 });
      expect(await store.turn("nope")).toBeUndefined();
    });

    it("gives the reward records of some turns, with their reasons, in append order", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("t1", null) });
      await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      await store.append({ type: "reward", turn_id: "t1", reward: 0, timestamp: "a" });
      await store.append({
        type: "reward",
        turn_id: "t2",
        reward: 1,
        reason: "right",
        timestamp: "b",
      });
      await store.append({ type: "reward", turn_id: "t1", reward: 0.5, timestamp: "c" });
      const got = await store.rewardRecords(["t1"]);
      expect(got.map((r) => [r.turn_id, r.reward])).toEqual([
        ["t1", 0],
        ["t1", 0.5],
      ]);
      expect(await store.rewardRecords(["t2", "none"])).toEqual([
        { type: "reward", turn_id: "t2", reward: 1, reason: "right", timestamp: "b" },
      ]);
    });

    it("appends a reward to a turn it holds; refuses an unknown turn or a value that is not finite", async () => {
      const { store } = await start();
      await store.append({ type: "turn", ...turn("t1", null) });
      await appendReward(store, "t1", 0.5, "half");
      expect(await store.rewardRecords(["t1"])).toMatchObject([
        { turn_id: "t1", reward: 0.5, reason: "half" },
      ]);
      await expect(appendReward(store, "nope", 1)).rejects.toMatchObject({
        code: "loom_unknown_turn",
      });
      await expect(appendReward(store, "t1", Number.NaN)).rejects.toMatchObject({
        code: "bad_reward",
      });
      expect(await store.rewards()).toEqual(new Map([["t1", 0.5]]));
    });

    it("gives a reopened store everything appended, idempotence included", async (ctx) => {
      const { store, reopen } = await start();
      // A store without storage of its own (memory) has nothing to reopen: the check is moot.
      if (!reopen) return ctx.skip("this store keeps nothing beyond its own life (memory)");
      await store.append({ type: "identity", ...identity });
      await store.append({ type: "turn", ...turn("t1", null) });
      await store.append({ type: "turn", ...turn("t2", "t1", "e1", 2) });
      await store.append({
        type: "reward",
        turn_id: "t1",
        reward: 2,
        timestamp: identity.timestamp,
      });
      await store.append({ type: "fold", ...fold("e1", 1) });
      const again = await reopen();
      opened.push(again);
      expect(ids(await again.readThread("t2"))).toEqual(["t1", "t2"]);
      expect(await again.rewards()).toEqual(new Map([["t1", 2]]));
      expect(await again.folds("e1")).toHaveLength(1);
      expect(await again.identity("c1")).toEqual(identity);
      expect(await again.append({ type: "turn", ...turn("t2", "t1", "e1", 2) })).toBe(false);
      expect(ids(await again.readEntity("e1"))).toEqual(["t1", "t2"]);
    });
  });
}
