/** A small seeded generator of routes, for property tests (no dependency). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = "ABCXYZabcxyz_";
const REST = FIRST + "0123456789";
const SPACE = ["", "", " ", "  ", "\t", "\n"];

export class RouteGen {
  constructor(private readonly next: () => number) {}

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  ws(): string {
    return this.pick(SPACE);
  }

  ident(): string {
    let s = this.pick([...FIRST]);
    const n = this.int(6);
    for (let i = 0; i < n; i++) s += this.pick([...REST]);
    return s;
  }

  token(depth = 0): string {
    const r = this.int(10);
    if (r < 6 || depth > 2) return this.ident();
    if (r < 7) return "/all";
    const name = r < 9 ? "/oneof(" : "/not(";
    return `${name}${this.ws()}${this.list(depth + 1, 1)}${this.ws()})`;
  }

  /** One or more tokens, commas with random whitespace around them. */
  list(depth = 0, min = 1): string {
    const n = min + this.int(3);
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(this.ws() + this.token(depth) + this.ws());
    return items.join(",");
  }

  maybeList(): string {
    return this.int(3) === 0 ? this.ws() : this.list();
  }

  /** An object route or an arrow route in either arrow style, whitespace sprinkled. */
  route(): string {
    const kind = this.int(3);
    if (kind === 0) return this.list();
    const arrow = kind === 1 ? `--[${this.maybeList()}]-->` : "-->";
    return `${this.maybeList()}${this.ws()}${arrow}${this.ws()}${this.maybeList()}`;
  }
}
