import { rmSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { memoryLimitKind } from "../../src/circle/mediums/bash/index.js";
import { castBash, hasBwrap, noBwrap } from "../circle/bash-helpers.js";
import { bashSpell, castAs, insideOnly, NOBODY, asNobody } from "./bash-probes.js";
import { needs } from "../support/needs.js";

/**
 * Issue 38: `dd` of 3,000 MiB into the sandbox's /tmp grew the host's shared memory by 3 GB, and
 * nothing bounded a command's memory. With `max_memory_mb: 64`, a command fills /tmp, /dev/shm
 * and its own heap a MiB (or a doubling) at a time, printing how far it got: it never gets past
 * 64 MiB, /dev is not writable, and each turn is an error observation. Harmless were the bound
 * gone: the probes first prove they run inside, and each stops at twice the bound (128 MiB of
 * tmpfs, a 128 MiB string) and prints PAST-BOUND.
 */
const BOUND_MB = 64;
const MIB = 1024 * 1024;

/** Appends a MiB at a time to `file`, up to twice the bound; a refused append ends the command. */
const fill = (file: string, before: string[] = []): string =>
  [
    insideOnly(),
    ...before,
    `i=0; while [ $i -lt ${2 * BOUND_MB} ]; do`,
    `  head -c ${MIB} /dev/zero >> ${file} || exit 1`,
    "  i=$((i + 1)); echo filled=$i",
    "done",
    "echo PAST-BOUND",
  ].join("\n");

const COMMANDS = [
  fill("/tmp/fill"),
  fill("/dev/shm/fill", ["touch /dev/fill 2>/dev/null && echo DEV-WRITABLE"]),
  [
    insideOnly(),
    `s=x; while [ \${#s} -lt ${2 * BOUND_MB * MIB} ]; do s="$s$s"; echo held=\${#s}; done`,
    "echo PAST-BOUND",
  ].join("\n"),
];

const numbers = (observation: string, key: string): number[] =>
  [...observation.matchAll(new RegExp(`^${key}=(\\d+)$`, "gm"))].map((m) => Number(m[1]));

/** Each turn stopped below the bound with an error observation. */
function expectBounded(observations: string[], errors: boolean[]): void {
  expect(observations).toHaveLength(3);
  for (const o of observations) {
    expect(o).toContain("INSIDE");
    expect(o).not.toContain("NOT-INSIDE");
    expect(o).not.toContain("PAST-BOUND");
  }
  expect(errors).toEqual([true, true, true]);
  const [tmp, shm, heap] = observations as [string, string, string];
  // the fill went on until refused: it did start (the command did run)
  expect(numbers(tmp, "filled").length).toBeGreaterThan(0);
  expect(Math.max(...numbers(tmp, "filled"))).toBeLessThanOrEqual(BOUND_MB);
  expect(shm).not.toContain("DEV-WRITABLE");
  expect(numbers(shm, "filled").length).toBeGreaterThan(0);
  expect(Math.max(...numbers(shm, "filled"))).toBeLessThanOrEqual(BOUND_MB);
  expect(numbers(heap, "held").length).toBeGreaterThan(0);
  expect(Math.max(...numbers(heap, "held"))).toBeLessThan(BOUND_MB * MIB);
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const unprivileged = asNobody();
const kind = hasBwrap ? memoryLimitKind() : undefined;
const WARDS = `, { max_memory_mb: ${BOUND_MB} }`;

needs(noBwrap).describe(
  `a bash command's memory is bounded by max_memory_mb (${hasBwrap ? "bubblewrap" : noBwrap})`,
  () => {
    it(`run by this process's user (uid ${process.getuid?.()}, ${kind === "cgroup" ? "a memory cgroup" : "ulimit -v"}): /tmp, /dev/shm and the heap stop at ${BOUND_MB} MiB, each an error observation`, async () => {
      const { dir, turns } = await castBash({
        commands: COMMANDS,
        circle: "  root: ./work",
        wards: `[{ max_turns: ${COMMANDS.length} }${WARDS}]`,
        files: { "work/.keep": "" },
      });
      dirs.push(dir);
      expectBounded(
        turns.map((t) => t.observation),
        turns.map((t) => t.is_error === true),
      );
      // a memory cgroup's kill is named in the observation
      if (kind === "cgroup") expect(turns[2]!.observation).toContain("(max_memory_mb");
    });

    unprivileged.it(
      `run by an unprivileged user (nobody, through setpriv; no cgroup: ulimit -v and the tmpfs sizes): the same`,
      () => {
        const { cast, dir } = castAs(NOBODY, bashSpell(COMMANDS, WARDS));
        dirs.push(dir);
        expectBounded(cast.observations, cast.errors);
      },
    );
  },
);
