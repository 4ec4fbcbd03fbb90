/**
 * `mcp: { name, command, args, env, cwd, tools, timeout_ms }` (a server on stdio) or
 * `mcp: { name, url, headers, tools, timeout_ms }` (streamable HTTP) as a spell writes it → one gate per
 * listed tool, `NAME_TOOL`, whose description and parameters are the server's (learnt when a
 * cast first needs them: `spell validate` starts nothing).
 */
import { isAbsolute, resolve } from "node:path";
import { ConfigError, errorMessage } from "../../core/errors.js";
import type { Redactor } from "../../core/redact.js";
import type { Gate, GateContext, ParameterSchema } from "../gate.js";
import { parseTarget } from "./fetch-allow.js";
import { McpServer, type McpServerConfig } from "./mcp-server.js";
import { positiveSetting } from "./positive-setting.js";

export const MCP_DEPENDENCIES = [
  "name",
  "command",
  "url",
  "headers",
  "args",
  "env",
  "cwd",
  "tools",
  "timeout_ms",
] as const;

const DEFAULT_TIMEOUT_MS = 60_000;
/** A result longer than this (as text, or as JSON) is cut: one call cannot flood the context. */
export const MCP_MAX_RESULT_CHARS = 100_000;
/** A tool's description (in every request to the LLM) and an error are cut shorter. */
const MAX_DESCRIPTION_CHARS = 4_000;
const MAX_ERROR_CHARS = 10_000;
const NAME = /^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$/;

const bad = (message: string): ConfigError => new ConfigError("bad_dependency", `mcp: ${message}`);

const strings = (value: unknown, what: string): string[] => {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw bad(`${what} is a list of strings`);
  return value as string[];
};

/** The declaration, checked: every mistake is an error of the spell at the gate's line. */
export function mcpConfigOf(deps: Readonly<Record<string, unknown>>, baseDir: string) {
  const { name, command, url, args = [], env = {}, cwd = ".", tools } = deps;
  if (typeof name !== "string" || !NAME.test(name))
    throw bad(
      "name is required: a word naming the server, e.g. name: notes (its gates are notes_TOOL)",
    );
  if (url !== undefined && command !== undefined)
    throw bad("give command (a server on stdio) or url (streamable HTTP), not both");
  const remote = url === undefined ? undefined : remoteOf(url, deps["headers"]);
  if (!remote && (typeof command !== "string" || command === ""))
    throw bad(
      "command is required: the program that runs the server, e.g. command: node (or url: for a server over HTTP)",
    );
  if (env === null || typeof env !== "object" || Array.isArray(env))
    throw bad("env maps variable names to values, e.g. { TOKEN: ${env:NOTES_TOKEN} }");
  const vars = Object.entries(env as Record<string, unknown>).map(([k, v]) => {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
      throw bad(`env.${k} is a string`);
    return [k, String(v)] as const;
  });
  if (typeof cwd !== "string") throw bad("cwd is a folder, relative to the spell");
  if (tools === undefined)
    throw bad("tools is required: the server's tools this circle may call, e.g. tools: [search]");
  const list = strings(tools, "tools");
  if (list.length === 0) throw bad("tools lists at least one of the server's tools");
  const timeout = positiveSetting(deps, "timeout_ms", bad) ?? DEFAULT_TIMEOUT_MS;
  const config: McpServerConfig = {
    name,
    command: typeof command === "string" ? command : "",
    ...(remote ?? {}),
    args: strings(args, "args"),
    env: Object.fromEntries(vars),
    cwd: isAbsolute(cwd) ? cwd : resolve(baseDir, cwd),
    tools: list,
    timeoutMs: timeout,
  };
  return config;
}

/**
 * `url:` and `headers:` of a server over streamable HTTP. As for fetch (parseTarget): http or
 * https only, no credentials in the URL (put a token in a header, from `${env:…}`: the loader
 * redacts it everywhere); the transport follows no redirect, so the server written is the only
 * one reached.
 */
function remoteOf(url: unknown, headers: unknown): Pick<McpServerConfig, "url" | "headers"> {
  let parsed: URL;
  try {
    parsed = parseTarget(url, undefined, "mcp");
  } catch (err) {
    throw bad(`${errorMessage(err).replace(/^mcp: /, "")}, e.g. url: http://127.0.0.1:8808/mcp`);
  }
  if (
    headers !== undefined &&
    (headers === null || typeof headers !== "object" || Array.isArray(headers))
  )
    throw bad("headers maps header names to values, e.g. { Authorization: Bearer ${env:TOKEN} }");
  const pairs = Object.entries((headers ?? {}) as Record<string, unknown>).map(([k, v]) => {
    if (typeof v !== "string") throw bad(`headers.${k} is a string`);
    return [k, v] as const;
  });
  return { url: parsed.href, headers: Object.fromEntries(pairs) };
}

