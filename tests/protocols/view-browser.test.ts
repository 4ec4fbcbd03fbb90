// `spell view` in real headless Chromium (Debian's, driven by playwright-core): each view drawn
// from a loom with a fork, a fold, a child, a failed gate call and planted secrets; no secret in
// the DOM; a cast that runs into the loom appears without a reload; the saved page opens from
// disk. A screenshot of each view is kept in tests/artifacts/view/ (git ignores it); with
// SPELLBOOK_DOCS_SHOTS=1, the README's ones are written to docs/viewer/.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loomViewCommand } from "../../src/cli/view.js";
import { loadSpell } from "../../src/spell/index.js";
import { noChromium } from "../support/browser.js";
import {
  ALL_TURNS,
  KNOWN_SECRET,
  pageScript,
  SHAPED_SECRET,
  startViewer,
  viewFolder,
  type Viewer,
  type ViewFolder,
} from "../support/view.js";
import { needs } from "../support/needs.js";

const ARTIFACTS = join(import.meta.dirname, "..", "artifacts", "view");
const ROOT_SPEC = `${join(import.meta.dirname, "..", "..")}/`;

/** As root, Chromium's own sandbox cannot start; these flags keep it off the network. */
const ARGS = [
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

let browser: Browser;
let folder: ViewFolder;
let viewer: Viewer;

async function noSecrets(page: Page): Promise<void> {
  const dom = await page.content();
  expect(dom).not.toContain(SHAPED_SECRET);
  expect(dom).not.toContain(KNOWN_SECRET);
  expect(dom).not.toContain("PLANTED");
}

/** The views the README shows (SPELLBOOK_DOCS_SHOTS=1 writes them to docs/viewer/). */
const DOCS: Record<string, string> = { turn: "timeline" };

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const doc = DOCS[name];
  if (doc && process.env["SPELLBOOK_DOCS_SHOTS"] === "1") {
    mkdirSync(join(ROOT_SPEC, "docs", "viewer"), { recursive: true });
    await page.screenshot({ path: join(ROOT_SPEC, "docs", "viewer", `${doc}.png`) });
  }
}

