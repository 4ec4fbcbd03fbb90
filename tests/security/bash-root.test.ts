import { spawnSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { castBash, hasBwrap, noBwrap, spellDir } from "../circle/bash-helpers.js";
import { expectWallsHeld, NOBODY, asNobody, victim, wallProbes } from "./bash-probes.js";
import { needs } from "../support/needs.js";

/**
 * Issue 20: bubblewrap started by root kept every capability, so a command could remount the
 * read-only binds writable and write the host's /usr, and write the host kernel's sysctls
 * (core_pattern). The same probes run with Spellbook as this test process (root in CI and here)
 * and as an unprivileged user.
 */
const SPELL = (command: string) => `llm:
  provider: scripted
  responses:
    - code: ${JSON.stringify(command)}
identity: { system_prompt: You run commands. }
circle:
  medium: bash
  root: ./work
  gates: [done]
  wards: [{ max_turns: 1 }]
`;

const running: ReturnType<typeof victim>[] = [];
afterEach(() => running.splice(0).forEach((v) => v.stop()));

const unprivileged = asNobody();
// bubblewrap 0.8 and later can refuse a command a user namespace of its own (--disable-userns)
const nested =
  hasBwrap &&
  spawnSync("bwrap", ["--help"], { encoding: "utf8" }).stdout.includes("--disable-userns");
const NESTED = nested
  ? "unshare -U refused"
  : "unshare -U NOT checked: this bubblewrap is older than 0.8 (no --disable-userns)";

needs(noBwrap).describe("the bash sandbox's walls (bubblewrap)", () => {
  it(`as this process's user (uid ${process.getuid?.()}): no capability, read-only binds stay read-only, no mount, unshare or ptrace (${NESTED})`, async () => {
    const target = victim();
    running.push(target);
    const { turns, dir } = await castBash({
      commands: [wallProbes(target.pid)],
      circle: "  root: ./work",
      files: { "work/.keep": "" },
    });
    expectWallsHeld(turns[0]!.observation, nested);
    expect(existsSync(join(dir, "work/probe-written"))).toBe(false);
    expect(target.alive()).toBe(true);
  });

  unprivileged.it("as an unprivileged user (nobody, through setpriv): the same walls hold", () => {
    const target = victim({ uid: NOBODY, gid: NOBODY });
    running.push(target);
    const dir = spellDir({ "work/.keep": "", "spell.yaml": SPELL(wallProbes(target.pid)) });
    for (const p of [dir, join(dir, "work"), join(dir, "work/.keep"), join(dir, "spell.yaml")])
      chownSync(p, NOBODY, NOBODY);
    const fixture = join(process.cwd(), "tests/security/fixtures/bash-cast.mjs");
    const out = spawnSync(
      "setpriv",
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath].concat([
        fixture,
        join(dir, "spell.yaml"),
      ]),
      {
        cwd: dir,
        env: { PATH: process.env["PATH"], HOME: dir },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(out.stderr).toBe("");
    const cast = JSON.parse(out.stdout) as { uid: number; observations: string[] };
    expect(cast.uid).toBe(NOBODY);
    expectWallsHeld(cast.observations[0]!, nested);
    expect(readdirSync(join(dir, "work"))).toEqual([".keep"]);
    expect(statSync(join(dir, "work")).uid).toBe(NOBODY);
    expect(target.alive()).toBe(true);
  });
});