/** A tool's gate name: `notes_search`; characters a JS name cannot hold become `_`. */
export const mcpGateName = (server: string, tool: string): string =>
  `${server}_${tool.replace(/[^A-Za-z0-9_]/g, "_")}`;

export interface McpGateOptions {
  /** Secrets (`${env:…}` values) never leave in a result or an error. */
  redactor?: Redactor | undefined;
}

/** One gate per allowed tool, all on one server process. */
export function mcpGates(config: McpServerConfig, options: McpGateOptions = {}): Gate[] {
  const server = new McpServer(config);
  const redact = (text: string): string => options.redactor?.redact(text) ?? text;
  const names = new Map<string, string>();
  for (const tool of config.tools) {
    const name = mcpGateName(config.name, tool);
    const other = names.get(name);
    if (other !== undefined)
      throw bad(
        `tools ${JSON.stringify(other)} and ${JSON.stringify(tool)} would both be gate ${name}`,
      );
    names.set(name, tool);
  }
  return [...names].map(([name, tool]) => toolGate(server, name, tool, redact));
}

function toolGate(
  server: McpServer,
  name: string,
  tool: string,
  redact: (text: string) => string,
): Gate {
  const of = `tool ${tool} of the MCP server ${server.config.name}`;
  return {
    name,
    get description() {
      const listed = server.tools?.get(tool);
      if (listed)
        return listed.description
          ? `${cut(redact(listed.description), MAX_DESCRIPTION_CHARS)} (${of})`
          : `The ${of}.`;
      if (server.tools) return `The ${of}, which the server does not offer.`;
      return `The ${of}.`;
    },
    get parameters(): ParameterSchema {
      const schema = server.tools?.get(tool)?.inputSchema;
      if (!schema) return { type: "object" };
      const { $schema: _drop, ...rest } = schema;
      return redactDeep({ ...rest, type: "object" }, redact) as ParameterSchema;
    },
    prepare: () => server.prepare(),
    hold: () => server.hold(),
    execute: (args: Record<string, unknown>, ctx: GateContext) =>
      callTool(server, tool, args, ctx.signal).then(
        (value) => limited(redactDeep(value, redact)),
        (err: unknown) => {
          throw new Error(cut(redact(`${name}: ${errorMessage(err)}`), MAX_ERROR_CHARS));
        },
      ),
  };
}

async function callTool(
  server: McpServer,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  await server.prepare();
  if (!server.tools) throw new Error(server.failure ?? "the server's tools are not known");
  if (!server.tools.has(tool)) {
    const offered = [...server.tools.keys()].join(", ") || "none";
    throw new Error(
      `the MCP server ${server.config.name} offers no tool ${JSON.stringify(tool)}; it offers: ${offered}`,
    );
  }
  const result = await server.call(tool, args, signal);
  const text = renderContent(result.content);
  if (result.isError === true) throw new Error(text || "the tool failed");
  // Structured output is a value the code medium can use as is; else the text.
  return result.structuredContent ?? text;
}

/** A result cut to the limit (after redaction, so no secret is cut in two): JSON when too big. */
function limited(value: unknown): unknown {
  if (typeof value === "string") return cut(value, MCP_MAX_RESULT_CHARS);
  const json = JSON.stringify(value);
  return json.length <= MCP_MAX_RESULT_CHARS ? value : cut(json, MCP_MAX_RESULT_CHARS);
}

/** Text no longer than `max` characters, with a note when it was longer. */
function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n[cut at ${max} of ${text.length} characters]`;
}

/** Every string in a value, keys too, redacted (a structured result or a schema carries text). */
function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]),
    );
  return value;
}

/** An MCP result's content as text: text parts as they are, the others named. */
function renderContent(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((part: Record<string, unknown>) => {
      if (part["type"] === "text") return String(part["text"]);
      if (part["type"] === "resource") return JSON.stringify(part["resource"]);
      const mime = typeof part["mimeType"] === "string" ? ` ${part["mimeType"]}` : "";
      return `[${String(part["type"])}${mime}]`;
    })
    .join("\n");
}
