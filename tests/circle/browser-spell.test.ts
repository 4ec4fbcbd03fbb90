// Browser gates in the code medium, replayed from the loom without a browser, declared wrong,
// and in a `spell run` process that leaves no Chromium behind.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { closeSharedBrowser } from "../../src/circle/gates/browser-engine.js";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpell } from "../../src/spell/index.js";
import { browserSpell, chromiumWrapper, noChromium, useBrowserSites } from "../support/browser.js";
import { alive } from "../support/mcp.js";
import { noBwrap } from "./bash-helpers.js";
import { needs } from "../support/needs.js";

const fx = useBrowserSites();
const { wrapper } = fx;

needs(noChromium).describe("browser gates in a spell", () => {
  it("the code medium calls them as functions (crossing to the main thread); errors are catchable", async () => {
    const url = `http://${fx.sites.site}/`;
    const spell = browserSpell({
      site: fx.sites.site,
      medium: "code",
      responses: [
        `- code: 'browser_goto(${JSON.stringify(url)}); browser_type("#q", "moths"); browser_click("#go"); var a = browser_text("#out"); try { browser_goto("http://${fx.sites.other}/") } catch (e) { a += " | " + e.message } done(a)'`,
      ],
    });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("search moths");
    expect(result.status).toBe("terminated");
    expect(result.result).toMatch(
      /^You searched: moths \| browser: host 127\.0\.0\.1 is not allowed|^You searched: moths \| browser: http:\/\/127\.0\.0\.1:\d+ is not allowed/,
    );
    expect(fx.sites.otherHits).toEqual([]);
  }, 120_000); // a real Chromium: at a load of 20 on 2 cores, past 20 s (issue 21)

  it("a resumed code entity replays its recorded browser results without launching a browser", async () => {
    const spell = browserSpell({
      site: fx.sites.site,
      medium: "code",
      loom: "loom.jsonl",
      responses: [
        `- code: 'var page = browser_goto("http://${fx.sites.site}/next"); done(page.length)'`,
        `- code: 'done(page.split("\\n").pop().toUpperCase())'`,
      ],
    });
    const first = await loadSpell(spell.file);
    const entity = first.cantrip!.summon();
    expect((await entity.send("open it")).status).toBe("terminated");
    entity.dispose();
    await closeSharedBrowser();
    const launched = wrapper.pids().length;
    process.env["SPELLBOOK_CHROMIUM"] = "/nonexistent/chromium";
    try {
      writeFileSync(
        spell.file,
        readFileSync(spell.file, "utf8").replace(/responses:\n.*\n/, "responses:\n"),
      );
      const again = await loadSpell(spell.file);
      const resumed = again.cantrip!.summon({ entity: entity.id });
      const result = await resumed.send("shout it");
      resumed.dispose();
      expect(result.status).toBe("terminated");
      expect(result.result).toBe("SECOND PAGE");
      expect(wrapper.pids()).toHaveLength(launched);
    } finally {
      process.env["SPELLBOOK_CHROMIUM"] = wrapper.path;
    }
  });

  it("a spell run process ends with no Chromium process left", async () => {
    const spell = browserSpell({
      site: fx.sites.site,
      responses: [
        `- tool_calls: [{ gate: browser_goto, args: { url: "http://${fx.sites.site}/next" } }]`,
        `- tool_calls: [{ gate: done, args: { answer: ok } }]`,
      ],
    });
    const own = chromiumWrapper(mkdtempSync(join(tmpdir(), "chromium-run-")));
    // Spawned, not spawnSync: the pages are served by this process.
    const child = spawn(
      process.execPath,
      [resolve("bin/run.js"), "run", spell.file, "--intent", "go", "--loom", "memory", "--json"],
      { env: { ...process.env, SPELLBOOK_CHROMIUM: own.path } },
    );
    const run = { stdout: "", stderr: "", status: null as number | null };
    child.stdout.on("data", (d: Buffer) => (run.stdout += String(d)));
    child.stderr.on("data", (d: Buffer) => (run.stderr += String(d)));
    run.status = await new Promise<number | null>((r) => child.on("exit", r));
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { status: string }).status).toBe("terminated");
    const [pid] = own.pids();
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid!)).toBe(false);
    // The browser's helpers (zygote, renderers) share its process group: none is left running
    // either. (An exited one may stay a zombie where init does not reap, as in some containers.)
    const running = () =>
      spawnSync("ps", ["-o", "stat=,args=", "-g", String(pid)], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((line) => line.trim() !== "" && !line.trim().startsWith("Z"));
    await expect.poll(running, { timeout: 3000 }).toEqual([]);
  }, 120_000); // a real Chromium: at a load of 20 on 2 cores, past 20 s (issue 21)
});

