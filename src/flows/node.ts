/**
 * Nodes: the state tokens of routes and tapes (seed 003 §3.1, §4). A node is plain (`idle`),
 * `/all`, `/oneof(...)` or `/not(...)`; lists nest, as the grammar allows.
 */
export type Node =
  | { readonly kind: "plain"; readonly name: string }
  | { readonly kind: "all" }
  | { readonly kind: "oneof"; readonly items: readonly Node[] }
  | { readonly kind: "not"; readonly items: readonly Node[] };

export const ALL: Node = Object.freeze({ kind: "all" });

export function plain(name: string): Node {
  return { kind: "plain", name };
}

/** The canonical text of one node: no whitespace, items comma-separated in written order. */
export function nodeText(node: Node): string {
  switch (node.kind) {
    case "plain":
      return node.name;
    case "all":
      return "/all";
    case "oneof":
      return `/oneof(${node.items.map(nodeText).join(",")})`;
    case "not":
      return `/not(${node.items.map(nodeText).join(",")})`;
  }
}

/**
 * accepts(gate, state) (§4). Only `/all` accepts a state that is not plain: `A` matches only the
 * same identifier, `/oneof(L)` a plain node some item of L accepts, `/not(L)` a plain node no
 * item of L accepts. With identifier lists, that is set membership exactly as §4 says; a nested
 * token in a list (which the grammar allows) is read by the same predicate.
 */
export function accepts(gate: Node, state: Node): boolean {
  switch (gate.kind) {
    case "all":
      return true;
    case "plain":
      return state.kind === "plain" && state.name === gate.name;
    case "oneof":
      return state.kind === "plain" && gate.items.some((g) => accepts(g, state));
    case "not":
      return state.kind === "plain" && !gate.items.some((g) => accepts(g, state));
  }
}

/**
 * The plain states a node accepts, as a set: finite (`in`), or everything but a finite set (`out`).
 * Identifiers are unbounded, so two `out` sets always share a state.
 */
type Accepted = { readonly in: ReadonlySet<string> } | { readonly out: ReadonlySet<string> };

function acceptedBy(node: Node): Accepted {
  switch (node.kind) {
    case "plain":
      return { in: new Set([node.name]) };
    case "all":
      return { out: new Set() };
    case "oneof":
      return node.items.map(acceptedBy).reduce(union, { in: new Set<string>() });
    case "not":
      return complement(node.items.map(acceptedBy).reduce(union, { in: new Set<string>() }));
  }
}

function complement(a: Accepted): Accepted {
  return "in" in a ? { out: a.in } : { in: a.out };
}

function union(a: Accepted, b: Accepted): Accepted {
  if ("in" in a && "in" in b) return { in: new Set([...a.in, ...b.in]) };
  if ("out" in a && "out" in b) return { out: new Set([...a.out].filter((x) => b.out.has(x))) };
  const [fin, cof] =
    "in" in a
      ? [a.in, (b as { out: ReadonlySet<string> }).out]
      : [(b as { in: ReadonlySet<string> }).in, a.out];
  return { out: new Set([...cof].filter((x) => !fin.has(x))) };
}

/**
 * Whether some plain state passes both nodes (sender compatibility, FLOWS.md): `A` meets
 * `/oneof(A,B)`, `/oneof(B,C)` meets `/oneof(A,B)` (B), `/not(A)` meets `/not(B)` (any third
 * name), `/not(A,B)` never meets `/oneof(A,B)`. Two nodes written alike always meet, so a route
 * is compatible with itself even when its gate accepts nothing (`/oneof()` cannot be written, but
 * `/not(/all)` can).
 */
export function overlaps(a: Node, b: Node): boolean {
  if (nodeText(a) === nodeText(b)) return true;
  const x = acceptedBy(a);
  const y = acceptedBy(b);
  if ("out" in x && "out" in y) return true;
  if ("in" in x && "in" in y) return [...x.in].some((n) => y.in.has(n));
  const [fin, cof] =
    "in" in x
      ? [x.in, (y as { out: ReadonlySet<string> }).out]
      : [(y as { in: ReadonlySet<string> }).in, x.out];
  return [...fin].some((n) => !cof.has(n));
}
