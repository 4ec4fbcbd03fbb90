// Every EXAMPLES line of every command's `--help` is run with the built CLI (bin/run.js; `npm run
// build` first), in a scratch folder holding copies of spells/ and grimoire/ and a placeholder
// for each file the lines name (spell.yaml, evals.yaml, key.pem…), offline. Each must succeed
// (exit 0). A few words are replaced where running them as written would reach past this test
// (a fixed port, every interface, a collector that may be someone else's); each replacement and
// each line that cannot run here is listed with its reason. (tests/cli/conventions.test.ts checks
// the same lines' arguments; tests/cli/doc-commands.test.ts runs the README's lines.)
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/commands/main.js";
import { parseCommand, stripComment } from "../support/doc-commands.js";
import { otlpReceiver, type Receiver } from "../otel/receiver.js";

const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), "help-examples-"));

/** Why the sharing commands' examples do not run here. */
const REGISTRY_LINE =
  "needs a registry (tests/registry/share.test.ts runs push, pull, inspect, lock, login and run oci:// against a docker-registry it starts on a loopback port)";

/** Example lines that need what a test may not have; each with its reason. */
const NOT_RUN: Record<string, string> = {
  "spell council spells/council.yaml --llm openrouter/auto":
    "needs a real OpenRouter key and the network",
  "spell familiar":
    "the Familiar's LLM is anthropic/claude-sonnet-4-5: a real key and the network (offline: tests/cli/familiar.test.ts)",
  "spell familiar ../my-project --llm openai/gpt-4.1": "needs a real OpenAI key and the network",
  'echo "What does this project do?" | spell familiar . --quiet':
    "the Familiar's LLM is anthropic/claude-sonnet-4-5: a real key and the network",
  "spell run spell.yaml --llm anthropic/claude-sonnet-4-5":
    "needs a real Anthropic key and the network",
  "spell loom import .spellbook/loom.jsonl --to postgres://localhost/spellbook":
    "needs a PostgreSQL server on localhost (tests/loom/loom-cli-postgres.test.ts imports into a real one it starts)",
  "spell worker --queue redis://127.0.0.1:6379":
    "serves until stopped and needs a Redis server on 6379 (tests/queue/ start real workers on a Redis of their own)",
  "spell worker --queue redis://10.0.0.5:6379 --concurrency 8 --loom postgres://spell@10.0.0.6/looms":
    "names other machines' Redis and PostgreSQL (tests/queue/ start real workers on loopback servers)",
  "spell worker --queue redis://127.0.0.1:6379 --rate openai=10/s --rate anthropic=50/m":
    "serves until stopped and needs a Redis server on 6379 (tests/queue/queue-rate-steady.test.ts starts real workers with --rate)",
  "spell push spells/summarize.yaml localhost:5000/team/summarize:1": REGISTRY_LINE,
  "spell push triage.yaml ghcr.io/acme/spells/triage:2": REGISTRY_LINE,
  "spell pull localhost:5000/team/summarize:1": REGISTRY_LINE,
  "spell pull ghcr.io/acme/spells/triage:2 --out triage": REGISTRY_LINE,
  "spell inspect localhost:5000/team/summarize:1": REGISTRY_LINE,
  "spell inspect ghcr.io/acme/spells/triage:2 --json": REGISTRY_LINE,
  "spell lock triage.yaml": REGISTRY_LINE,
  "spell lock triage.yaml --update": REGISTRY_LINE,
  "spell lock oci://localhost:5000/team/summarize:1": REGISTRY_LINE,
  'echo "$REGISTRY_TOKEN" | spell login ghcr.io --username octocat --password-stdin': REGISTRY_LINE,
};

