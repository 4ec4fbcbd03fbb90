import { spawnSync } from "node:child_process";
import { chownSync, existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { castBash, noBwrap, spellDir } from "../circle/bash-helpers.js";
import { asNobody, NOBODY } from "./bash-probes.js";
import { needs } from "../support/needs.js";

/**
 * LOOP-3: nothing of a bash command runs after `done`. The done gate answers only once the
 * command has ended (session.ts); were it to answer first, the shell could run its next
 * command before the kill reached it. As root the kill goes through a pids cgroup, which ends
 * the whole tree at once and hides an early answer; as an unprivileged user there is no cgroup,
 * and an early answer lets `echo after` through (issue 21). So the casts run as nobody too.
 */
const CASTS = 20;
const SPELL = `llm:
  provider: scripted
  responses:
    - code: 'done "x"; echo after; echo after >> after.txt'
identity: { system_prompt: You run commands. }
circle:
  medium: bash
  root: ./work
  gates: [done]
  wards: [{ max_turns: 1 }]
`;

const unprivileged = asNobody();

describe("done answers only once the command has ended (LOOP-3)", () => {
  needs(noBwrap).it(
    `as this process's user: nothing after done runs (${CASTS} casts; bubblewrap)`,
    async () => {
      for (let i = 0; i < CASTS; i++) {
        const { turns, result, dir } = await castBash({
          commands: ['done "x"; echo after; echo after >> after.txt'],
          circle: "  root: ./work",
          files: { "work/.keep": "" },
        });
        expect(result).toMatchObject({ status: "terminated", result: "x" });
        expect(turns[0]!.observation, `cast ${i}`).not.toContain("after");
        expect(existsSync(join(dir, "work/after.txt")), `cast ${i}`).toBe(false);
      }
    },
  );

  unprivileged.it(
    `as an unprivileged user (nobody, through setpriv; no pids cgroup): nothing after done runs (${CASTS} casts)`,
    () => {
      const dir = spellDir({ "work/.keep": "", "spell.yaml": SPELL });
      for (const p of [dir, join(dir, "work"), join(dir, "work/.keep"), join(dir, "spell.yaml")])
        chownSync(p, NOBODY, NOBODY);
      const fixture = join(process.cwd(), "tests/security/fixtures/bash-casts.mjs");
      const out = spawnSync(
        "setpriv",
        [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath].concat([
          fixture,
          join(dir, "spell.yaml"),
          String(CASTS),
        ]),
        {
          cwd: dir,
          env: { PATH: process.env["PATH"], HOME: dir },
          encoding: "utf8",
          timeout: 240_000,
        },
      );
      expect(out.stderr).toBe("");
      const run = JSON.parse(out.stdout) as {
        uid: number;
        casts: { result: unknown; observations: string[] }[];
      };
      expect(run.uid).toBe(NOBODY);
      expect(run.casts).toHaveLength(CASTS);
      run.casts.forEach((cast, i) => {
        expect(cast.result, `cast ${i}`).toBe("x");
        expect(cast.observations[0], `cast ${i}`).not.toContain("after");
      });
      expect(existsSync(join(dir, "work/after.txt"))).toBe(false);
    },
    300_000,
  );
});
