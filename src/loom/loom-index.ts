import type { FoldNode, IdentityNode, LoomRecord, Turn } from "./turn.js";

/** What the loom knows in memory: every turn, identity and reward, in append order. */
export class LoomIndex {
  readonly order: Turn[] = [];
  readonly identities = new Map<string, IdentityNode>();
  readonly rewards = new Map<string, number>();
  /** The reason given with a turn's last reward, when one was. */
  readonly rewardReasons = new Map<string, string>();
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
}