/** Words replaced before a line runs; each with its reason. */
const REPLACED: [RegExp, () => string, string][] = [
  [/--port 9000/, () => "--port 0", "any free port: another process may hold 9000"],
  [/--host 0\.0\.0\.0/, () => "--host 127.0.0.1", "tests listen on loopback only"],
  [
    /http:\/\/localhost:4318/,
    () => collector!.url,
    "a loopback OTLP receiver of this file's: a collector on 4318 may be another process's",
  ],
  [/turn_…/, () => ids.turn, "a turn of the scratch loom"],
  [/ent_019ac2f0-1d2e-7f3a-8b4c-0d1e2f3a4b5c/, () => ids.entity, "an entity of the scratch loom"],
  [/ent_019ac2f1-6b3e-7a10-9c4d-5e6f7a8b9c0d/, () => ids.entity, "an entity of the scratch loom"],
  [
    /spell run spell\.yaml --repeat/,
    () => "spell run repeat.yaml --repeat",
    "a spell whose script answers any number of casts (spell.yaml's answers one)",
  ],
  [
    /printf "first\\nsecond\\n" \| spell summon spell\.yaml --quiet/,
    () => 'printf "first\\n" | spell summon spell.yaml --quiet',
    "spell.yaml's script answers one send, and a send that fails fails a piped session (a later line replays this entity)",
  ],
  [/ >> /, () => " > ", "the scratch file is new: appending is writing"],
];

/**
 * The --otel and `loom otel` lines export to a closed port: the OTLP exporter retries a refused
 * connection with back-off until its timeout (10 s by default), then the line says the spans were
 * not sent. A timeout of 1 s (OpenTelemetry's own setting) reaches the same end sooner.
 */
const GIVE_UP_EXPORT = { OTEL_EXPORTER_OTLP_TIMEOUT: "1000" };

const ids = { turn: "", entity: "" };

const examples = Object.entries(COMMANDS).flatMap(([id, command]) =>
  ((command as { examples?: (string | { command: string })[] }).examples ?? []).map(
    (e) => [id, stripComment(typeof e === "string" ? e : e.command).trim()] as const,
  ),
);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Children still running: one whose example ran past its limit is stopped after the file. */
const running = new Set<ReturnType<typeof spawn>>();
afterAll(async () => {
  for (const child of running) child.kill("SIGKILL"); // only processes this file started
  await collector?.close();
});
/** Where the --otel and `loom otel` lines send their spans (an unreachable one fails `loom otel`). */
let collector: Receiver | undefined;

