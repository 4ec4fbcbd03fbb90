import { redactingReplacer } from "../../core/redact-stream.js";
import type { Loom } from "../../loom/core/index.js";
import { readRecords } from "../../loom/jsonl/index.js";
import type { IdentityNode, Turn } from "../../loom/records/index.js";

/**
 * A session's turns as JSONL (its entity's identity first), every string redacted. A loom file
 * is read now, a record at a time, keeping only this entity's turns: the server keeps no copy
 * of the loom (its memory is bounded by what it is asked, not by what it ever served), and
 * turns another process appended meanwhile are there. A memory loom is its own record.
 */
export function sessionLoom(loom: Loom, entityId: string, redact: (t: string) => string): string {
  const replacer = redactingReplacer(redact);
  const { turns, identity } = loom.store.readsBack
    ? readEntity(loom.store.location, entityId)
    : fromMemory(loom, entityId);
  const lines: string[] = [];
  if (identity) lines.push(JSON.stringify({ type: "identity", ...identity }, replacer));
  for (const t of turns) lines.push(JSON.stringify({ type: "turn", ...t }, replacer));
  return lines.map((l) => `${l}\n`).join("");
}

interface EntityRecords {
  turns: Turn[];
  identity: IdentityNode | undefined;
}

function fromMemory(loom: Loom, entityId: string): EntityRecords {
  const turns = loom.turns().filter((t) => t.entity_id === entityId);
  return { turns, identity: turns[0] && loom.identity(turns[0].cantrip_id) };
}

function readEntity(file: string, entityId: string): EntityRecords {
  const turns: Turn[] = [];
  const identities = new Map<string, IdentityNode>(); // one per cantrip: a handful
  const own = new Map<string, number>(); // turn id → its index in `turns` (a reward follows its turn)
  readRecords(file, (record) => {
    if (record.type === "identity") {
      const { type: _type, ...node } = record;
      if (!identities.has(node.cantrip_id)) identities.set(node.cantrip_id, node);
    } else if (record.type === "turn" && record.entity_id === entityId) {
      const { type: _type, ...turn } = record;
      own.set(turn.id, turns.push(turn) - 1);
    } else if (record.type === "reward" && own.has(record.turn_id)) {
      const i = own.get(record.turn_id)!;
      turns[i] = { ...turns[i]!, reward: record.reward };
    }
  });
  return { turns, identity: turns[0] && identities.get(turns[0].cantrip_id) };
}
