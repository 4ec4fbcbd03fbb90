// The LLM client (issue 39): one query through spell's OpenAI adapter (`openai({ … })`, the
// same adapter, retry and tool_choice wrappers a spell's `llm: { provider: openai }` gets)
// against the same request sent with the bare openai SDK, both to the loopback OpenAI-wire
// server of the eval tests (its own process, answering at once). The conversation is a turn
// after a gate call (system, user, the assistant's tool call, the tool's result) with two tools
// offered, so the conversion both ways is in it. The two sides alternate, QUERIES sequential
// queries a round. The paired ratio is of this process's CPU time per query, which waiting for
// the server (another process: on a busy machine, most of the wall time) does not enter; the
// wall times are shown beside it.
//
// A third side (issue 40) is the floor: the same request as a bare `undici.request` over a
// keep-alive Agent, its JSON answer parsed. The adapter's target is ≤ 2× its CPU per query.
import OpenAI from "openai";
import { Agent, request } from "undici";
import { openai } from "../dist/index.js";
import { interleave, median, ratio } from "./paired.mjs";
import { rounds, row } from "./report.mjs";
import { startWire } from "./wire.mjs";

const QUERIES = Number(process.env.LLM_BENCH_QUERIES ?? 200);

const messages = [
  { role: "system", content: "Answer with the number." },
  { role: "user", content: "What is 1 + 2?" },
  {
    role: "assistant",
    content: null,
    toolCalls: [{ id: "call_1", name: "echo", arguments: '{"text":"hi"}' }],
  },
  { role: "tool", toolCallId: "call_1", content: "hi" },
];
const tool = (name) => ({
  name,
  description: `the ${name} gate`,
  parameters: { type: "object", properties: { text: { type: "string" } } },
});
const tools = [tool("echo"), tool("done")];
const wireBody = {
  model: "wire-model",
  messages: [
    { role: "system", content: "Answer with the number." },
    { role: "user", content: "What is 1 + 2?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "hi" },
  ],
  tools: tools.map((t) => ({ type: "function", function: t })),
};

const { child: server, port } = await startWire({ delayMs: 0, turns: 2 });
try {
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const ours = await openai({ model: "wire-model", baseUrl, apiKey: "k" });
  const sdk = new OpenAI({ apiKey: "k", baseURL: baseUrl, maxRetries: 0 });
  const viaOurs = async () => {
    const r = await ours.query(messages, { tools });
    if (r.content !== "3") throw new Error(`our client read ${JSON.stringify(r.content)}`);
  };
  const agent = new Agent();
  const wireText = JSON.stringify(wireBody);
  const viaUndici = async () => {
    const res = await request(`${baseUrl}/chat/completions`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: wireText,
    });
    const r = await res.body.json();
    if (r.choices[0].message.content !== "3") throw new Error("undici read something else");
  };
  const viaSdk = async () => {
    const r = await sdk.chat.completions.create(wireBody);
    if (r.choices[0].message.content !== "3") throw new Error("the SDK read something else");
  };
  const wall = { ours: [], sdk: [], undici: [] };
  /** A round of QUERIES queries: pushes the wall ms per query, returns the CPU ms per query. */
  const perQuery = (side, once) => async () => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < QUERIES; i++) await once();
    wall[side].push((performance.now() - t0) / QUERIES);
    const { user, system } = process.cpuUsage(cpu);
    return (user + system) / 1000 / QUERIES;
  };
  await perQuery("ours", viaOurs)(); // warm up both paths and the connections
  await perQuery("sdk", viaSdk)();
  await perQuery("undici", viaUndici)();
  wall.ours.length = wall.sdk.length = wall.undici.length = 0;
  const cpu = await interleave(rounds(7), {
    ours: perQuery("ours", viaOurs),
    sdk: perQuery("sdk", viaSdk),
    undici: perQuery("undici", viaUndici),
  });
  const ms = { unit: "ms", digits: 3, better: "lower" };
  row("one query through spell's OpenAI adapter, wall", median(wall.ours), ms);
  row("the same request through the bare openai SDK, wall", median(wall.sdk), ms);
  row("one query through spell's OpenAI adapter, CPU of this process", median(cpu.ours), ms);
  row("the same request through the bare openai SDK, CPU of this process", median(cpu.sdk), ms);
  row("spell's OpenAI adapter / bare openai SDK, CPU per query", ratio(cpu.ours, cpu.sdk), {
    better: "lower",
    paired: true,
    note: `(${QUERIES} queries a round)`,
  });
  row("the same request as a bare undici.request, CPU of this process", median(cpu.undici), ms);
  const floor = ratio(cpu.ours, cpu.undici);
  row("spell's OpenAI adapter / bare undici.request, CPU per query", floor, {
    better: "lower",
    paired: true,
    target: "≤ 2×",
    ok: floor.median <= 2,
    note: `(${QUERIES} queries a round)`,
  });
  row("bare openai SDK / bare undici.request, CPU per query", ratio(cpu.sdk, cpu.undici), {
    better: "lower",
    paired: true,
    note: `(${QUERIES} queries a round)`,
  });
  await agent.close();
} finally {
  server.kill("SIGTERM");
}
