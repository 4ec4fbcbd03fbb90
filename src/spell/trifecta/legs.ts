/**
 * The three legs of the lethal trifecta (spec §4.8), read off one circle as written: private
 * data, untrusted input, a way out. Gates are classified by name and configuration only — a
 * gate the runtime does not have yet (fetch, an MCP server's tools) is classified all the same,
 * so the check holds the day it lands.
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { Path } from "../source.js";
import type { Locate } from "../validate.js";

export type Leg = "private_data" | "untrusted_input" | "way_out";

/** One thing in a circle that makes one leg, where it is written and how to remove it. */
export interface Exposure {
  leg: Leg;
  /** The gate (or `circle.state`, `bash`) as the warning names it. */
  gate: string;
  /** What it does that makes the leg, in a few words. */
  why: string;
  at: { file: string; line: number; col: number };
  /** How to remove this leg without removing the gate, when there is a way. */
  remedy?: string;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** One circle as written, and where its file is. */
export interface CircleView {
  circle: Obj;
  /** The file as it is displayed (positions name it). */
  file: string;
  /** The spell's folder: roots resolve against it. */
  baseDir: string;
  locate: Locate;
}

/** A gate item in any of its spellings → its name and configuration. */
export function gateParts(item: unknown): { name: string; config: Obj } | undefined {
  if (typeof item === "string") return { name: item, config: {} };
  if (!isObj(item)) return undefined;
  if (typeof item["name"] === "string") {
    const { name, dependencies, description: _d, parameters: _p, behavior: _b, ...rest } = item;
    return {
      name: name,
      config: { ...rest, ...(isObj(dependencies) ? dependencies : {}) },
    };
  }
  const entries = Object.entries(item);
  if (entries.length !== 1) return undefined;
  const [name, config] = entries[0]!;
  return { name, config: isObj(config) ? config : {} };
}

const FILE_READERS = new Set(["read", "read_ephemeral", "list_dir", "search"]);
const WEB = /^(fetch|http|http_get|browse|browser|browser_[a-z_]+|web|web_[a-z_]+|[a-z_]+_fetch)$/;
const MCP = /^mcp($|[_.:-])/;

/** Where a root is, shown relative to the spell's folder. */
const shown = (root: string, baseDir: string): string => {
  const rel = relative(baseDir, root);
  return rel === "" ? "." : rel;
};

const rootOf = (config: Obj, baseDir: string): string => {
  const root = typeof config["root"] === "string" ? config["root"] : ".";
  return isAbsolute(root) ? root : resolve(baseDir, root);
};

/**
 * A place others read: anywhere outside the spell's own folder (a shared folder, /tmp, another
 * project). What the spell writes inside its folder stays with the spell.
 */
export function isSharedPlace(root: string, baseDir: string): boolean {
  const rel = relative(baseDir, root);
  return rel.startsWith("..") || isAbsolute(rel);
}

/**
 * A fetch allowlist is wide when it is absent or any entry has a wildcard: the entity can then
 * put what it read into a URL of a host someone else controls.
 */
export function isWideAllowlist(config: Obj): boolean {
  const allow = config["allow"] ?? config["allowlist"] ?? config["hosts"];
  if (allow === undefined) return true;
  const list = Array.isArray(allow) ? allow : [allow];
  return list.some((entry) => typeof entry !== "string" || entry.includes("*") || entry === "all");
}

/** Our `fetch` and `browser` gates deny every host when their allow list is missing or empty (gates/fetch-allow.ts). */
function reachesNoHost(config: Obj): boolean {
  const allow = config["allow"] ?? config["allowlist"] ?? config["hosts"];
  return allow === undefined || (Array.isArray(allow) && allow.length === 0);
}

/** The legs one gate makes; delegation gates are walked apart (check.ts). */
export function gateExposures(name: string, config: Obj, path: Path, view: CircleView): Exposure[] {
  // The gate's position, filled in below only when the gate makes a leg: most gates make none,
  // and a position may cost a parse of the spell's YAML document (source.ts).
  const at = {} as Exposure["at"];
  const out = gateLegs(name, config, view, at);
  if (out.length > 0) Object.assign(at, view.locate(path));
  return out;
}

function gateLegs(name: string, config: Obj, view: CircleView, at: Exposure["at"]): Exposure[] {
  const out: Exposure[] = [];
  const root = () => rootOf(config, view.baseDir);
  if (FILE_READERS.has(name))
    out.push({
      leg: "private_data",
      gate: name,
      why: `reads files under ${shown(root(), view.baseDir)}`,
      at,
    });
  if (name === "write") {
    out.push({
      leg: "private_data",
      gate: name,
      why: `reads and writes files under ${shown(root(), view.baseDir)}`,
      at,
    });
    if (config["writable"] === true && isSharedPlace(root(), view.baseDir))
      out.push({
        leg: "way_out",
        gate: name,
        why: `writes to ${root()}, a place others read`,
        at,
        remedy: "give write a root inside the spell's folder",
      });
  }
  if ((name === "fetch" || name === "browser") && reachesNoHost(config)) return out;
  if (WEB.test(name)) {
    out.push({ leg: "untrusted_input", gate: name, why: "brings in content from the web", at });
    if (isWideAllowlist(config))
      out.push({
        leg: "way_out",
        gate: name,
        why: "its allow list lets it reach any host",
        at,
        remedy: `narrow ${name}'s allow to the hosts it needs`,
      });
  }
  if (MCP.test(name)) out.push(mcpExposure(name, config, at));
  if (name === "a2a") out.push(...a2aExposures(config, at));
  return out;
}

/**
 * A remote agent (the `a2a` gate) answers with what it likes: untrusted input. The entity's
 * intent goes to it; with a wildcard in the allow list, it can go to hosts someone else controls.
 */
function a2aExposures(config: Obj, at: Exposure["at"]): Exposure[] {
  const agent = typeof config["name"] === "string" ? config["name"] : "agent";
  const url = typeof config["url"] === "string" ? ` at ${config["url"]}` : "";
  const gate = `a2a ${agent}`;
  const out: Exposure[] = [
    { leg: "untrusted_input", gate, why: `brings in what the remote agent${url} answers`, at },
  ];
  if (isWideAllowlist(config))
    out.push({
      leg: "way_out",
      gate,
      why: "its allow list lets it reach any host",
      at,
      remedy: `narrow ${gate}'s allow to the agent's host`,
    });
  return out;
}

/**
 * An MCP server's tools answer with what an outside process says (often content from the web or
 * another service): untrusted input. Our `mcp` gate names its server and tools in the warning.
 */
function mcpExposure(name: string, config: Obj, at: Exposure["at"]): Exposure {
  const server = typeof config["name"] === "string" ? config["name"] : undefined;
  if (name !== "mcp" || server === undefined)
    return { leg: "untrusted_input", gate: name, why: "brings in an MCP server's content", at };
  const tools = Array.isArray(config["tools"]) ? config["tools"].map(String).join(", ") : "";
  const command = typeof config["command"] === "string" ? ` (${config["command"]})` : "";
  return {
    leg: "untrusted_input",
    gate: `mcp ${server}`,
    why: `brings in what the MCP server ${server}${command} answers${tools ? ` to ${tools}` : ""}`,
    at,
    remedy: `keep mcp ${server} in a child circle that has no private data`,
  };
}

/** The legs the circle itself makes: its state, and a bash medium's workspace and network. */
export function circleExposures(view: CircleView): Exposure[] {
  const { circle } = view;
  const out: Exposure[] = [];
  if (isObj(circle["state"]) && Object.keys(circle["state"]).length > 0)
    out.push({
      leg: "private_data",
      gate: "circle.state",
      why: "data handed to the entity",
      at: view.locate(["circle", "state"]),
    });
  const medium = circle["medium"] ?? circle["type"] ?? circle["circle_type"];
  if (medium !== "bash" && medium !== "shell") return out;
  const root = rootOf(circle, view.baseDir);
  out.push({
    leg: "private_data",
    gate: "bash",
    why: `commands read the workspace ${shown(root, view.baseDir)}`,
    at: view.locate(["circle", "medium"]),
  });
  if (circle["sandbox"] === "passthrough") {
    const at = view.locate(["circle", "sandbox"]);
    const remedy = "run bash in bubblewrap (drop sandbox: passthrough), which has no network";
    out.push({
      leg: "untrusted_input",
      gate: "bash",
      why: "commands reach the network (sandbox: passthrough)",
      at,
    });
    out.push({
      leg: "way_out",
      gate: "bash",
      why: "commands reach the network (sandbox: passthrough)",
      at,
      remedy,
    });
  }
  return out;
}
