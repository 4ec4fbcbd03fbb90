// A real redis-server for the scale bench: a free loopback port, no persistence, its folder under
// `dir`. `startRedis(dir)` resolves to { url, pid, stop } once it accepts connections.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

export async function startRedis(dir) {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn("redis-server", [...args, "--dir", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise((resolve, reject) => {
    let log = "";
    child.stdout.on("data", (d) => {
      log += d;
      if (log.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited ${code}:\n${log}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill("SIGTERM") };
}
