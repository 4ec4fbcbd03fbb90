import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { behaviorGate, listDirGate, readGate, writeGate } from "../../src/circle/gates/index.js";
import { codeCantrip, doneGate, echoGate } from "../circle/code-helpers.js";
import { fileGateContext } from "../support/gate-context.js";

/** Sandbox escapes: each probe's answer, as the code sees it, must be the contained one. */
const SANDBOX_PROBES: [string, string, unknown][] = [
  ["no process", "done(typeof process)", "undefined"],
  ["no require", "done(typeof require)", "undefined"],
  [
    "no host bridge on the global",
    "done(typeof hostCall + typeof hostPrint)",
    "undefinedundefined",
  ],
  [
    "a gate's constructor is the sandbox's Function",
    "done(echo.constructor('return typeof process')())",
    "undefined",
  ],
  [
    "the global's constructor chain",
    "done((function () { return this })().constructor.constructor('return typeof process')())",
    "undefined",
  ],
  ["console's functions", "done(console.log.constructor('return typeof require')())", "undefined"],
  [
    "a gate result's prototype is the sandbox's",
    "var r = probe(); done(r.constructor.constructor('return typeof process')())",
    "undefined",
  ],
  [
    "dynamic import",
    "var out = 'pending'; import('fs').then(() => { out = 'loaded' }, (e) => { out = 'refused' }); done(out)",
    "pending",
  ],
  [
    "no Node globals",
    "done([typeof Buffer, typeof setTimeout, typeof fetch, typeof WebAssembly].join())",
    "undefined,undefined,undefined,undefined",
  ],
];

describe("sandbox escapes", () => {
  it.each(SANDBOX_PROBES)("%s", async (_name, code, want) => {
    const { cantrip } = codeCantrip([code], {
      gates: [
        doneGate(),
        echoGate(),
        behaviorGate({ name: "probe", behavior: { result: { a: 1 } } }),
      ],
      wards: [{ max_turns: 2 }],
    });
    expect((await cantrip.cast("escape")).result).toEqual(want);
  });

  it("polluting prototypes inside reaches nothing outside", async () => {
    const { cantrip } = codeCantrip(
      [
        "Object.prototype.polluted = 1; Array.prototype.map = null; JSON.parse = () => ({ hacked: true }); JSON.stringify = () => 'x';" +
          " var r = probe(); done([r.a, echo('still works')])",
      ],
      {
        gates: [
          doneGate(),
          echoGate(),
          behaviorGate({ name: "probe", behavior: { result: { a: 1 } } }),
        ],
        wards: [{ max_turns: 2 }],
      },
    );
    expect((await cantrip.cast("pollute")).result).toEqual([1, "still works"]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(typeof [].map).toBe("function");
  });
});

const ctx = fileGateContext;

function tree() {
  const top = mkdtempSync(join(tmpdir(), "escape-"));
  const root = join(top, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "inside.txt"), "inside");
  writeFileSync(join(top, "secret.txt"), "top secret");
  return { top, root };
}

