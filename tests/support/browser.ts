/**
 * Real pages for the browser gates: a site on 127.0.0.1 (allowed in the spells) and another
 * server on another port (never allowed) that counts what reaches it; a spell folder whose
 * circle declares `browser:`; and a Chromium wrapper that records each browser's pid.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { closeSharedBrowser } from "../../src/circle/gates/browser-engine.js";

/** Why the browser tests cannot run with this environment's Chromium (the runtime's choice). */
export function chromiumProblem(env: NodeJS.ProcessEnv): string | undefined {
  const named = env["SPELLBOOK_CHROMIUM"];
  const path = named || "/usr/bin/chromium";
  if (existsSync(path)) return undefined;
  return named
    ? `SPELLBOOK_CHROMIUM names ${path}, which is missing: the browser gates have no browser`
    : `${path} is missing (apt-get install chromium, or name one in SPELLBOOK_CHROMIUM): the browser gates have no browser`;
}

/** The Chromium the tests were given, read once at start (the wrapper below sets the variable). */
const REAL_CHROMIUM = process.env["SPELLBOOK_CHROMIUM"] || "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when a Chromium is there. */
export const noChromium = chromiumProblem(process.env);

export interface Sites {
  site: string;
  other: string;
  /** Paths the other server was asked for: must stay empty. */
  otherHits: string[];
  /** Called when the site is asked for /slow (a test may crash the browser then). */
  onSlow: (() => void) | undefined;
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startSites(): Promise<Sites> {
  const otherHits: string[] = [];
  const other = createServer((req, res) => {
    otherHits.push(req.url ?? "");
    res.end("other");
  });
  const otherHost = await listen(other);
  const sites: Sites = {
    site: "",
    other: otherHost,
    otherHits,
    onSlow: undefined,
    close: async () => {
      site.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([site, other].map((s) => new Promise((r) => s.close(r))));
    },
  };
  const routes: Record<string, string> = {
    "/": page(
      "Home",
      `<h1>Welcome</h1><a id="next" href="/next">Next page</a>
       <input id="q"><button id="go" onclick="document.getElementById('out').textContent =
       'You searched: ' + document.getElementById('q').value">Go</button><p id="out"></p>`,
    ),
    "/next": page("Next", "<p id='msg'>Second page</p>"),
    "/leak": page(
      "Leak",
      `<p>leaky</p><img src="http://${otherHost}/pixel.png">
       <script>fetch("http://${otherHost}/xhr").catch(() => {});</script>`,
    ),
    "/long": page("Long", `<p>${"word ".repeat(2000)}</p>`),
  };
  const site = createServer((req, res) => {
    if (req.url === "/redirect") {
      res.writeHead(302, { location: `http://${otherHost}/stolen` }).end();
      return;
    }
    if (req.url === "/slow") {
      sites.onSlow?.();
      setTimeout(() => res.end(page("Slow", "slow")), 3000).unref();
      return;
    }
    const html = routes[req.url ?? ""];
    res.writeHead(html ? 200 : 404, { "content-type": "text/html" }).end(html ?? "no");
  });
  sites.site = await listen(site);
  return sites;
}

/** A Chromium that writes its pid (the browser's, and its process group's) to a file. */
export function chromiumWrapper(dir: string): { path: string; pids(): number[] } {
  const pidFile = join(dir, "chromium-pids.txt");
  const path = join(dir, "chromium");
  writeFileSync(
    path,
    `#!/bin/sh\necho $$ >> ${JSON.stringify(pidFile)}\nexec ${JSON.stringify(REAL_CHROMIUM)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  const pids = () =>
    existsSync(pidFile)
      ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number)
      : [];
  return { path, pids };
}

/** A folder with a spell declaring `browser: { allow: [site] … }`; replies as YAML list items. */
export function browserSpell(options: {
  site: string;
  responses: string[];
  medium?: "conversation" | "code" | "bash";
  extra?: string;
  loom?: string;
}): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "browser-spell-"));
  const file = join(dir, "spell.yaml");
  writeFileSync(
    file,
    `name: browsing
llm:
  provider: scripted
  responses:${options.responses.length ? "" : " []"}
${options.responses.map((r) => `    ${r}`).join("\n")}
identity: { system_prompt: You browse. }
circle:
  medium: ${options.medium ?? "conversation"}
  gates:
    - done
    - browser: { allow: ["http://${options.site}"]${options.extra ? `, ${options.extra}` : ""} }
  wards: [{ max_turns: 8 }]
${options.loom ? `loom: { path: ${options.loom} }\n` : ""}`,
  );
  return { dir, file };
}

/**
 * For a test file: the loopback sites, started before its tests, and a Chromium wrapper named in
 * SPELLBOOK_CHROMIUM meanwhile (it lists the browsers it started); all torn down after.
 */
export function useBrowserSites(): {
  readonly sites: Sites;
  wrapper: ReturnType<typeof chromiumWrapper>;
} {
  let sites: Sites | undefined;
  const wrapper = chromiumWrapper(mkdtempSync(join(tmpdir(), "chromium-")));
  beforeAll(async () => {
    sites = await startSites();
    process.env["SPELLBOOK_CHROMIUM"] = wrapper.path;
  });
  afterAll(async () => {
    await closeSharedBrowser();
    await sites?.close();
    delete process.env["SPELLBOOK_CHROMIUM"];
  });
  return {
    get sites(): Sites {
      if (!sites) throw new Error("the sites start before the file's tests");
      return sites;
    },
    wrapper,
  };
}
