// The MCP tool-call overhead (issue 26): one `spell mcp` process and one MCP client (the SDK's,
// over stdio: one process pair), calling a one-turn spell tool one call at a time, against the
// same spell cast directly in this process. The difference of the p50s is what MCP — JSON-RPC,
// the pipes, the SDK on both ends, the input check — adds to one cast. The paired row's floor is
// the same SDK server answering the same tool without casting (bench/serve-mcp-bare.mjs): a
// ratio to the direct cast said nothing once the cast got faster (0.13 → 0.03 ms p50 while the
// MCP call went 0.58 → 0.45 ms, the ratio rose from 4.4× to 12.7×).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { castSpell, loadSpell } from "../dist/index.js";
import { interleave, ratio } from "./paired.mjs";
import { rounds, row } from "./report.mjs";

const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 400);
const WARMUP = 50;

const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function spellFile(dir) {
  const reply = "    - { tool_calls: [{ gate: done, args: { answer: { words: 7 } } }] }";
  const text = [
    "name: summarize",
    "llm:",
    "  provider: scripted",
    "  responses:",
    ...Array.from({ length: CALLS + WARMUP }, () => reply),
    "identity: {}",
    "inputs: { type: object, properties: { path: { type: string } }, required: [path] }",
    'intent: "Summarize {{path}}."',
    "output_schema: { type: object, properties: { words: { type: integer } }, required: [words] }",
    "circle: { gates: [done], wards: [{ max_turns: 2 }] }",
  ].join("\n");
  const file = join(dir, "summarize.yaml");
  writeFileSync(file, text);
  return file;
}

async function timed(n, once) {
  const lat = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await once();
    lat.push(performance.now() - t);
  }
  return lat;
}

export async function mcpOverhead() {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bench-"));
  const file = spellFile(dir);
  const loaded = await loadSpell(file, { loomPath: "memory" });
  const direct = () => castSpell(loaded, { inputs: { path: "a.md" } });
  await timed(WARMUP, direct);

  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [resolve("bin/run.js"), "mcp", file, "--loom", "memory"],
      stderr: "ignore",
    }),
  );
  const call = async () => {
    const r = await client.callTool({ name: "summarize", arguments: { path: "a.md" } });
    if (r.isError || r.structuredContent?.words !== 7) throw new Error(JSON.stringify(r));
  };
  await timed(WARMUP, call);

  const bare = new Client({ name: "bench", version: "1" });
  await bare.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [resolve("bench/serve-mcp-bare.mjs")],
      stderr: "ignore",
    }),
  );
  const callBare = async () => {
    const r = await bare.callTool({ name: "summarize", arguments: { path: "a.md" } });
    if (r.isError || r.structuredContent?.words !== 7) throw new Error(JSON.stringify(r));
  };
  await timed(WARMUP, callBare);
  // Direct casts and MCP calls alternate, CALLS / ROUNDS of each a round: the ratio of the
  // rounds' p50s is paired (load falls on both sides).
  const ROUNDS = rounds(5);
  const per = Math.ceil(CALLS / ROUNDS);
  const local = [];
  const overMcp = [];
  const overBare = [];
  const p50s = await interleave(ROUNDS, {
    direct: async () => {
      const xs = await timed(per, direct);
      local.push(...xs);
      return pct(xs, 0.5);
    },
    mcp: async () => {
      const xs = await timed(per, call);
      overMcp.push(...xs);
      return pct(xs, 0.5);
    },
    bare: async () => {
      const xs = await timed(per, callBare);
      overBare.push(...xs);
      return pct(xs, 0.5);
    },
  });
  await client.close();
  await bare.close();
  rmSync(dir, { recursive: true, force: true });

  console.log(`MCP tool call vs direct cast: ${CALLS} calls one at a time, a 1-turn typed spell`);
  const ms = { unit: "ms", better: "lower" };
  row("direct cast (castSpell): p50", pct(local, 0.5), ms);
  row("direct cast (castSpell): p99", pct(local, 0.99), ms);
  row("MCP tools/call over stdio: p50", pct(overMcp, 0.5), ms);
  row("MCP tools/call over stdio: p99", pct(overMcp, 0.99), ms);
  row("MCP adds (p50), per call", pct(overMcp, 0.5) - pct(local, 0.5), ms);
  row("bare SDK server tools/call: p50", pct(overBare, 0.5), ms);
  row("spell mcp tools/call / bare SDK server (p50 of each round)", ratio(p50s.mcp, p50s.bare), {
    better: "lower",
    paired: true,
  });
}
