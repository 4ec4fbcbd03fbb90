// The floor of the scale bench's worker row (issue 40): bare BullMQ doing the same jobs. Worker
// processes (this file, run with "worker") each hold one BullMQ Worker with the same
// concurrency as a `spell worker`, whose processor makes the same three model calls to the
// loopback wire server a 3-turn cast makes (each request carrying the replies and tool results
// before it, as a cast's context does), with undici over a keep-alive pool, and returns a small
// row. No engine, no loom, no eval row: what is left of a `spell worker` over this is what the
// spell adds. Imported by scale.bench.mjs, which runs both sides in paired rounds.
import { spawn } from "node:child_process";
import { URL, fileURLToPath } from "node:url";

const QUEUE = "bare-casts";

/** The chat request of turn `turn` of a cast of `intent`. */
function chatBody(intent, turn) {
  const messages = [
    { role: "system", content: "Answer with the number." },
    { role: "user", content: intent },
  ];
  for (let i = 0; i < turn; i++)
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: `c${i}`, type: "function", function: { name: "echo", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: `c${i}`, content: "hi" },
    );
  const tool = (name) => ({
    type: "function",
    function: { name, parameters: { type: "object", properties: {} } },
  });
  return JSON.stringify({ model: "wire-model", messages, tools: [tool("done"), tool("echo")] });
}

async function workerMain(redisUrl, port, concurrency) {
  const { Worker } = await import("bullmq");
  const { Agent, request } = await import("undici");
  const pool = new Agent();
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const headers = { "content-type": "application/json", authorization: "Bearer k" };
  const processor = async (job) => {
    let reply = null;
    for (let turn = 0; turn < 3; turn++) {
      const res = await request(url, {
        method: "POST",
        headers,
        body: chatBody(job.data.intent, turn),
        dispatcher: pool,
      });
      reply = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`model: ${res.statusCode}`);
    }
    return { status: "pass", result: reply.choices[0].message.content, turns: 3 };
  };
  const { hostname, port: redisPort } = new URL(redisUrl);
  const worker = new Worker(QUEUE, processor, {
    connection: { host: hostname, port: Number(redisPort), maxRetriesPerRequest: null },
    concurrency,
  });
  await worker.waitUntilReady();
  process.stderr.write("bare worker waiting\n");
  process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
}

if (process.argv[2] === "worker")
  await workerMain(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));

/** `n` bare worker processes; resolves to them once each waits for jobs. */
export function startBareWorkers(n, redisUrl, port, concurrency) {
  const file = fileURLToPath(import.meta.url);
  return Promise.all(
    Array.from({ length: n }, () => {
      const args = [file, "worker", redisUrl, String(port), String(concurrency)];
      const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
      return new Promise((resolve, reject) => {
        let log = "";
        child.stderr.on("data", (d) => {
          log += d;
          if (log.includes("bare worker waiting")) resolve(child);
        });
        child.once("exit", (code) => reject(new Error(`bare worker exited ${code}:\n${log}`)));
      });
    }),
  );
}

/**
 * The enqueuing side: `n` jobs added one by one, as the spell's dispatcher adds its casts, and
 * each waited for until it completed; resolves to jobs/s.
 */
export async function bareRound(redisUrl, n) {
  const { Queue, QueueEvents } = await import("bullmq");
  const { hostname, port } = new URL(redisUrl);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const queue = new Queue(QUEUE, { connection });
  const events = new QueueEvents(QUEUE, { connection });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  queue.setMaxListeners(0);
  try {
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const job = await queue.add("cast", { intent: "What is 1 + 2?", i }, JOB);
        const row = await job.waitUntilFinished(events);
        if (row.turns !== 3) throw new Error(`bare job: ${JSON.stringify(row)}`);
        void queue.remove(job.id).catch(() => 0); // read: no longer needed, as remote.ts does
      }),
    );
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await events.close();
    await queue.close();
  }
}

/** Kept until read (then removed), as the spell's dispatcher keeps its jobs (queue/remote.ts). */
const JOB = { removeOnComplete: { age: 24 * 3600 }, removeOnFail: 1000 };