describe("a bad browser declaration", () => {
  it("is a spell error at the gate's file:line:col, and loading launches nothing", async () => {
    const spell = browserSpell({ site: "127.0.0.1:1", responses: [] });
    const errorsOf = async (item: string) => {
      writeFileSync(
        spell.file,
        readFileSync(spell.file, "utf8").replace(/ {4}- browser: .*\n/, `    - ${item}\n`),
      );
      const err = await loadSpell(spell.file, { validateOnly: true }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SpellErrors);
      return (err as SpellErrors).errors.map((e) => e.format()).join("\n");
    };
    expect(await errorsOf("browser: { allow: example.org }")).toMatch(
      /spell\.yaml:11:7: .*browser: allow is a list of hosts/,
    );
    expect(await errorsOf('browser: { allow: ["https://example.org/path"] }')).toMatch(
      /spell\.yaml:11:\d+: .*browser: allow "https:\/\/example\.org\/path": write a host/,
    );
    expect(await errorsOf("browser: { allow: [example.org], max_chars: 0 }")).toMatch(
      /spell\.yaml:11:\d+: .*browser: max_chars is a whole number above 0/,
    );
    expect(await errorsOf("browser: { allow: [example.org], headless: false }")).toMatch(
      /spell\.yaml:11:\d+: .*gate browser takes no dependency "headless" \(it takes: allow, max_chars, timeout_ms\)/,
    );
    const launched = wrapper.pids().length;
    const ok = await loadSpell(browserSpell({ site: "127.0.0.1:1", responses: [] }).file);
    expect(ok.cantrip?.presentation.tools.map((t) => t.name)).toContain("browser_goto");
    expect(wrapper.pids()).toHaveLength(launched);
  });
});

describe("a browser that does not start", () => {
  it("is an error observation naming the executable and why, and the cast goes on", async () => {
    await closeSharedBrowser();
    const missing = join(mkdtempSync(join(tmpdir(), "no-chromium-")), "chromium");
    const before = process.env["SPELLBOOK_CHROMIUM"];
    process.env["SPELLBOOK_CHROMIUM"] = missing;
    try {
      const spell = browserSpell({
        site: fx.sites.site,
        responses: [
          `- tool_calls: [{ gate: browser_goto, args: { url: "http://${fx.sites.site}/" } }]`,
          `- tool_calls: [{ gate: done, args: { answer: went on } }]`,
        ],
      });
      const loaded = await loadSpell(spell.file, { loomPath: "memory" });
      const result = await loaded.cantrip!.cast("browse");
      expect(result.result).toBe("went on");
      const call = result.loom.turns()[0]!.gate_calls[0]!;
      expect(call).toMatchObject({ gate_name: "browser_goto", is_error: true });
      expect(call.result).toContain(`browser: Chromium did not start (${missing})`);
    } finally {
      process.env["SPELLBOOK_CHROMIUM"] = before;
    }
  });
});

needs(noChromium, noBwrap).describe("browser gates in the bash medium", () => {
  it("a command calls a browser gate by name; a host not allowed is the command's failure", async () => {
    const spell = browserSpell({
      site: fx.sites.site,
      medium: "bash",
      responses: [
        `- command: 'browser_goto http://${fx.sites.site}/next'`,
        `- command: 'browser_goto http://${fx.sites.other}/ || done refused'`,
      ],
    });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("browse");
    expect(result.result).toBe("refused");
    const [first, second] = result.loom.turns();
    expect(first!.gate_calls[0]).toMatchObject({ gate_name: "browser_goto", is_error: false });
    expect(first!.observation).toContain(`URL: http://${fx.sites.site}/next`);
    expect(second!.gate_calls[0]).toMatchObject({ gate_name: "browser_goto", is_error: true });
    expect(fx.sites.otherHits).toEqual([]);
  });
});