describe("file-gate escapes", () => {
  it("refuses every path that leaves the root", () => {
    const { top, root } = tree();
    symlinkSync(join(top, "secret.txt"), join(root, "link.txt"));
    symlinkSync(top, join(root, "sub", "up"));
    symlinkSync("loop-b", join(root, "loop-a"));
    symlinkSync("loop-a", join(root, "loop-b"));
    const read = readGate({ root });
    const list = listDirGate({ root });
    const attempts = [
      "../secret.txt",
      "sub/../../secret.txt",
      "./../secret.txt",
      "..\\secret.txt",
      "sub/up/secret.txt",
      "link.txt",
      `${top}/secret.txt`,
      "/../secret.txt",
      "//../secret.txt",
      "sub/./../../secret.txt",
      "inside.txt\u0000../../secret.txt",
      "%2e%2e/secret.txt",
      "loop-a",
      `${"../".repeat(50)}etc/passwd`,
      "sub/up",
      "sub/up/root/../secret.txt",
    ];
    for (const path of attempts) {
      for (const gate of [read, list]) {
        let out: unknown;
        try {
          out = gate.execute({ path }, ctx);
        } catch (err) {
          out = (err as Error).message;
        }
        expect(JSON.stringify(out), `${gate.name}(${JSON.stringify(path)})`).not.toMatch(
          /top secret|secret\.txt"?,|passwd:/,
        );
        // Messages name the path as given, never where it is on the host.
        if (!path.includes(top)) expect(String(out)).not.toContain(top);
      }
    }
    expect(read.execute({ path: "inside.txt" }, ctx)).toBe("inside");
  });

  it("a symlink flipped between inside and outside while it is read never lets the outside through", async () => {
    const { top, root } = tree();
    const link = join(root, "flip.txt");
    symlinkSync(join(root, "inside.txt"), link);
    // Another process swaps the link's target as fast as it can.
    const flipper = spawn(process.execPath, [
      "-e",
      `const fs = require("fs"); const [link, a, b] = process.argv.slice(1);
       for (let i = 0; ; i++) { try { fs.unlinkSync(link) } catch {} try { fs.symlinkSync(i % 2 ? a : b, link) } catch {} }`,
      link,
      join(root, "inside.txt"),
      join(top, "secret.txt"),
    ]);
    try {
      const read = readGate({ root });
      let inside = 0;
      for (let i = 0; i < 5000; i++) {
        let out: unknown;
        try {
          out = read.execute({ path: "flip.txt" }, ctx);
        } catch (err) {
          out = (err as Error).message;
        }
        expect(out).not.toBe("top secret");
        if (out === "inside") inside++;
        if (i % 500 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(inside).toBeGreaterThan(0); // the race really ran both ways
    } finally {
      flipper.kill("SIGKILL");
    }
  }, 120_000);
});

/**
 * Another process swaps the folder `root/sub` between a real folder and a symlink to a folder
 * outside the root (one this test made), as fast as it can. Only paths below the test's own
 * temporary folder are touched.
 */
function folderFlipper(root: string, outside: string) {
  return spawn(process.execPath, [
    "-e",
    `const fs = require("fs"); const [sub, hold, outside] = process.argv.slice(1);
     for (;;) {
       try { fs.renameSync(sub, hold) } catch {}
       try { fs.symlinkSync(outside, sub) } catch {}
       try { fs.unlinkSync(sub) } catch {}
       try { fs.renameSync(hold, sub) } catch { try { fs.rmSync(sub, { recursive: true, force: true }) } catch {} }
     }`,
    join(root, "sub"),
    join(root, ".hold"),
    outside,
  ]);
}

function raceTree() {
  const { top, root } = tree();
  writeFileSync(join(root, "sub", "f.txt"), "inside");
  const outside = join(top, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "f.txt"), "OUTSIDE");
  writeFileSync(join(outside, "only-outside.txt"), "");
  return { root, outside };
}

const settle = () => new Promise((r) => setImmediate(r));

describe("file gates under a folder swapped for a symlink", () => {
  it("read never returns a file outside the root", async () => {
    const { root, outside } = raceTree();
    const flipper = folderFlipper(root, outside);
    try {
      const read = readGate({ root });
      const seen = new Map<string, number>();
      for (let i = 0; i < 10_000; i++) {
        let out: unknown;
        try {
          out = read.execute({ path: "sub/f.txt" }, ctx);
        } catch (err) {
          out = (err as Error).message.split(":")[0];
        }
        seen.set(String(out), (seen.get(String(out)) ?? 0) + 1);
        if (i % 200 === 0) await settle();
      }
      expect(seen.get("OUTSIDE"), JSON.stringify([...seen])).toBeUndefined();
      expect(seen.get("inside")).toBeGreaterThan(0); // the race really ran
    } finally {
      flipper.kill("SIGKILL");
    }
  }, 120_000);

  it("write never puts a file (or a temporary file) outside the root", async () => {
    const { root, outside } = raceTree();
    const flipper = folderFlipper(root, outside);
    try {
      const write = writeGate({ root, writable: true });
      let wrote = 0;
      for (let i = 0; i < 6000; i++) {
        try {
          write.execute({ path: `sub/w${i}.txt`, content: "w" }, ctx);
          wrote++;
        } catch {
          // refused or raced away: either is fine, as long as nothing lands outside
        }
        if (i % 200 === 0) await settle();
      }
      expect(wrote).toBeGreaterThan(0);
    } finally {
      flipper.kill("SIGKILL");
    }
    expect(readdirSync(outside).sort()).toEqual(["f.txt", "only-outside.txt"]);
  }, 120_000);

  it("list_dir never lists a folder outside the root", async () => {
    const { root, outside } = raceTree();
    const flipper = folderFlipper(root, outside);
    try {
      const list = listDirGate({ root });
      let listed = 0;
      for (let i = 0; i < 10_000; i++) {
        let names: unknown = [];
        try {
          names = list.execute({ path: "sub" }, ctx);
          listed++;
        } catch {
          // ENOENT while the folder is moved away, or refused
        }
        expect(names).not.toContain("only-outside.txt");
        if (i % 200 === 0) await settle();
      }
      expect(listed).toBeGreaterThan(0);
    } finally {
      flipper.kill("SIGKILL");
    }
  }, 120_000);
});
