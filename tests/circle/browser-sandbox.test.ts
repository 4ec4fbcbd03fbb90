// Chromium keeps its own sandbox wherever the host allows it: as any user but root (where
// Chromium refuses to start with it, crbug.com/638180). A real launch as a non-root user (this
// user, or `nobody` through setpriv when the tests run as root) has no --no-sandbox, and its
// renderers run in a pid namespace other than the browser's: Chromium's sandbox.
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumArgs } from "../../src/circle/gates/browser-engine.js";
import { chromiumProblem, noChromium } from "../support/browser.js";
import { needs } from "../support/needs.js";

const root = process.getuid?.() === 0;
const SETPRIV = "/usr/bin/setpriv";
const cannot =
  noChromium ??
  (!existsSync(resolve("dist/circle/gates/browser-engine.js"))
    ? "dist/ is not built (npm run build): the launch runs in a process of its own"
    : root && !existsSync(SETPRIV)
      ? "the tests run as root and setpriv is missing: no way to launch as another user"
      : undefined);

describe("the browser tests' Chromium", () => {
  it("is the one SPELLBOOK_CHROMIUM names, else Debian's", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "no-chromium-")), "chromium");
    expect(chromiumProblem({ SPELLBOOK_CHROMIUM: missing })).toContain(missing);
    const there = join(mkdtempSync(join(tmpdir(), "a-chromium-")), "chromium");
    writeFileSync(there, "#!/bin/sh\n");
    chmodSync(there, 0o755);
    expect(chromiumProblem({ SPELLBOOK_CHROMIUM: there })).toBeUndefined();
    const debian = chromiumProblem({});
    if (existsSync("/usr/bin/chromium")) expect(debian).toBeUndefined();
    else expect(debian).toContain("/usr/bin/chromium");
  });
});

describe("Chromium's own sandbox", () => {
  it("is off only for root, where Chromium refuses to start with it", () => {
    expect(chromiumArgs(0)).toContain("--no-sandbox");
    expect(chromiumArgs(1000)).not.toContain("--no-sandbox");
    expect(chromiumArgs(65534)).not.toContain("--no-sandbox");
  });

  needs(cannot).it(
    "a launch as a non-root user keeps it: no --no-sandbox, renderers in their own pid namespace",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "chromium-sandbox-"));
      chmodSync(dir, 0o755);
      const script = join(dir, "launch.mjs");
      writeFileSync(
        script,
        `const { sharedBrowser, closeSharedBrowser } = await import(${JSON.stringify(resolve("dist/circle/gates/browser-engine.js"))});
const browser = await sharedBrowser(30000);
const page = await browser.newPage();
await page.goto("about:blank");
process.stdout.write("ready\\n");
process.stdin.on("end", async () => { await closeSharedBrowser(); process.exit(0); });
process.stdin.resume();
`,
      );
      const env = { PATH: process.env["PATH"], HOME: dir, ...chromiumEnv() };
      const cmd = root
        ? [SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script]
        : [process.execPath, script];
      const child = spawn(cmd[0]!, cmd.slice(1), { env, cwd: dir });
      let out = "";
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      try {
        await new Promise<void>((ready, fail) => {
          child.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            if (out.includes("ready")) ready();
          });
          void exited.then(() => fail(new Error(`the launch ended: ${err}`)));
        });
        const tree = descendants(child.pid!);
        // Chromium's children rewrite their command line as one string: read it as text.
        const browsers = tree.filter((p) => p.cmdline.includes("chromium"));
        expect(browsers.length).toBeGreaterThan(1);
        expect(browsers.filter((p) => / --no-sandbox\b/.test(p.cmdline))).toEqual([]);
        const main = browsers.find((p) => !p.cmdline.includes("--type="))!;
        const renderers = browsers.filter((p) => p.cmdline.includes("--type=renderer"));
        expect(renderers.length).toBeGreaterThan(0);
        for (const r of renderers) expect(pidNamespace(r.pid)).not.toBe(pidNamespace(main.pid));
      } finally {
        child.stdin.end();
        if (
          (await Promise.race([
            exited,
            new Promise((r) => setTimeout(() => r("slow"), 20_000)),
          ])) === "slow"
        )
          child.kill("SIGKILL");
      }
    },
    60_000,
  );
});

/** SPELLBOOK_CHROMIUM, when the tests are given another Chromium. */
const chromiumEnv = (): Record<string, string> =>
  process.env["SPELLBOOK_CHROMIUM"]
    ? { SPELLBOOK_CHROMIUM: process.env["SPELLBOOK_CHROMIUM"] }
    : {};

interface Proc {
  pid: number;
  /** Its arguments joined by spaces. */
  cmdline: string;
}

/** Every process below `pid` (the launch script's own children and theirs). */
function descendants(pid: number): Proc[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      cmd.set(Number(name), readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // ended while we looked
    }
  }
  const below = (p: number): boolean => {
    for (let q = parent.get(p); q !== undefined && q > 1; q = parent.get(q))
      if (q === pid) return true;
    return false;
  };
  return [...cmd].filter(([p]) => below(p)).map(([p, cmdline]) => ({ pid: p, cmdline }));
}

const pidNamespace = (pid: number): string => readlinkSync(`/proc/${pid}/ns/pid`);
