// Every `spell` command line the README and docs/ show in a fenced block is run with the built
// CLI (bin/run.js; `npm run build` first), in a scratch folder holding copies of spells/ and
// grimoire/ and the fixtures the lines name. Synopsis lines (`spell run FILE [--json]`) run
// with every optional part and a value for each placeholder. None may be a usage error (exit 3,
// "unknown flag", "unknown command"); each must succeed (exit 0) — the fixtures make that
// possible offline. A few lines cannot run here; each is listed with its reason.
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { otlpReceiver, type Receiver } from "../otel/receiver.js";
import { wireReplyOf } from "../../src/conformance/mock-openai-replies.js";
import { startLoopbackProvider, type LoopbackServer } from "../support/providers.js";
import type { CommandShape } from "../../src/cli/argv.js";
import { COMMANDS } from "../../src/commands/main.js";
import {
  fencedCommands,
  instantiate,
  isSynopsis,
  type DocCommand,
} from "../support/doc-commands.js";

const root = process.cwd();
const docs = [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md") && f !== "spec.md") // spec.md is the Cantrip spec, not ours
    .map((f) => `docs/${f}`),
  ...readdirSync("docs/design").map((f) => `docs/design/${f}`),
];

/** Why the "Sharing spells" lines do not run here. */
const REGISTRY_LINE =
  "needs a registry other than loopback, or its credential; tests/registry/share.test.ts runs push, pull, inspect, lock, login and run oci:// against a docker-registry it starts on a loopback port";

/** Lines that need what a test may not have; each with its reason. */
const EXCLUDED: Record<string, string> = {
  "spell push FILE HOST[:PORT]/REPO[:TAG] [--plain-http]": REGISTRY_LINE,
  "spell pull HOST[:PORT]/REPO[:TAG|@DIGEST] [--out DIR] [--plain-http]": REGISTRY_LINE,
  "spell inspect HOST[:PORT]/REPO[:TAG|@DIGEST] [--json] [--plain-http]": REGISTRY_LINE,
  "spell lock FILE|oci://REF [--update] [--plain-http]": REGISTRY_LINE,
  "spell login HOST[:PORT] --username NAME --password-stdin [--plain-http]": REGISTRY_LINE,
  "spell push triage.yaml ghcr.io/acme/spells/triage:2": REGISTRY_LINE,
  "spell inspect ghcr.io/acme/spells/triage:2": REGISTRY_LINE,
  "spell pull ghcr.io/acme/spells/triage:2 --out triage": REGISTRY_LINE,
  "spell run oci://ghcr.io/acme/spells/triage:2 --input issue=42": REGISTRY_LINE,
  "spell lock service.yaml": REGISTRY_LINE,

  'OPENROUTER_API_KEY=… spell run spells/council.yaml --llm openrouter/auto --intent "Should we …?"':
    "needs a real OpenRouter key and the network",
  "spell run spell.yaml --llm openai/gpt-4.1": "needs a real OpenAI key and the network",
  "spell eval FILE [--repeat K] [--concurrency C] [--filter TEXT] [--llm P/M] [--out DIR] [--compare DIR] [--record] [--replay DIR] [--plain-http] [--otel URL [--otel-content]]":
    "every part at once replays a recording made with that --llm; the parts are run by tests/eval/ and the offline example line in EVALS.md",
  "spell run FILE --repeat K --queue redis://HOST:PORT [--loom URL]":
    "needs a running Redis and workers; tests/queue/queue-run-repeat.test.ts runs it",
  "spell eval FILE --queue redis://HOST:PORT [--loom URL]":
    "needs a running Redis and workers; tests/queue/queue-eval.test.ts runs it",
  "spell worker --queue redis://HOST:PORT [--concurrency C] [--loom URL] [--spells DIR] [--lock-ms N] [--stalled-check-ms N] [--rate PROVIDER=N/s]":
    "runs until stopped and needs a running Redis; tests/queue/ start real workers",
  "spell worker --queue redis://127.0.0.1:6379 --concurrency 4 --loom postgres://spell@127.0.0.1/looms":
    "needs a running Redis and PostgreSQL and runs until stopped; tests/queue/readme-scale.test.ts runs it on a Redis and a PostgreSQL of its own",
  "spell loom import FILE.jsonl --to postgres://USER@HOST/DB":
    "needs a running PostgreSQL; tests/loom/loom-cli-postgres.test.ts imports into a real one it starts",
  "spell eval spells/arithmetic-eval.yaml --queue redis://127.0.0.1:6379":
    "needs a running Redis and workers; tests/queue/readme-scale.test.ts runs it with the section's Redis and workers on ports of its own",
};

