/**
 * The lines of a loom's state file (entity-state.ts) and how they add up. Every line is
 * checked for its shape before it counts: a line of another shape makes the file damaged
 * (and rebuilt), never half-used.
 */
import { SystemError } from "../../core/errors.js";

export const STATE_VERSION = 2;

/** An entity summoned against the loom (snake_case: it is a file format). */
export interface EntityEntry {
  cantrip: string;
  medium: string;
  /** The spell file the entity's cantrip came from, when it came from one. */
  spell: string | null;
  created: string;
  updated: string;
  /** The entity's last recorded turn (null until it has one). */
  last_turn_id: string | null;
  /** Sends that reached their end, over every process. */
  sends: number;
}

/** A protocol session (HTTP, ACP) and the entity it speaks to. */
export interface SessionEntry {
  protocol: string;
  entity_id: string;
  created: string;
}

/** A change, as appended (with `at`, the time, added when written). */
export type StateLine =
  | {
      type: "entity";
      id: string;
      cantrip: string;
      medium: string;
      spell: string | null;
      /** Only in a file rebuilt from the loom: what the loom tells of the entity's sends. */
      last_turn_id?: string | null;
      sends?: number;
    }
  | { type: "send"; id: string; last_turn_id: string | null }
  | { type: "session"; id: string; protocol: string; entity_id: string };

/** What the lines read so far add up to. */
export interface Folded {
  entities: Map<string, EntityEntry>;
  sessions: Map<string, SessionEntry>;
}

/** The file's first line. */
export const headerLine = (): string =>
  `${JSON.stringify({ type: "state", version: STATE_VERSION })}\n`;

type Fields = Record<string, unknown>;
const isText = (v: unknown): v is string => typeof v === "string";
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";

/** Adds one line to `folded`; returns what is wrong with it (then nothing is added), or null. */
export function foldLine(
  folded: Folded,
  text: string,
  first: boolean,
  path: string,
): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "a line is not JSON";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return "a line is not a record";
  const line = value as Fields;
  if (first) {
    if (line["type"] !== "state" || typeof line["version"] !== "number")
      return 'its first line is not a {"type":"state",...} header';
    if (line["version"] > STATE_VERSION)
      throw new SystemError(
        "loom_state_version",
        `${path}: state format version ${line["version"]} is newer than this Spellbook reads (${STATE_VERSION})`,
      );
    return null;
  }
  const { type, id, at } = line;
  if (!isText(id) || !isText(at)) return "a line has no id or time";
  switch (type) {
    case "entity":
      return foldEntity(folded, id, at, line);
    case "send": {
      if (!isTextOrNull(line["last_turn_id"])) return `entity ${id}: a send of the wrong shape`;
      const entry = folded.entities.get(id);
      if (entry) {
        entry.updated = at;
        entry.last_turn_id = line["last_turn_id"];
        entry.sends += 1;
      }
      return null;
    }
    case "session":
      if (!isText(line["protocol"]) || !isText(line["entity_id"]))
        return `session ${id}: a line of the wrong shape`;
      folded.sessions.set(id, {
        protocol: line["protocol"],
        entity_id: line["entity_id"],
        created: at,
      });
      return null;
    default:
      return `a line of an unknown type (${JSON.stringify(type)})`;
  }
}

function foldEntity(folded: Folded, id: string, at: string, line: Fields): string | null {
  if (
    !isText(line["cantrip"]) ||
    !isText(line["medium"]) ||
    !isTextOrNull(line["spell"]) ||
    !isTextOrNull(line["last_turn_id"] ?? null) ||
    !Number.isSafeInteger(line["sends"] ?? 0)
  )
    return `entity ${id}: a line of the wrong shape`;
  if (!folded.entities.has(id))
    folded.entities.set(id, {
      cantrip: line["cantrip"],
      medium: line["medium"],
      spell: line["spell"],
      created: at,
      updated: at,
      last_turn_id: (line["last_turn_id"] as string | null | undefined) ?? null,
      sends: (line["sends"] as number | undefined) ?? 0,
    });
  return null;
}
