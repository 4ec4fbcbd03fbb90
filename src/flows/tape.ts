/**
 * The tape (seed 003 §5): the active nodes, in one of four shapes. Inside, every shape is a map
 * from key to a list of nodes; the non-indexed shapes use the one key `null`. Keys are shown in
 * their original form (no storage prefix exists to strip).
 */
import { ConfigError } from "../core/errors.js";
import { nodeText, type Node } from "./node.js";
import { parseNode } from "./parse.js";
import { compareText } from "./priority.js";

export type TapeShape = "single" | "many" | "index-single" | "index-many";
export const TAPE_SHAPES: readonly TapeShape[] = ["single", "many", "index-single", "index-many"];

/** A tape as written: a node, a list, or a map of either (by shape). */
export type TapeValue = string | null | readonly string[] | Readonly<Record<string, unknown>>;

export type TapeKey = string | null;

export interface TapeEntry {
  readonly key: TapeKey;
  readonly state: Node;
  readonly text: string;
}

/** One key's change in a cycle: nodes added and removed, each sorted (canonical delta, §8). */
export interface TapeDelta {
  key: TapeKey;
  added: string[];
  removed: string[];
}

export const isIndexed = (shape: TapeShape) => shape.startsWith("index-");
const isSingle = (shape: TapeShape) => shape === "single" || shape === "index-single";

export class Tape {
  private constructor(
    readonly shape: TapeShape,
    private readonly keys: Map<TapeKey, Node[]>,
  ) {}

  static of(shape: TapeShape, initial: TapeValue | undefined): Tape {
    const nodes = (v: unknown, where: string): Node[] => {
      const list = v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
      if (isSingle(shape) && list.length > 1)
        throw new ConfigError("tape_shape", `tape${where}: a ${shape} tape holds one node`);
      return list.map((s) => {
        if (typeof s !== "string")
          throw new ConfigError("tape_shape", `tape${where}: a node is a string`);
        return parseNode(s);
      });
    };
    const tape = new Tape(shape, new Map());
    if (isIndexed(shape)) {
      if (
        initial !== undefined &&
        (typeof initial !== "object" || Array.isArray(initial) || !initial)
      )
        throw new ConfigError("tape_shape", `tape: a ${shape} tape is a map of keys`);
      for (const [k, v] of Object.entries(initial ?? {})) {
        const list = nodes(v, `.${k}`);
        tape.set(k, list);
      }
    } else {
      const list = nodes(initial, "");
      tape.set(null, list);
    }
    return tape;
  }

  /** Every (key, state), ordered by key then state text: the eligibility scan's order (§6.2). */
  entries(): TapeEntry[] {
    const out: TapeEntry[] = [];
    for (const [key, nodes] of this.keys)
      for (const state of nodes) out.push({ key, state, text: nodeText(state) });
    return out.sort((a, b) => compareText(a.key ?? "", b.key ?? "") || compareText(a.text, b.text));
  }

  get size(): number {
    let n = 0;
    for (const nodes of this.keys.values()) n += nodes.length;
    return n;
  }

  nodes(key: TapeKey): readonly Node[] {
    return this.keys.get(key) ?? [];
  }

  /** A key's new nodes; duplicates (by text) are kept once; a single shape keeps the last one. */
  set(key: TapeKey, nodes: readonly Node[]): void {
    const seen = new Set<string>();
    let list = nodes.filter((n) => {
      const t = nodeText(n);
      return seen.has(t) ? false : (seen.add(t), true);
    });
    if (isSingle(this.shape) && list.length > 1) list = list.slice(-1);
    if (list.length) this.keys.set(key, list);
    else this.keys.delete(key);
  }

  copy(): Tape {
    return new Tape(this.shape, new Map([...this.keys].map(([k, v]) => [k, [...v]])));
  }

  /** The tape as its shape writes it, keys in their original form, sorted. */
  value(): TapeValue {
    const texts = (key: TapeKey) => (this.keys.get(key) ?? []).map(nodeText);
    if (!isIndexed(this.shape)) {
      const list = texts(null);
      return this.shape === "single" ? (list[0] ?? null) : list;
    }
    const out: Record<string, unknown> = {};
    for (const key of [...this.keys.keys()].sort((a, b) => compareText(a ?? "", b ?? ""))) {
      const list = texts(key);
      out[key ?? ""] = this.shape === "index-single" ? list[0] : list;
    }
    return out;
  }

  /** What changed from `before` to this tape, key by key (sorted), nodes sorted. */
  deltaFrom(before: Tape): TapeDelta[] {
    const keys = new Set<TapeKey>([...before.keys.keys(), ...this.keys.keys()]);
    const out: TapeDelta[] = [];
    for (const key of [...keys].sort((a, b) => compareText(a ?? "", b ?? ""))) {
      const old = new Set(before.nodes(key).map(nodeText));
      const now = new Set(this.nodes(key).map(nodeText));
      const added = [...now].filter((t) => !old.has(t)).sort(compareText);
      const removed = [...old].filter((t) => !now.has(t)).sort(compareText);
      if (added.length || removed.length) out.push({ key, added, removed });
    }
    return out;
  }
}
