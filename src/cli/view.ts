import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { errorMessage } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import type { LoomStore } from "../loom/stores/index.js";
import { loomSecrets, openLoom, shownLoom } from "../loom/open/index.js";
import type { ForkRunner } from "../protocols/viewer/fork-route.js";
import { displayPath, EXIT, type CliIO } from "./io.js";

export interface ViewFlags {
  port?: number | undefined;
  host?: string | undefined;
  token?: string | undefined;
  /** Open the page in the system's browser (xdg-open / open). */
  open?: boolean | undefined;
  /** Let the page fork a thread from a turn (it spends the user's tokens). */
  allowFork?: boolean | undefined;
  /** Models the page offers for a fork (provider/model). */
  forkLlm?: string[] | undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;
/** A `--fork-llm` value: what the fork endpoint accepts as a model (fork-route.ts). */
const FORK_LLM = /^[\w.-]+\/[\w.:/@+-]+$/;

/** The page's script, built with the package (dist/viewer.js): beside the bundle, or above dist/cli/. */
export function viewerScript(): string {
  for (const rel of ["viewer.js", "../viewer.js"]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error("dist/viewer.js is missing: build the package (npm run build)");
}

/**
 * Every provider key set in the environment, the token and the loom location's secrets (a URL's
 * password): redacted with the common shapes.
 */
function redactorFor(io: CliIO, token: string | undefined, target?: string): Redactor {
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
  redactor.add(token);
  for (const secret of target === undefined ? [] : loomSecrets(target)) redactor.add(secret);
  return redactor;
}

/**
 * The loom named, when it is not a file (a database): the viewer reads it through its store
 * (open-loom.ts). A file or a folder is read by its path (undefined here).
 */
function storeOf(target: string | undefined): LoomStore | undefined {
  if (target === undefined) return undefined;
  const store = openLoom(target);
  if (store.file === undefined) return store;
  void store.close();
  return undefined;
}

/** Why `spell view` must not start with these arguments, or undefined. */
function refusal(
  target: string | undefined,
  o: {
    /** The loom is not a file (a database). */
    store: boolean;
    path: string;
    host: string;
    token?: string;
    allowFork?: boolean;
    forkLlm?: string[];
  },
): string | undefined {
  if (o.forkLlm?.length && !o.allowFork)
    return "--fork-llm: the models a fork from the page may use; give --allow-fork too\n";
  const bad = o.forkLlm?.find((m) => !FORK_LLM.test(m) || m.length > 200);
  if (bad !== undefined)
    return `--fork-llm ${JSON.stringify(bad)}: name a provider/model, e.g. --fork-llm anthropic/claude-sonnet-4-5\n`;
  if (!o.store && !existsSync(o.path))
    return (
      `${o.path}: no such loom file or folder` +
      (target === undefined
        ? ` (spell run FILE writes its loom there; or name one: spell view LOOM|DIR)\n`
        : "\n")
    );
  if (o.store && o.allowFork)
    return "--allow-fork: a fork appends to a loom file and keeps its state beside it; a postgres:// loom cannot be forked from the page (fork with spell loom fork on a loom file)\n";
  if (!LOOPBACK.test(o.host) && !o.token)
    return (
      `refusing to listen on ${o.host} without a token: anyone who reaches it could read the looms.\n` +
      "Give --token (or SPELLBOOK_TOKEN), or keep the default host 127.0.0.1.\n"
    );
  return undefined;
}

/**
 * `spell view [LOOM|DIR]`: the page until SIGTERM or SIGINT. Loopback without a token; any
 * other address needs one (as `spell serve`). Answers are redacted as `spell loom export` is.
 */
export async function viewCommand(
  target: string | undefined,
  flags: ViewFlags,
  io: CliIO,
  stop: Promise<unknown>,
  /** The page's script; default dist/viewer.js. */
  script?: string,
): Promise<number> {
  const store = storeOf(target);
  const path = displayPath(io.cwd, target ?? ".spellbook");
  const host = flags.host ?? "127.0.0.1";
  const token = flags.token ?? io.env["SPELLBOOK_TOKEN"];
  const refused = refusal(target, {
    store: store !== undefined,
    path,
    host,
    token,
    allowFork: flags.allowFork,
    forkLlm: flags.forkLlm,
  });
  if (refused) {
    await store?.close();
    io.stderr(refused);
    return EXIT.invalid;
  }
  const redactor = redactorFor(io, token, target);
  const shown = store && target !== undefined ? shownLoom(target) : path;
  try {
    const { createViewerServer } = await import("../protocols/viewer/server.js");
    const app = await createViewerServer({
      target: store ? shown : path,
      store,
      token,
      redact: (t) => redactor.redact(t),
      appJs: script ?? viewerScript(),
      fork: flags.allowFork ? forkRunner(io) : undefined,
      forkModels: flags.forkLlm,
    });
    try {
      const address = await app.listen({ port: flags.port ?? 8788, host });
      const page = token ? `${address}/?token=${encodeURIComponent(token)}` : `${address}/`;
      io.stderr(
        `spell view: ${shown} listening on ${token ? `${address}/?token=…` : page} (Ctrl-C to stop)\n`,
      );
      if (flags.open) await openBrowser(page, io);
      await stop;
    } finally {
      await app.close();
    }
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  } finally {
    await store?.close();
  }
  return EXIT.ok;
}

/**
 * `--allow-fork`: a fork asked by the page is `spell loom fork LOOM --turn ID --intent TEXT
 * [--llm P/M]`, run in this process with its output kept: the new entity from its JSON line,
 * or its error message.
 */
export function forkRunner(io: CliIO): ForkRunner {
  return async (path, request) => {
    const out: string[] = [];
    const err: string[] = [];
    const { loomForkCommand } = await import("./loom-fork.js");
    const code = await loomForkCommand(
      path,
      { turn: request.turn, intent: request.intent, llm: request.llm, json: true, quiet: true },
      { ...io, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), tty: false },
    );
    const line = out.join("").trim().split("\n").pop();
    if (!line) throw new Error(err.join("").trim() || `spell loom fork exited ${code}`);
    const r = JSON.parse(line) as {
      entity_id: string;
      status: string;
      reason: string;
      last_turn_id: string | null;
      error?: { message: string };
    };
    if (r.status === "failed" && r.error) throw new Error(r.error.message);
    return {
      entity: r.entity_id,
      status: r.status,
      reason: r.reason,
      last_turn_id: r.last_turn_id,
    };
  };
}

/** The system's browser on the page; without a display (Linux), only said (xdg-open would start a
 * text browser in this terminal). */
async function openBrowser(url: string, io: CliIO): Promise<void> {
  if (process.platform === "linux" && !io.env["DISPLAY"] && !io.env["WAYLAND_DISPLAY"]) {
    io.stderr("spell view: no display to open a browser on; open the address above\n");
    return;
  }
  const { spawn } = await import("node:child_process");
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  const child = spawn(command, [url], { stdio: "ignore", detached: true });
  child.on("error", () => undefined);
  child.unref();
}

/** `spell loom view FILE|URL --out page.html`: one self-contained page (data and script inline). */
export async function loomViewCommand(
  file: string,
  flags: { out: string },
  io: CliIO,
  /** The page's script; default dist/viewer.js. */
  script?: string,
): Promise<number> {
  const store = storeOf(file);
  const path = displayPath(io.cwd, file);
  if (!store && !existsSync(path)) {
    io.stderr(`${path}: no such loom file\n`);
    return EXIT.invalid;
  }
  const redactor = redactorFor(io, undefined, file);
  try {
    const { staticData } = await import("../protocols/viewer/static-data.js");
    const { pageHtml } = await import("../protocols/viewer/page-html.js");
    let data: string;
    if (store) {
      const { StoreViewerIndex } = await import("../loom/viewer/index.js");
      const index = new StoreViewerIndex(store);
      await index.readAll();
      data = await staticData(index, shownLoom(file), (t) => redactor.redact(t));
    } else {
      const { LoomViewerIndex } = await import("../loom/viewer/index.js");
      const index = new LoomViewerIndex(path);
      index.refresh();
      data = await staticData(index, basename(path), (t) => redactor.redact(t));
    }
    const out = displayPath(io.cwd, flags.out);
    writeFileSync(out, pageHtml({ data, appJs: script ?? viewerScript() }));
    io.stderr(`spell loom view: wrote ${out}\n`);
  } catch (err) {
    io.stderr(`${redactor.redact(errorMessage(err))}\n`);
    return EXIT.failure;
  } finally {
    await store?.close();
  }
  return EXIT.ok;
}
