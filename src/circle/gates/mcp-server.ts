/**
 * One MCP server a spell declares, reached over stdio through the official SDK's client. The
 * SDK is imported on first use (`spell --help` and other spells load none of it); the process
 * starts when a cast needs it, its tools are listed once, and it stops when the last entity
 * holding it is disposed, or when this process exits — with every process it started, where it
 * runs in a pid namespace of its own (mcp-process.ts).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { errorMessage } from "../../core/errors.js";
import { serverSpawn } from "./mcp-process.js";

export interface McpServerConfig {
  /** The server's name in the spell: its gates are `NAME_TOOL`. */
  name: string;
  command: string;
  args: readonly string[];
  /** Added to the few variables every server gets (HOME, PATH, …): nothing else is passed on. */
  env: Readonly<Record<string, string>>;
  /** Absolute. */
  cwd: string;
  /** The allow list: the only tools that become gates. */
  tools: readonly string[];
  /** Starting (spawn and initialize), listing, and each call: longer is an error. */
  timeoutMs: number;
  /** A server over streamable HTTP instead of a process (command, args, env are then unused). */
  url?: string;
  /** Sent with each HTTP request (a token from `${env:…}`, redacted by the loader). */
  headers?: Readonly<Record<string, string>>;
}

/** A tool as the server lists it. */
export interface McpTool {
  description: string | undefined;
  inputSchema: Record<string, unknown>;
}

interface Live {
  client: Client;
  /** The server's process; null for a server over HTTP. */
  transport: StdioClientTransport | null;
  closed: boolean;
  /** The end of what the server wrote on stderr (whole, so a secret split across writes is
   * still one piece to redact), quoted in errors. */
  stderr: string;
}

type Sdk = {
  /** A client whose check of a tool's structured result against the server's `outputSchema`
   * matches the schema's patterns in linear time (a server's pattern cannot hold this process). */
  client: () => Client;
  StdioClientTransport: typeof StdioClientTransport;
};
let sdk: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/validation/ajv"),
    import("ajv"),
    import("../../core/linear-pattern.js"),
  ]).then(([c, s, v, a, l]) => {
    // The SDK's own validator (draft-07 ajv), its patterns on RE2; formats not checked.
    const ajv = new a.Ajv({
      strict: false,
      validateSchema: false,
      validateFormats: false,
      allErrors: true,
      ...l.LINEAR_AJV,
    });
    const jsonSchemaValidator = new v.AjvJsonSchemaValidator(ajv);
    return {
      client: () => new c.Client({ name: "spellbook", version: "0.1.0" }, { jsonSchemaValidator }),
      StdioClientTransport: s.StdioClientTransport,
    };
  }));

/** The client transport of a server over streamable HTTP: its headers, no redirect followed. */
async function httpTransport(url: string, headers: Readonly<Record<string, string>>) {
  const { StreamableHTTPClientTransport } =
    await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers }, redirect: "error" },
  });
}

/** Servers running in this process: killed at exit, whoever forgot to stop them. */
const running = new Set<StdioClientTransport>();
let exitHook = false;
function track(transport: StdioClientTransport): void {
  running.add(transport);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const t of running) {
      const pid = t.pid;
      if (pid === null) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  });
}

const STDERR_LINES = 5;
const STDERR_CHARS = 2000;
/** A tool list longer than this many pages is a server that never ends it. */
const MAX_LIST_PAGES = 100;

export class McpServer {
  /** The tools the server offers, once listed (listed once: the presentation of every cast). */
  tools: ReadonlyMap<string, McpTool> | null = null;
  /** Why the last start or listing failed, while the tools are not known. */
  failure: string | null = null;
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  private listing: Promise<boolean> | null = null;
  private holders = 0;

  constructor(readonly config: McpServerConfig) {}

  /** The server's tools, listed on first use; true when they were learnt by this call. */
  prepare(): Promise<boolean> {
    if (this.tools) return Promise.resolve(false);
    return (this.listing ??= this.list().finally(() => {
      this.listing = null;
      if (this.holders === 0) void this.stop();
    }));
  }