async function open(hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${viewer.base}/${hash}`);
  return page;
}

needs(noChromium).describe("spell view in Chromium", () => {
  beforeAll(async () => {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: process.env["SPELLBOOK_CHROMIUM"] || "/usr/bin/chromium",
      args: ARGS,
      chromiumSandbox: !ARGS.includes("--no-sandbox"),
      headless: true,
      timeout: 60_000,
    });
    folder = viewFolder();
    viewer = await startViewer(folder.root);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await viewer?.app.close();
  });

  it("lists the sources and a loom's entities: intent, status, turns, tokens, cost, reward", async () => {
    const page = await open("");
    await page.locator("[data-source]").first().waitFor();
    await shot(page, "sources");
    await page.getByText("loom · loom.jsonl", { exact: true }).click();
    const root = page.locator('[data-entity="ent_root"]');
    await root.waitFor();
    expect(await root.innerText()).toMatch(
      /Count the owls \(key \[REDACTED\]\)[\s\S]*done[\s\S]*3[\s\S]*\$0\.01[\s\S]*1/,
    );
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(3);
    await noSecrets(page);
    await shot(page, "entities");
    await page.close();
  });

  it("the tree: every turn reachable, the fork a branch, the child under its caller, the fold marked", async () => {
    const page = await open("#/l/0/e/ent_root");
    await page.locator('[data-turn-id="r3"]').waitFor();
    const ids = await page
      .locator("[data-turn-id]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-turn-id")));
    expect([...ids].sort()).toEqual([...ALL_TURNS].sort());
    expect(await page.locator('[data-turn-id="f1"]').getAttribute("data-branch")).toBe("fork");
    expect(await page.locator('[data-turn-id="k1"]').getAttribute("data-branch")).toBe("child");
    const indent = async (id: string) =>
      page
        .locator(`[data-turn-id="${id}"]`)
        .evaluate((e) => parseFloat(getComputedStyle(e).paddingLeft));
    expect(await indent("f1")).toBeGreaterThan(await indent("r1"));
    expect(await page.locator("[data-fold]").innerText()).toMatch(/fold\s+turns 1–1.*\[REDACTED\]/);
    expect(await page.locator('[data-turn-id="r1"]').getAttribute("class")).toContain("folded");
    expect(await page.locator('[data-turn-id="r2"]').getAttribute("class")).toContain("err");
    await noSecrets(page);
    await shot(page, "tree");
    await page.close();
  });

  it("a turn opened: utterance, each gate call with arguments and result, the error marked, observation, model, time", async () => {
    const page = await open("#/l/0/e/ent_root");
    await page.locator('[data-turn-id="r2"]').click();
    const panel = page.locator('[data-open-turn="r2"]');
    await panel.waitFor();
    const text = await panel.innerText();
    expect(text).toContain("Ask a child; read notes with [REDACTED]");
    expect(text).toContain('"intent": "count owls"');
    expect(text).toContain("openai/gpt-owl");
    expect(text).toContain("840 ms");
    expect(text).toMatch(/read:? ENOENT missing\.txt \(token \[REDACTED\]\)/);
    expect(await panel.locator('[data-call="1"]').getAttribute("class")).toContain("err");
    expect(await panel.locator('[data-call="0"]').getAttribute("class")).not.toContain("err");
    await noSecrets(page);
    await shot(page, "turn");
    // Every turn opens.
    for (const id of ALL_TURNS) {
      await page.locator(`[data-turn-id="${id}"]`).click();
      await page.locator(`[data-open-turn="${id}"]`).waitFor();
      await noSecrets(page);
    }
    await page.close();
  });

  it("two threads side by side: the fork against its original", async () => {
    const page = await open("#/l/0/e/ent_fork");
    await page.getByText("side by side with its original").click();
    await page.locator('[data-thread="ent_fork"] [data-turn-id="f2"]').waitFor();
    await page.locator('[data-thread="ent_root"] [data-turn-id="r3"]').waitFor();
    const left = await page
      .locator('[data-thread="ent_root"] [data-turn-id]')
      .evaluateAll((e) => e.map((x) => x.getAttribute("data-turn-id")));
    const right = await page
      .locator('[data-thread="ent_fork"] [data-turn-id]')
      .evaluateAll((e) => e.map((x) => x.getAttribute("data-turn-id")));
    expect(left).toEqual(["r1", "r2", "r3"]);
    expect(right).toEqual(["r1", "f1", "f2"]);
    await noSecrets(page);
    await shot(page, "side-by-side");
    await page.close();
  });

  it("an eval run's table, cases × repeats, links each cell to its cast", async () => {
    const page = await open("");
    await page.getByText("eval run · runs/eval-1").click();
    // Cases × repeats: one row for the case "owls", a cell for each of its two repeats.
    await page.locator("tr[data-case]").first().waitFor();
    expect(await page.locator("tr[data-case]").count()).toBe(1);
    const cell = (at: string) => page.locator(`td[data-cell="${at}"]`);
    expect(await cell("owls/1").getAttribute("class")).toContain("pass");
    expect(await cell("owls/2").getAttribute("class")).toContain("fail");
    expect(await cell("owls/2").getAttribute("title")).toContain("[REDACTED]");
    await noSecrets(page);
    await shot(page, "eval-run");
    await cell("owls/2").locator("a").click();
    await page.locator('[data-turn-id="f2"]').waitFor();
    await page.close();
  });

  it("an address naming no such entity, loom or eval run says so (not 'Loading…' for ever), and the next address shows", async () => {
    const page = await open("#/l/0/e/ent_nowhere");
    const failed = page.locator("[data-failed]");
    await failed.waitFor();
    expect(await failed.innerText()).toMatch(/Nothing to show at this address[\s\S]*no entity/);
    expect(await page.locator("text=Loading…").count()).toBe(0);
    // The side-by-side view of an entity that is not there, a loom that is not there (the
    // entity list is a paged list), an eval run that is not there.
    for (const [hash, says] of [
      ["#/l/0/c/ent_nowhere", /no entity/],
      ["#/l/9", /no loom/],
      ["#/ev/9", /no eval run/],
    ] as const) {
      await page.evaluate((h) => (location.hash = h), hash);
      await expect.poll(async () => (await failed.count()) && failed.innerText()).toMatch(says);
    }
    // The next address is shown afresh, in the same page.
    await page.evaluate(() => (location.hash = "#/l/0/e/ent_root"));
    await page.locator('[data-turn-id="r3"]').waitFor();
    expect(await failed.count()).toBe(0);
    await shot(page, "nowhere");
    await page.close();
  });

  it("a cast running into the loom appears and grows without a reload", async () => {
    const page = await open("#/l/0");
    await page.locator('[data-entity="ent_root"]').waitFor();
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    const loaded = await loadSpell(join(ROOT_SPEC, "grimoire/04-cantrip.yaml"), {
      loomPath: folder.loom,
    });
    const result = await loaded.cantrip!.cast("live owls at dusk");
    expect(result.status).toBe("terminated");
    const live = page.locator("[data-entity]", { hasText: "live owls at dusk" });
    await live.waitFor({ timeout: 30_000 });
    expect(await live.innerText()).toMatch(/done[\s\S]*\b2\b/);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(
      true,
    );
    await shot(page, "live");
    loaded.cantrip!.loom.close();
    await page.close();
  });

  it("spell loom view --out: one file with data and script inline, opened from disk", async () => {
    const out = join(folder.root, "..", "shared.html");
    const err: string[] = [];
    const io = {
      cwd: folder.root,
      env: { OPENAI_API_KEY: KNOWN_SECRET },
      stdout: () => true,
      stderr: (t: string) => void err.push(t),
    };
    expect(await loomViewCommand(folder.loom, { out }, io as never, await pageScript())).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/);
    expect(html).not.toContain(SHAPED_SECRET);
    expect(html).not.toContain(KNOWN_SECRET);
    expect(html).toContain("[REDACTED]");
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on("request", (r) => asked.push(r.url()));
    await page.goto(`file://${out}#/l/0/e/ent_root`);
    await page.locator('[data-turn-id="f2"]').waitFor();
    await page.locator('[data-turn-id="r2"]').click();
    await page.locator('[data-open-turn="r2"]').waitFor();
    // The saved page searches its own list.
    await page.goto(`file://${out}#/l/0`);
    // ent_root, ent_child, ent_fork and the casts the live test above ran into the loom.
    await expect.poll(() => page.locator("[data-entity]").count()).toBeGreaterThanOrEqual(3);
    await page.locator("input[name=q]").fill("again");
    await expect.poll(() => page.locator("[data-entity]").count()).toBe(1);
    expect(await page.locator("[data-entity]").getAttribute("data-entity")).toBe("ent_fork");
    // An entity the saved page does not hold: said, not "Loading…".
    await page.goto(`file://${out}#/l/0/e/ent_nowhere`);
    await page.locator("[data-failed]").waitFor();
    expect(await page.locator("[data-failed]").innerText()).toContain("not in this page");
    expect(asked.filter((u) => !u.startsWith("file://"))).toEqual([]);
    await shot(page, "saved-page");
    await page.close();
  });
});
