// A BullMQ worker in its own process for tests/queue/remote-race.test.ts: it answers every job on
// the casts queue at once with a fixed outcome (no cast: the test is of the enqueuing side).
// argv[2]: the Redis port. Prints "READY" on stdout once it takes jobs.
import { Worker } from "bullmq";

const connection = { host: "127.0.0.1", port: Number(process.argv[2]) };
const worker = new Worker(
  "spellbook-casts",
  async (job) => ({ row: { entity_id: job.id, status: "pass" }, judgeUsage: undefined }),
  { connection, concurrency: 4 },
);
await worker.waitUntilReady();
process.stdout.write("READY\n");
process.on("SIGTERM", () => void worker.close().then(() => process.exit(0)));