/** `spell ARGV` in the scratch folder; a server is stopped (SIGTERM) once it says it listens. */
function spell(argv: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  return new Promise<Ran>((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...GIVE_UP_EXPORT, ...opts.env };
    // No display: spell view --open only says where the page is (no browser is started).
    delete env["DISPLAY"];
    delete env["WAYLAND_DISPLAY"];
    const child = spawn(process.execPath, [join(root, "bin/run.js"), ...argv], { cwd: work, env });
    running.add(child);
    child.on("exit", () => running.delete(child));
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

/** A typed spell like spells/summarize.yaml, scripted: it reads the file, then answers. */
const SUMMARIZE = `name: summarize
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: read, args: { path: README.md } }]
    - tool_calls: [{ gate: done, args: { answer: { summary: A readme., key_points: [short] } } }]
inputs:
  type: object
  properties: { path: { type: string }, words: { type: integer } }
  required: [path]
intent: "Summarize {{path}} in about {{words}} words."
output_schema:
  type: object
  properties: { summary: { type: string }, key_points: { type: array, items: { type: string } } }
  required: [summary, key_points]
identity: {}
circle: { gates: [done, { read: { root: . } }], wards: [{ max_turns: 4 }] }
`;

/** An eval whose spell always answers right, so any --repeat passes (spells/arithmetic-eval.yaml's
 * script holds the replies of its own repeat: 2 only). */
const EVALS = `kind: eval
spells: [./answer.yaml]
cases: [{ name: sum, intent: What is 2 + 2?, expect: [{ result: "4" }] }]
`;
const ANSWER = `name: answer
llm: { provider: scripted, cycle: true, responses: [{ tool_calls: [{ gate: done, args: { answer: "4" } }] }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

beforeAll(async () => {
  collector = await otlpReceiver();
  cpSync(join(root, "spells"), join(work, "spells"), { recursive: true });
  cpSync(join(root, "grimoire"), join(work, "grimoire"), { recursive: true });
  cpSync(join(root, "tests.yaml"), join(work, "tests.yaml"));
  // spells/notes.yaml's MCP server (bare `spell test` runs its tests) imports the MCP SDK and zod:
  // a scratch folder outside the checkout sees the checkout's packages through this link.
  symlinkSync(join(root, "node_modules"), join(work, "node_modules"), "dir");
  cpSync(join(root, "grimoire/04-cantrip.yaml"), join(work, "spell.yaml"));
  for (const name of ["a.yaml", "b.yaml"])
    cpSync(join(root, "grimoire/04-cantrip.yaml"), join(work, name));
  cpSync(join(root, "spells/council.yaml"), join(work, "council.yaml"));
  writeFileSync(join(work, "evals.yaml"), EVALS);
  writeFileSync(join(work, "answer.yaml"), ANSWER);
  writeFileSync(join(work, "repeat.yaml"), `${ANSWER}intent: What is 2 + 2?\n`);
  writeFileSync(join(work, "summarize.yaml"), SUMMARIZE);
  writeFileSync(join(work, "README.md"), "# A project\n\nIt does one thing.\n");
  writeFileSync(join(work, "messages.jsonl"), '{"text":"hi there"}\n');
  const keys = generateKeyPairSync("ed25519");
  writeFileSync(join(work, "key.pem"), keys.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(join(work, "pub.pem"), keys.publicKey.export({ type: "spki", format: "pem" }));
  const signed = await spell(["dna", "spells/greeter-flow.yaml", "--sign", "key.pem"]);
  writeFileSync(join(work, "greeter.dna.json"), signed.stdout);
  mkdirSync(join(work, "runs"));
  const loom = ".spellbook/loom.jsonl";
  const run = await spell(["run", "spell.yaml", "--loom", loom, "--json"]);
  const cast = JSON.parse(run.stdout) as { entity_id: string; last_turn_id: string };
  ids.entity = cast.entity_id;
  ids.turn = cast.last_turn_id;
  await spell(["run", "spell.yaml", "--loom", "runs/loom.jsonl"]);
  // The loom `spell loom fork runs/10.jsonl --turn 1 --times 3` forks: one cast of A.10's cycling script.
  await spell(["run", "grimoire/10-loom.yaml", "--loom", "runs/10.jsonl"]);
  const yesterday = await spell(["eval", "evals.yaml", "--out", ".spellbook/evals/yesterday"]);
  expect(yesterday.code, yesterday.stderr).toBe(0);
}, 240_000);

describe("every command's --help examples, run", () => {
  it("are found, every command's", () => {
    const without = Object.keys(COMMANDS).filter((id) => !examples.some(([e]) => e === id));
    expect(without).toEqual([]);
    for (const line of Object.keys(NOT_RUN))
      expect(
        examples.map(([, l]) => l),
        line,
      ).toContain(line);
  });

  for (const [id, line] of examples.filter(([, l]) => NOT_RUN[l] !== undefined))
    it.skip(`spell ${id}: ${line} — not run: ${NOT_RUN[line]}`, () => undefined);

  it.each(examples.filter(([, l]) => NOT_RUN[l] === undefined))(
    "spell %s: %s",
    async (_id, line) => {
      let text = line;
      for (const [from, to] of REPLACED) text = text.replace(from, to());
      const c = parseCommand(text)!;
      expect(c, text).toBeDefined();
      const r = await spell(c.argv, { stdin: c.stdin, env: c.env });
      if (c.stdoutTo) writeFileSync(join(work, c.stdoutTo), r.stdout);
      if (c.stderrTo) writeFileSync(join(work, c.stderrTo), r.stderr);
      // A failure shows both streams: `spell test` says which case failed on stdout.
      expect(r.code, `${text}\n${r.stdout.slice(-4000)}\n${r.stderr}`).toBe(0);
    },
    120_000,
  );
});
