/** Real processes for the `spell eval` tests: the loopback wire server and the built CLI. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const root = process.cwd();

export interface WireServer {
  url: string;
  port: number;
  child: ChildProcess;
  stats(): Promise<{ requests: number; rateLimited: number }>;
  close(): Promise<void>;
}

export function startWireServer(config: Record<string, unknown> = {}): Promise<WireServer> {
  const child = spawn(
    process.execPath,
    [join(root, "tests/eval/support/wire-server.mjs"), JSON.stringify(config)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`wire server exited ${code}`)));
    child.stdout.once("data", (d: Buffer) => {
      const port = Number(/PORT (\d+)/.exec(d.toString())?.[1]);
      const url = `http://127.0.0.1:${port}`;
      resolve({
        url,
        port,
        child,
        stats: async () =>
          (await (await fetch(`${url}/stats`)).json()) as { requests: number; rateLimited: number },
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

/** startWireServer for a test file whose servers all close after each test. */
export function wireServersPerTest(): (config?: Record<string, unknown>) => Promise<WireServer> {
  const servers: WireServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (config = {}) => {
    const s = await startWireServer(config);
    servers.push(s);
    return s;
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI; `onSpawn` gets the child (to signal it). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  onSpawn?: (child: ChildProcess) => void,
): Promise<CliRun> {
  const child = spawn(process.execPath, [join(root, "bin/run.js"), ...args], {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", HOME: cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  onSpawn?.(child);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

export const ADDER = `name: adder
llm: { provider: openai, model: wire-model, base_url: "\${env:EVAL_BASE}", api_key: "\${env:EVAL_KEY}" }
identity: { system_prompt: Answer with the number only. }
circle:
  gates: [done]
  wards: [{ max_turns: 3 }]
`;

/** A scratch folder with the adder spell and an eval of the given cases (YAML text). */
/** ADDER delegating to a child spell (./child.yaml) on its own model, the same server. */
export const DELEGATING = ADDER.replace(
  "gates: [done]",
  "gates: [done, { call_entity: { spell: ./child.yaml } }]",
);
/** The child DELEGATING calls: ADDER named child, on child-model. */
export const CHILD = ADDER.replace("name: adder", "name: child").replace(
  "model: wire-model",
  "model: child-model",
);

export function evalFolder(evalYaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "spell-eval-"));
  writeFileSync(join(dir, "adder.yaml"), ADDER);
  writeFileSync(join(dir, "eval.yaml"), evalYaml);
  return dir;
}

export const envFor = (server: { url: string }) => ({
  EVAL_BASE: `${server.url}/v1`,
  EVAL_KEY: "sk-test-eval-key-000000",
});

/** Three cases whose intents the server counts apart. */
export const THREE_CASES = `kind: eval
name: adder
spells: [./adder.yaml]
cases:
  - { name: A, intent: "What is {{a}} + {{b}}?", vars: { a: 1, b: 2 }, expect: [{ result: "3" }] }
  - { name: B, intent: "What is {{a}} + {{b}}?", vars: { a: 2, b: 2 }, expect: [{ result: "4" }] }
  - { name: C, intent: "What is {{a}} + {{b}}?", vars: { a: 3, b: 2 }, expect: [{ result_matches: "^5$" }] }
repeat: 4
concurrency: 3
pass: { rate: 0.5 }
`;
