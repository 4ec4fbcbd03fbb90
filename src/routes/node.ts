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