/**
 * How long one line may take. `spell test` runs every spell's cases (~20-40 s under
 * `stress --cpu 8` on 2 cores, past 120 s at a load of 25): a bound for a hang, not a speed check.
 */
const LOADED_MACHINE_MS = 600_000;

/**
 * The --otel lines export to a closed port: the OTLP exporter retries a refused connection with
 * back-off until its timeout (10 s by default), then the line says the spans were not sent. A
 * timeout of 1 s (OpenTelemetry's own setting) reaches the same end sooner.
 */
const GIVE_UP_EXPORT = { OTEL_EXPORTER_OTLP_TIMEOUT: "1000" };

const work = mkdtempSync(join(tmpdir(), "doc-commands-"));
let entity = "";
let turn = "";
let replayEntity = "";
/** The LLM of `--llm local/model`: a loopback OpenAI-compatible server that answers `done`. */
let provider: LoopbackServer | undefined;
/** Where the --otel and `loom otel` lines send their spans (an unreachable one fails `loom otel`). */
let collector: Receiver | undefined;

/** A placeholder's value: `values["COMMAND WORD"]` before `values[WORD]`. */
const values = (): Record<string, string> => ({
  FILE: "spell.yaml",
  "TYPED.yaml": "typed.yaml", // a spell with inputs: (written below)
  "NAME=VALUE": "name=Ada",
  "FILE.json": "inputs.json",
  "council FILE": "spells/council.yaml",
  "flow FILE": "spells/greeter-flow.yaml",
  "dna FILE": "spells/greeter-flow.yaml",
  "loom export FILE": "runs/loom.jsonl",
  "loom export FILE|URL": "runs/loom.jsonl", // the file form (a URL: tests/loom/loom-view-postgres.test.ts, loom-cli-postgres.test.ts)
  "loom tree FILE": "runs/loom.jsonl",
  "loom tree FILE|URL": "runs/loom.jsonl",
  "loom stats FILE": "runs/replay.jsonl",
  "loom stats FILE|URL": "runs/replay.jsonl",
  "loom reward FILE": "runs/replay.jsonl",
  "loom reward FILE|URL": "runs/replay.jsonl",
  "loom reward ID": turn,
  "loom thread FILE": "runs/replay.jsonl",
  "loom thread FILE|URL": "runs/replay.jsonl",
  "loom thread ID": turn,
  "loom fork FILE": "runs/replay.jsonl",
  "loom fork ID|SEQ": turn,
  "loom fork ID": replayEntity,
  N: "2",
  X: "1",
  "text|jsonl|openai|anthropic": "openai",
  "loom otel FILE": "runs/loom.jsonl",
  "FILE…": "spell.yaml",
  "FILE|FOLDER…": "spell.yaml",
  "SPELL.yaml": "spell.yaml",
  TEXT: "What is 2 + 3?",
  K: "2",
  C: "2",
  ID: entity,
  TURN: turn,
  "PATH|memory": "runs/loom.jsonl",
  "PATH|memory|postgres://…": "runs/loom.jsonl", // the file form (PostgreSQL: tests/loom/)
  PATH: "runs/loom.jsonl",
  LOOM: "runs/replay.jsonl",
  "text|json": "json",
  "MESSAGES.jsonl": "messages.jsonl",
  "KEY.pem": "key.pem",
  "SIGNED.json": "signed.json",
  "PUB.pem": "pub.pem",
  DIR: "ws",
  T: "t0ken",
  "P/M": "local/model", // the loopback provider below
  "provider/model": "local/model",
  "serve 8787": "0", // any free port: another process may hold 8787
  "view 8788": "0",
  "LOOM|DIR": "runs",
  "loom view FILE": "runs/loom.jsonl",
  "loom view FILE|URL": "runs/loom.jsonl",
  "URL…": "http://localhost:3000",
  AGENT: "greeter",
  URL: collector!.url, // --otel, loom otel: a loopback OTLP receiver of this file's
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `spell ARGV` in the scratch folder; a server is stopped (SIGTERM) once it says it listens. */
function spell(argv: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  return new Promise<Ran>((done) => {
    const child = spawn(process.execPath, [join(root, "bin/run.js"), ...argv], {
      cwd: work,
      env: {
        ...process.env,
        LOCAL_LLM_BASE_URL: `${provider!.url}/v1`,
        ...GIVE_UP_EXPORT,
        ...opts.env,
      },
    });
    let stdout = "";
    let stderr = "";
    let stopped = false;
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (!stopped && / listening on /.test(stderr)) stopped = child.kill("SIGTERM");
    });
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
}

beforeAll(async () => {
  collector = await otlpReceiver();
  const done = { tool_calls: [{ gate: "done", args: { answer: "5" } }] };
  provider = await startLoopbackProvider([wireReplyOf("llm", done, 0)], { repeatLast: true });
  cpSync(join(root, "spells"), join(work, "spells"), { recursive: true });
  cpSync(join(root, "grimoire"), join(work, "grimoire"), { recursive: true });
  cpSync(join(root, "grimoire/04-cantrip.yaml"), join(work, "spell.yaml"));
  mkdirSync(join(work, "ws"));
  mkdirSync(join(work, "runs"));
  const keys = generateKeyPairSync("ed25519");
  writeFileSync(join(work, "key.pem"), keys.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(join(work, "pub.pem"), keys.publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(join(work, "messages.jsonl"), '{"text":"hi there"}\n');
  writeFileSync(
    join(work, "typed.yaml"),
    [
      "name: typed",
      "llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: hi } }] }] }",
      "inputs: { type: object, properties: { name: { type: string } }, required: [name] }",
      'intent: "Greet {{name}}."',
      "identity: {}",
      "circle: { gates: [done], wards: [{ max_turns: 2 }] }",
    ].join("\n"),
  );
  writeFileSync(join(work, "inputs.json"), '{"name":"Bo"}\n');
  const signed = await spell(["dna", "spells/greeter-flow.yaml", "--sign", "key.pem"]);
  writeFileSync(join(work, "signed.json"), signed.stdout);
  const recorded = await spell(["run", "spell.yaml", "--loom", "runs/replay.jsonl", "--json"]);
  const replayed = JSON.parse(recorded.stdout) as { last_turn_id: string; entity_id: string };
  turn = replayed.last_turn_id;
  replayEntity = replayed.entity_id;
  const run = await spell(["run", "spell.yaml", "--loom", "runs/loom.jsonl", "--json"]);
  entity = (JSON.parse(run.stdout) as { entity_id: string }).entity_id;
}, LOADED_MACHINE_MS);
afterAll(async () => {
  await provider?.close();
  await collector?.close();
});

const commands = fencedCommands(root, docs);

describe("the documented command lines", () => {
  it("are found (the README's CLI list, its examples, docs/providers.md, docs/design/EVALS.md)", () => {
    const where = new Set(commands.map((c) => c.where.split(":")[0]));
    expect(where).toEqual(new Set(["README.md", "docs/providers.md", "docs/design/EVALS.md"]));
    expect(commands.length).toBeGreaterThan(20);
  });

  for (const c of commands.filter((x) => EXCLUDED[x.line] !== undefined))
    it.skip(`${c.where}: ${c.line} — not run: ${EXCLUDED[c.line]}`, () => undefined);

  it.each(
    commands
      .filter((c) => EXCLUDED[c.line] === undefined)
      .map((c) => [`${c.where}: ${c.line}`, c] as const),
  )(
    "%s",
    async (_name, c: DocCommand) => {
      const argv = isSynopsis(c.argv) ? instantiate(c.argv, values()) : c.argv;
      const r = await spell(argv, { stdin: c.stdin, env: c.env });
      if (c.stdoutTo) writeFileSync(join(work, c.stdoutTo), r.stdout);
      const shown = `spell ${argv.join(" ")}\n${r.stderr}`;
      expect(r.stderr, shown).not.toMatch(/unknown (flag|command)/);
      expect(r.code, shown).not.toBe(3);
      expect(r.code, shown).toBe(0);
    },
    LOADED_MACHINE_MS,
  );
});

describe("the README's command list", () => {
  const readme = readFileSync("README.md", "utf8");
  const block = /## The CLI\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const lines = block.split("\n").filter((l) => l.startsWith("spell "));

  it.each(Object.keys(COMMANDS))("has spell %s with every flag it takes", (id) => {
    const words = id.split(":");
    const line = lines
      .filter((l) => {
        const lead = l.split(" ").slice(1);
        const n = lead.findIndex((w) => !/^[a-z]+$/.test(w));
        return (n === -1 ? lead : lead.slice(0, n)).join(" ") === words.join(" ");
      })
      .join("\n");
    expect(line, `no line for spell ${words.join(" ")}`).not.toBe("");
    const flags = (COMMANDS as Record<string, CommandShape>)[id]!.flags ?? {};
    for (const [name, f] of Object.entries(flags)) {
      const written = f.allowNo ? `--no-${name}` : `--${name}`;
      expect(line, `spell ${words.join(" ")} lacks ${written}`).toMatch(
        new RegExp(`${written}\\b`),
      );
    }
  });
});
