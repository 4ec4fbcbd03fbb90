// The browser gates on Debian's Chromium against real pages served on 127.0.0.1: page
// interaction, the allow list (routing and the proxy behind it), errors, one page per entity.
import { expect, it } from "vitest";
import { sharedBrowser } from "../../src/circle/gates/browser-engine.js";
import { loadSpell } from "../../src/spell/index.js";
import { browserSpell, noChromium, useBrowserSites } from "../support/browser.js";
import { gone } from "../support/mcp.js";
import { needs } from "../support/needs.js";

const fx = useBrowserSites();
const { wrapper } = fx;

const call = (gate: string, args: Record<string, unknown>) =>
  `- tool_calls: [{ gate: ${gate}, args: ${JSON.stringify(args)} }]`;
const finish = call("done", { answer: "ok" });

/** Casts a conversation spell whose LLM makes these gate calls; the calls as recorded. */
async function calls(responses: string[], extra?: string) {
  const spell = browserSpell({
    site: fx.sites.site,
    responses: [...responses, finish],
    ...(extra ? { extra } : {}),
  });
  const loaded = await loadSpell(spell.file, { loomPath: "memory" });
  const result = await loaded.cantrip!.cast("browse");
  expect(result.status).toBe("terminated");
  return result.loom
    .turns()
    .flatMap((t) => t.gate_calls)
    .filter((c) => c.gate_name !== "done");
}

needs(noChromium).describe("browser gates", () => {
  it("goes to a page, types, clicks and reads: title, URL and visible text", async () => {
    const home = `http://${fx.sites.site}/`;
    const got = await calls([
      call("browser_goto", { url: home }),
      call("browser_type", { selector: "#q", text: "owls" }),
      call("browser_click", { selector: "#go" }),
      call("browser_text", { selector: "#out" }),
      call("browser_click", { selector: "#next" }),
      call("browser_text", {}),
    ]);
    expect(got.map((c) => c.is_error)).toEqual([false, false, false, false, false, false]);
    expect(got[0]!.result).toMatch(new RegExp(`^Title: Home\nURL: ${home}\n\nWelcome\nNext page`));
    expect(got[1]!.result).toBe("typed 4 characters into #q");
    expect(got[2]!.result).toContain("You searched: owls");
    expect(got[3]!.result).toBe("You searched: owls");
    expect(got[4]!.result).toMatch(/^Title: Next\nURL: http:\/\/.*\/next\n\nSecond page$/);
    expect(got[5]!.result).toBe("Second page");
  });

  it("a page on an allowed host loads nothing from a host not allowed: image, fetch and redirect are aborted", async () => {
    const got = await calls([
      call("browser_goto", { url: `http://${fx.sites.site}/leak` }),
      call("browser_goto", { url: `http://${fx.sites.site}/redirect` }),
      call("browser_goto", { url: `http://${fx.sites.other}/direct` }),
    ]);
    expect(got[0]!.is_error).toBe(false);
    expect(got[0]!.result).toContain("leaky");
    expect(got[0]!.result).toContain(`[blocked requests to hosts not allowed: ${fx.sites.other}]`);
    expect(got[1]!.is_error).toBe(true);
    expect(got[1]!.result).toMatch(
      /^browser: a redirect from .* was refused: browser: .*is not allowed/,
    );
    expect(got[2]!.is_error).toBe(true);
    expect(got[2]!.result).toMatch(/^browser: .*127\.0\.0\.1.* is not allowed/);
    await new Promise((r) => setTimeout(r, 300)); // a late request would have arrived by now
    expect(fx.sites.otherHits).toEqual([]);
  });

  it("a selector not found within timeout_ms is an error observation; max_chars trims the text", async () => {
    const got = await calls(
      [
        call("browser_goto", { url: `http://${fx.sites.site}/long` }),
        call("browser_click", { selector: "#missing" }),
      ],
      // The bound is for both calls: generous enough that the page loads on a loaded machine
      // (at 800 ms, a load of 24 on 2 cores timed out the goto), so only the click waits it out.
      "max_chars: 100, timeout_ms: 5000",
    );
    expect(got[0]!.result).toMatch(/\n\n(word ){20}\n\[cut at 100 of 9999 characters\]$/);
    expect(got[1]!.is_error).toBe(true);
    expect(got[1]!.result).toMatch(
      /^browser_click: nothing happened within 5000 ms \(Timeout 5000ms/,
    );
  });

  it("one page per entity, closed when the entity is disposed", async () => {
    const responses = [call("browser_goto", { url: `http://${fx.sites.site}/next` }), finish];
    const spell = browserSpell({ site: fx.sites.site, responses: [...responses, ...responses] });
    const loaded = await loadSpell(spell.file, { loomPath: "memory" });
    const a = loaded.cantrip!.summon();
    const b = loaded.cantrip!.summon();
    await a.send("one");
    await b.send("two");
    const browser = await sharedBrowser(5000);
    expect(browser.contexts()).toHaveLength(2);
    a.dispose();
    b.dispose();
    await expect.poll(() => browser.contexts().length).toBe(0);
  });

  it("a crashed browser is an error observation, and the next call launches a new one", async () => {
    fx.sites.onSlow = () => process.kill(wrapper.pids().at(-1)!, "SIGKILL");
    const got = await calls([
      call("browser_goto", { url: `http://${fx.sites.site}/slow` }),
      call("browser_goto", { url: `http://${fx.sites.site}/next` }),
    ]);
    fx.sites.onSlow = undefined;
    expect(got[0]!.is_error).toBe(true);
    expect(got[0]!.result).toMatch(/^browser_goto: the browser page closed or crashed/);
    expect(got[1]!.is_error).toBe(false);
    expect(got[1]!.result).toContain("Second page");
    expect(await gone(wrapper.pids().slice(0, -1))).toBe(true);
  });
});
