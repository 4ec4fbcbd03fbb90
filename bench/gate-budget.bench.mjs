// What gate calls may cost (issue 20), measured on the built library with the attacks:
// - code medium: one run calling `echo` 2,000 times (GATE_BUDGET_CALLS to change it) with 100 KB, catching each refusal (before:
//   3.3 GB of host memory) — the loom file's size (target ≤ the 16 MiB budget + 1 MiB) and the
//   process's RSS growth at its peak (sampled every 10 ms; target < 256 MB);
// - bash medium: 50 connections of 4 MB each sent straight to the gate socket by perl (before:
//   2.4 GB and a 400 MB loom record) — the same two figures (skipped without bubblewrap).
// Each attack runs in a process of its own, so one's memory does not hide the other's.
import { execFileSync } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cantrip, Circle, JsonlStore, Loom, ScriptedLLM, codeMedium } from "../dist/index.js";
import { doneGate, echoGate } from "../dist/circle/gates/index.js";
import { bwrapProblem, createBashMedium } from "../dist/circle/mediums/bash/index.js";
import { row } from "./report.mjs";

const MiB = 1024 * 1024;

/** Casts and reports the loom file's size and the peak RSS growth while it ran. */
async function attack(medium, responses, wards) {
  const dir = mkdtempSync(join(tmpdir(), "gate-budget-bench-"));
  const path = join(dir, "loom.jsonl");
  globalThis.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = globalThis.setInterval(
    () => (peak = Math.max(peak, process.memoryUsage().rss)),
    10,
  );
  const cantrip = new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: { systemPrompt: "bench" },
    circle: new Circle({ medium: medium(dir), gates: [doneGate(), echoGate()], wards }),
    loom: new Loom(new JsonlStore(path)),
  });
  const result = await cantrip.cast("attack");
  globalThis.clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const last = result.loom.turns()[0].observation.split("\n").pop();
  const observation = last.startsWith("result: ") ? last.slice(8) : last.slice(0, 80);
  return { loom: statSync(path).size, rss: peak - base, observation, status: result.status };
}

function report(name, r) {
  const loomMiB = r.loom / MiB;
  const rssMB = r.rss / 1e6;
  row(`${name}: loom file`, loomMiB, {
    unit: "MiB",
    digits: 1,
    better: "lower",
    target: "≤ 17 MiB",
    ok: loomMiB <= 17,
  });
  row(`${name}: RSS growth at peak`, rssMB, {
    unit: "MB",
    digits: 0,
    better: "lower",
    target: "< 256 MB",
    ok: rssMB < 256,
  });
  row(`${name}: cast`, r.status, { target: "terminated", ok: r.status === "terminated" });
}

const CALLS = Number(process.env.GATE_BUDGET_CALLS ?? 2000);
const ECHO_LOOP = `var s = "x".repeat(100000), ok = 0, failed = 0;
for (var i = 0; i < ${CALLS}; i++) { try { echo(s); ok++ } catch (e) { failed++ } }
[ok, failed]`;

const FLOOD = `use IO::Socket::UNIX; my @k;
for (1 .. 50) { my $p = fork(); if (!$p) {
  my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ENV{SPELL_GATE_SOCKET}) or exit 0;
  print $s "echo\\0" . ("a" x 4000000); shutdown($s, 1); local $/; my $r = <$s>; exit 0 }
  push @k, $p }
waitpid($_, 0) for @k; print "over\\n";`;

const ATTACKS = {
  code: () =>
    attack(() => codeMedium, [{ code: ECHO_LOOP }, { code: "done(1)" }], [{ max_turns: 3 }]),
  bash: () =>
    attack(
      (dir) => {
        writeFileSync(join(dir, "flood.pl"), FLOOD);
        return createBashMedium({ root: dir, writable: false, sandbox: "bwrap" });
      },
      [{ code: "perl flood.pl" }, { code: "done 1" }],
      [{ max_turns: 3 }, { max_command_ms: 120_000 }],
    ),
};

const which = process.argv[2];
if (which) {
  console.log(JSON.stringify(await ATTACKS[which]()));
  process.exit(0);
}
const run = (name) =>
  JSON.parse(
    execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), name], {
      encoding: "utf8",
      maxBuffer: 64 * MiB,
    }),
  );

const code = run("code");
report("code, 2,000 echo calls of 100 KB", code);
row("code: calls that worked, refused", code.observation);
const noBwrap = bwrapProblem();
if (noBwrap) row("bash attack", `skipped: ${noBwrap}`);
else report("bash, 50 connections of 4 MB", run("bash"));