  hold(): () => void {
    this.holders++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.holders === 0) void this.stop();
    };
  }

  /** Calls one tool; the result as the server gave it. Rejects with a message for the entity. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    const live = await this.connect();
    try {
      return await live.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.config.timeoutMs,
      });
    } catch (err) {
      if (!live.closed) throw err;
      await settle();
      throw new Error(`MCP server ${this.config.name} exited during the call${said(live)}`);
    }
  }

  async stop(): Promise<void> {
    const live = this.live;
    this.live = null;
    if (!live) return;
    live.closed = true;
    await live.client.close().catch(() => undefined);
    if (live.transport) running.delete(live.transport);
  }

  /** The pid of the running server (tests check it is gone), or null. */
  get pid(): number | null {
    return this.live && !this.live.closed ? (this.live.transport?.pid ?? null) : null;
  }

  private async list(): Promise<boolean> {
    try {
      const live = await this.connect();
      const tools = new Map<string, McpTool>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        if (++pages > MAX_LIST_PAGES)
          throw new Error(`its tool list did not end after ${MAX_LIST_PAGES} pages`);
        const page = await live.client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.config.timeoutMs,
        });
        for (const t of page.tools)
          tools.set(t.name, { description: t.description, inputSchema: t.inputSchema });
        cursor = page.nextCursor;
      } while (cursor);
      this.tools = tools;
      this.failure = null;
      return true;
    } catch (err) {
      this.failure = errorMessage(err);
      return false;
    }
  }

  private async connect(): Promise<Live> {
    if (this.live && !this.live.closed) return this.live;
    this.starting ??= this.start().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startRemote(url: string): Promise<Live> {
    const live = await remote(this.config, url);
    live.client.onclose = () => {
      live.closed = true;
      if (this.live === live) this.live = null;
    };
    this.live = live;
    return live;
  }

  private async start(): Promise<Live> {
    if (this.config.url !== undefined) return this.startRemote(this.config.url);
    const { client: newClient, StdioClientTransport } = await loadSdk();
    const { command, args, env, cwd, name, timeoutMs } = this.config;
    const spawn = serverSpawn(command, args, cwd);
    const transport = new StdioClientTransport({
      command: spawn.command,
      args: spawn.args,
      env: { ...env },
      cwd,
      stderr: "pipe",
    });
    const client = newClient();
    const live: Live = { client, transport, closed: false, stderr: "" };
    transport.stderr?.on("data", (chunk: Buffer) => {
      const all = live.stderr + String(chunk);
      // Cut at a line's start, never inside a line (nor a secret in it).
      live.stderr = all.length <= STDERR_CHARS ? all : after(all.slice(-STDERR_CHARS), "\n");
    });
    client.onclose = () => {
      live.closed = true;
      running.delete(transport);
      if (this.live === live) this.live = null;
    };
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (err) {
      live.closed = true;
      await client.close().catch(() => undefined);
      await settle();
      const why = errorMessage(err);
      throw new Error(`MCP server ${name} did not start (${command}): ${why}${said(live)}`);
    }
    track(transport);
    this.live = live;
    return live;
  }
}

/** A server over streamable HTTP: connected (initialize) once, closed like a process. */
async function remote(config: McpServerConfig, url: string): Promise<Live> {
  const client = (await loadSdk()).client();
  const live: Live = { client, transport: null, closed: false, stderr: "" };
  try {
    await client.connect(await httpTransport(url, config.headers ?? {}), {
      timeout: config.timeoutMs,
    });
  } catch (err) {
    live.closed = true;
    await client.close().catch(() => undefined);
    throw new Error(`MCP server ${config.name} at ${url} did not answer: ${errorMessage(err)}`);
  }
  return live;
}

/** Lets the last of a closed process's stderr arrive. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

const after = (text: string, mark: string): string => {
  const at = text.indexOf(mark);
  return at < 0 ? "" : text.slice(at + mark.length);
};

const said = (live: Live): string => {
  const lines = live.stderr.split("\n").filter(Boolean).slice(-STDERR_LINES);
  return lines.length ? `; its stderr ends: ${lines.join(" / ")}` : "";
};
