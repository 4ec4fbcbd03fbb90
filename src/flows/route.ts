/**
 * Routes (seed 003 §3): an object route (one or more nodes) or an arrow route with source,
 * label and target lists, each possibly empty. One canonical string form, `routeText`.
 */
import { accepts, nodeText, overlaps, type Node } from "./node.js";

export interface ObjectRoute {
  readonly kind: "object";
  readonly nodes: readonly Node[];
}

export interface ArrowRoute {
  readonly kind: "arrow";
  readonly source: readonly Node[];
  readonly label: readonly Node[];
  readonly target: readonly Node[];
}

export type Route = ObjectRoute | ArrowRoute;

export type Action = "TEST" | "STAY" | "MOVE";
export const ACTIONS: readonly Action[] = ["TEST", "STAY", "MOVE"];

const list = (nodes: readonly Node[]) => nodes.map(nodeText).join(", ");

/**
 * The canonical form (§3.2): the bracket arrow style only, `A, B --[f, g]--> X, Y`; an empty part
 * is left out with its space, so `--[]--> X` is initial and `A --[]-->` is terminal. Node order
 * is kept as written (a route is read left to right; order never changes its meaning).
 */
export function routeText(route: Route): string {
  if (route.kind === "object") return list(route.nodes);
  return [list(route.source), `--[${list(route.label)}]-->`, list(route.target)]
    .filter((p) => p !== "")
    .join(" ");
}

/** The gates a tape state must pass for the route's receiver to be eligible (§6.2). */
export function gatesOf(route: Route): readonly Node[] {
  return route.kind === "object" ? route.nodes : route.source;
}

/** An arrow route with an empty source: eligible exactly once per cycle (§6.2). */
export function isInitial(route: Route): boolean {
  return route.kind === "arrow" && route.source.length === 0;
}

/** Every node a route names, in order: source (or object nodes), label, target. */
export function nodesOf(route: Route): readonly Node[] {
  return route.kind === "object" ? route.nodes : [...route.source, ...route.label, ...route.target];
}

/**
 * The nodes an action activates (§6.3 table). Source nodes are the nodes the tape state passed:
 * a plain source node as written, a gate that is not plain (`/all`, `/oneof`, `/not`) as the
 * `state` it accepted — so STAY on `/all` keeps the state, it never writes `/all` to the tape.
 */
export function activated(route: Route, action: Action, state?: Node | null): readonly Node[] {
  const source = (nodes: readonly Node[]) =>
    nodes.flatMap((n) => (n.kind === "plain" ? [n] : state && accepts(n, state) ? [state] : []));
  if (route.kind === "object") return action === "TEST" ? [] : source(route.nodes);
  switch (action) {
    case "TEST":
      return route.label;
    case "STAY":
      return source(route.source);
    case "MOVE":
      return [...route.label, ...route.target];
  }
}

/**
 * Sender route compatibility (§6.4, our reading — FLOWS.md "Decisions where the seed leaves room", step 5): every node the
 * sender route names meets some node of the receiver's route — some plain state passes both
 * (`overlaps`: for plain nodes, one accepts the other; `/oneof(A,B)` meets itself and `/oneof(B)`).
 * So every route is compatible with itself. A route that names no node (`--[]-->`) is compatible
 * with every receiver.
 */
export function compatible(sender: Route, receiver: Route): boolean {
  const theirs = nodesOf(receiver);
  return nodesOf(sender).every((s) => theirs.some((r) => overlaps(s, r)));
}
