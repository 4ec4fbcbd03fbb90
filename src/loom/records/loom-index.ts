import { ConfigError } from "../../core/errors.js";
import type { FoldNode, IdentityNode, LoomRecord, Turn } from "./turn.js";

/** What the loom knows in memory: every turn, identity and reward, in append order. */
export class LoomIndex {
  readonly order: Turn[] = [];
  readonly identities = new Map<string, IdentityNode>();
  readonly rewards = new Map<string, number>();
  /** The reason given with a turn's last reward, when one was. */
  readonly rewardReasons = new Map<string, string>();
  /** Every reward record, in append order (with its reason and time). */
  readonly rewardLog: Extract<LoomRecord, { type: "reward" }>[] = [];
  readonly folds: FoldNode[] = [];
  /** id → turn: built on the first lookup, kept current from then on. */
  private byId: Map<string, Turn> | null = null;

  add(record: LoomRecord): void {
    switch (record.type) {
      case "identity": {
        const { type: _type, ...node } = record;
        this.identities.set(node.cantrip_id, Object.freeze(node));
        break;
      }
      case "turn": {
        const { type: _type, ...turn } = record;
        this.addTurn(Object.freeze(turn));
        break;
      }
      case "reward":
        this.rewardLog.push(record);
        this.rewards.set(record.turn_id, record.reward);
        if (typeof record.reason === "string")
          this.rewardReasons.set(record.turn_id, record.reason);
        else this.rewardReasons.delete(record.turn_id);
        break;
      case "fold": {
        const { type: _type, ...fold } = record;
        this.folds.push(Object.freeze(fold));
        break;
      }
      case "loom":
      case "torn":
        break;
    }
  }

  addTurn(turn: Turn): void {
    this.order.push(turn);
    this.byId?.set(turn.id, turn);
  }

  get turnsById(): Map<string, Turn> {
    if (!this.byId) {
      this.byId = new Map();
      for (const t of this.order) this.byId.set(t.id, t);
    }
    return this.byId;
  }

  /** The path root → leaf ending at `leafId` (LOOM-10), as stored (rewards not applied). */
  path(leafId: string): Turn[] {
    const byId = this.turnsById;
    const path: Turn[] = [];
    const seen = new Set<string>();
    for (let t = byId.get(leafId); t; t = t.parent_id ? byId.get(t.parent_id) : undefined) {
      // A hand-edited file could link a turn to itself: a cycle is corruption, not a thread.
      if (seen.has(t.id))
        throw new ConfigError("loom_corrupt", `loom has a parent cycle at turn ${t.id}`);
      seen.add(t.id);
      path.push(t);
    }
    if (path.length === 0)
      throw new ConfigError("loom_unknown_turn", `no turn ${leafId} in the loom`);
    return path.reverse();
  }

  /** The turn with its latest reward (a reward is a record of its own, LOOM-3). */
  rewarded(turn: Turn): Turn {
    const reward = this.rewards.get(turn.id);
    return reward === undefined ? turn : Object.freeze({ ...turn, reward });
  }
}
