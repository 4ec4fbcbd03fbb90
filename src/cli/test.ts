import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { replayCheck } from "../conformance/replay.js";
import { runFile, type CaseResult } from "../conformance/runner.js";
import { errorMessage } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { redactedJson } from "../core/redact-stream.js";
import { KEY_ENV_VARS } from "../llm/providers/profiles.js";
import { envSecretsIn } from "../spell/rewrite.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";

/** A folder stands for the YAML files in it. */
function expandDir(cwd: string, file: string): string[] {
  const full = resolve(cwd, file);
  if (!existsSync(full) || !statSync(full).isDirectory()) return [file];
  return readdirSync(full)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(file, f));
}

/** Default targets: tests.yaml, flow-tests.yaml, then every spell in spells/ and grimoire/ that has tests. */
function defaultTargets(cwd: string, io: CliIO): string[] {
  const out: string[] = [];
  for (const suite of ["tests.yaml", "flow-tests.yaml"])
    if (existsSync(join(cwd, suite))) out.push(suite);
  for (const dir of ["spells", "grimoire"]) {
    if (!existsSync(join(cwd, dir))) continue;
    for (const f of readdirSync(join(cwd, dir)).sort())
      if (/\.ya?ml$/.test(f)) out.push(join(dir, f));
  }
  if (!out.length)
    io.stderr(
      "nothing to test: no tests.yaml, flow-tests.yaml, spells/ or grimoire/ here; name files or folders: spell test FILE…\n",
    );
  return out;
}

/** `spell test`: per case rule, name, pass/fail/skip and message; exit 1 when any case fails. */
export async function testCommand(
  files: string[],
  flags: {
    reporter: "text" | "json";
    /** A recorded loom: each file is a spell whose run must reproduce the recorded thread. */
    replay?: string | undefined;
    thread?: string | undefined;
    intent?: string | undefined;
  },
  io: CliIO,
): Promise<number> {
  if (flags.replay && !files.length) {
    io.stderr(
      "--replay needs the spell that made the recording: spell test spell.yaml --replay loom.jsonl\n",
    );
    return EXIT.invalid;
  }
  if (anyMissing(files, io)) return EXIT.invalid;
  const targets = files.length
    ? files.flatMap((f) => expandDir(io.cwd, f))
    : defaultTargets(io.cwd, io);
  const all: (CaseResult & { file: string })[] = [];
  let broken = 0;
  // PROD-8: a failure message can quote a value from the environment (both reporters).
  const redactor = new Redactor();
  for (const name of KEY_ENV_VARS) redactor.add(io.env[name]);
  const push = (r: CaseResult, file: string) => {
    const clean = {
      ...r,
      name: redactor.redact(r.name),
      message: r.message && redactor.redact(r.message),
    };
    all.push({ ...clean, file });
    if (flags.reporter === "text") io.stdout(line(clean));
    for (const w of r.warnings ?? [])
      io.stderr(redactor.redact(`warning: ${r.name} (${r.location}): ${w}\n`));
  };
  for (const file of targets) {
    const path = displayPath(io.cwd, file);
    for (const secret of secretsOf(path, io.env)) redactor.add(secret);
    try {
      if (flags.replay) {
        const r = await replayCheck(path, displayPath(io.cwd, flags.replay), {
          thread: flags.thread,
          intent: flags.intent,
          env: io.env,
        });
        push(r, path);
        continue;
      }
      await runFile(path, (r) => push(r, path));
    } catch (err) {
      broken++;
      io.stderr(redactor.redact(`${whereFrom(path, errorMessage(err))}\n`));
    }
    await io.drain?.(); // the text reporter's lines of a file, taken before the next file runs
  }
  return report(all, broken, flags.reporter, redactor, io);
}

/** A file's error, under its name unless it begins with it (a loader error's file:line:col). */
const whereFrom = (path: string, message: string): string =>
  message.startsWith(`${path}:`) ? message : `${path}: ${message}`;

/** A named file that is not there is a usage error (exit 3), not a failed test: each is told. */
function anyMissing(files: string[], io: CliIO): boolean {
  const missing = files.filter((f) => !existsSync(resolve(io.cwd, f)));
  for (const f of missing) io.stderr(`${f}: no such file or folder\n`);
  return missing.length > 0;
}

/** The closing count (both reporters); exit 1 when a case failed or a file could not run. */
async function report(
  all: (CaseResult & { file: string })[],
  broken: number,
  reporter: "text" | "json",
  redactor: Redactor,
  io: CliIO,
): Promise<number> {
  const count = (s: CaseResult["status"]) => all.filter((r) => r.status === s).length;
  const [passed, failed, skipped] = [count("pass"), count("fail"), count("skip")];
  if (reporter === "json") {
    const json = redactedJson(
      { passed, failed, skipped, broken_files: broken, cases: all },
      (t) => redactor.redact(t),
      2,
    );
    await print(io, json + "\n");
  } else {
    const unrun = broken ? `, ${broken} file(s) could not run (above)` : "";
    await print(io, `\n${passed} passed, ${failed} failed, ${skipped} skipped${unrun}\n`);
  }
  return failed || broken ? EXIT.failed : EXIT.ok;
}

function line(r: CaseResult): string {
  const mark = r.status === "pass" ? "✓" : r.status === "fail" ? "✗" : "-";
  const msg = r.message ? ` — ${r.message}` : "";
  return `${mark} ${r.rule ? `[${r.rule}] ` : ""}${r.name}${r.status === "pass" ? "" : ` (${r.location})`}${msg}\n`;
}

/** The `${env:…}` values a test file names (its spell's secrets and its cases' setups). */
function secretsOf(path: string, env: NodeJS.ProcessEnv): string[] {
  try {
    return envSecretsIn(readFileSync(path, "utf8"), env);
  } catch {
    return []; // a missing file is reported by the run itself
  }
}
