/**
 * The route parser (seed 003 §3.1). Whitespace (Unicode's White_Space) is ignored anywhere, as the seed says, so it is
 * removed first (`i dle` reads as `idle`); errors give the column in the string as written.
 *
 *   Route  := Object | Arrow          Object := List
 *   Arrow  := List? ("--[" List? "]-->" | "-->") List?
 *   List   := Token ("," Token)*      Token  := Identifier | /all | /oneof(List) | /not(List)
 *
 * `-->` is shorthand for `--[]-->` (an arrow with no label); an object route needs one node.
 */
import { ConfigError } from "../core/errors.js";
import type { Node } from "./node.js";
import type { Route } from "./route.js";

/** A route that does not parse; `column` is 1-based in the route string as written. */
export class RouteSyntaxError extends ConfigError {
  override readonly name: string = "RouteSyntaxError";
  constructor(
    readonly route: string,
    readonly column: number,
    readonly reason: string,
  ) {
    super("route_syntax", `route ${JSON.stringify(route)}: col ${column}: ${reason}`);
  }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
/** Unicode's White_Space (NEL and NBSP included); not JavaScript's `\s`, which also takes U+FEFF. */
const WHITE_SPACE = /^\p{White_Space}$/u;

class Reader {
  private readonly text: string;
  /** For each character of `text`, its index in the original string. */
  private readonly at: number[] = [];
  pos = 0;

  constructor(readonly original: string) {
    let text = "";
    for (let i = 0; i < original.length; i++) {
      if (WHITE_SPACE.test(original[i]!)) continue;
      text += original[i];
      this.at.push(i);
    }
    this.text = text;
  }

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  eat(s: string): boolean {
    if (!this.peek(s)) return false;
    this.pos += s.length;
    return true;
  }

  ident(): string | undefined {
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  fail(reason: string): never {
    const col = (this.at[this.pos] ?? this.original.length) + 1;
    throw new RouteSyntaxError(this.original, col, reason);
  }

  found(): string {
    return this.done ? "the end" : JSON.stringify(this.text.slice(this.pos, this.pos + 8));
  }
}

/** Ends a list: the arrow's parts, a closing parenthesis, the end of the route. */
const ENDS = ["--[", "]-->", "-->", ")"];

function token(r: Reader): Node {
  if (r.eat("/all")) {
    if (r.peek("(")) r.fail("/all takes no list");
    return { kind: "all" };
  }
  for (const kind of ["oneof", "not"] as const) {
    if (r.eat(`/${kind}(`)) {
      const items = list(r, true);
      if (!r.eat(")")) r.fail(`expected "," or ")" in /${kind}(...), found ${r.found()}`);
      return { kind, items };
    }
  }
  if (r.peek("/"))
    r.fail(`unknown token form at ${r.found()} (expected /all, /oneof(...), /not(...))`);
  const name = r.ident();
  if (name === undefined) {
    if (r.done || r.peek(",") || ENDS.some((e) => r.peek(e))) r.fail("empty token");
    r.fail(`expected an identifier, found ${r.found()}`);
  }
  return { kind: "plain", name };
}

/** A list; when not `required`, an empty list (ε) before an arrow part or the end. */
function list(r: Reader, required: boolean): Node[] {
  if (!required && (r.done || ENDS.some((e) => r.peek(e)))) return [];
  const nodes = [token(r)];
  while (r.eat(",")) nodes.push(token(r));
  return nodes;
}

/** Parses a route; throws RouteSyntaxError with the column of the first problem. */
export function parseRoute(text: string): Route {
  const r = new Reader(text);
  if (r.done) r.fail("empty route");
  const source = list(r, false);
  if (r.done) return { kind: "object", nodes: source };
  let label: Node[] = [];
  if (r.eat("--[")) {
    label = list(r, false);
    if (!r.eat("]-->")) r.fail(`expected "," or "]-->", found ${r.found()}`);
  } else if (!r.eat("-->")) {
    r.fail(`expected "," "--[" or "-->", found ${r.found()}`);
  }
  const target = list(r, false);
  if (!r.done) r.fail(`expected "," or the end of the route, found ${r.found()}`);
  return { kind: "arrow", source, label, target };
}

/** Parses one node (a tape state, an item of a list); throws RouteSyntaxError. */
export function parseNode(text: string): Node {
  const r = new Reader(text);
  const node = token(r);
  if (!r.done) r.fail(`expected one node, found ${r.found()} after it`);
  return node;
}
