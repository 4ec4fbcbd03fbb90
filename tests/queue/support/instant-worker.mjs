// A BullMQ worker in its own process for tests/queue/remote-race.test.ts: it answers every job on
// the casts queue at once with a fixed outcome (no cast: the test is of the enqueuing side).
// argv[2]: the Redis port; argv[3]: a file that gets a line for each job once it is finished (the
// test holds its event loop until then). Prints "READY" on stdout once it takes jobs.
import { appendFileSync } from "node:fs";
import { Worker } from "bullmq";

const connection = { host: "127.0.0.1", port: Number(process.argv[2]) };
const worker = new Worker(
  "spellbook-casts",
  async (job) => ({ row: { entity_id: job.id, status: "pass" }, judgeUsage: undefined }),
  { connection, concurrency: 4 },
);
// "completed" is emitted once the job is moved to completed in Redis.
worker.on("completed", (job) => appendFileSync(process.argv[3], `${job.id}\n`));
await worker.waitUntilReady();
process.stdout.write("READY\n");
process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
