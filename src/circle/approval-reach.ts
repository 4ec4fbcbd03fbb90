/**
 * What a gate call reaches, as `unless:` globs see it (issue 38): a URL as the server receives
 * it, a path with its `.` and `..` resolved. A glob matched on the text alone let
 * `notes/../NOT-A-NOTE.txt` through `notes/*` and `…/repos/acme/../../user/keys` through
 * `…/repos/acme/*`. Whatever cannot be told for sure is undefined: the call then asks.
 */

/**
 * A URL as it is reached: parsed as the WHATWG URL standard says (what `fetch` sends: scheme and
 * host lower-cased, default port dropped, `\` read as `/`, dot segments — `%2e%2e` too —
 * removed), its path percent-decoded once, its fragment dropped (never sent). A path that still
 * holds a dot segment or a `\` once decoded (`..%2f`, `%5c`) reads differently on different
 * servers: undefined. Userinfo stays, so a URL that carries it matches no glob written without.
 */
export function reachedUrl(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const path = decodeOnce(url.pathname);
  if (path === undefined || path.includes("\\") || hasDotSegment(path.split("/"))) return undefined;
  const user = url.username || url.password ? `${url.username}:${url.password}@` : "";
  const authority = url.host === "" ? "" : `//${user}${url.host}`;
  return `${url.protocol}${authority}${path}${url.search}`;
}

/**
 * A path with `.` and `..` resolved by its text alone (`/` and `\` both separate names), for a
 * gate that cannot say where its paths lead (an MCP tool's `path`). One that climbs above its
 * start (`../x`, `a/../../x`) is undefined. File gates say more: `FsRoot.reached` follows links.
 */
export function reachedPathText(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const absolute = text.startsWith("/");
  const out: string[] = [];
  for (const name of text.split(/[\\/]+/)) {
    if (name === "" || name === ".") continue;
    if (name !== "..") out.push(name);
    else if (out.pop() === undefined) return undefined;
  }
  return (absolute ? "/" : "") + out.join("/");
}

/** The default reach of an argument a gate does not describe itself: `url`, `path`, else the text. */
export function reachedByName(name: string, value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  if (name === "url") return reachedUrl(value);
  if (name === "path") return reachedPathText(value);
  return value;
}

const hasDotSegment = (names: string[]): boolean => names.some((n) => n === "." || n === "..");

/** `%XX` decoded once as UTF-8 bytes; the rest as it is. Undefined for bytes that are not UTF-8. */
function decodeOnce(path: string): string | undefined {
  if (!path.includes("%")) return path;
  const bytes: number[] = [];
  for (let i = 0; i < path.length;) {
    const hex = path.slice(i + 1, i + 3);
    if (path[i] === "%" && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      const ch = String.fromCodePoint(path.codePointAt(i)!);
      bytes.push(...Buffer.from(ch, "utf8"));
      i += ch.length;
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}
