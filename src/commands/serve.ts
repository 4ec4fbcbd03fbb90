import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { otelFlags } from "./otel-flags.js";

export default class Serve extends Command {
  static override description =
    "Serve a spell over HTTP: POST /cast, sessions, SSE, /openapi.json (loopback by default).";
  static override examples = [
    "spell serve spell.yaml",
    "spell serve spell.yaml --port 9000 --max-concurrent 4",
    "SPELLBOOK_TOKEN=s3cret spell serve spell.yaml --host 0.0.0.0",
  ];
  static override args = {
    file: Args.string({ description: "spell file (YAML)", required: true }),
  };
  static override flags = {
    port: Flags.integer({ char: "p", description: "port (0: any free port); default 8787" }),
    host: Flags.string({ description: "address to bind; default 127.0.0.1" }),
    token: Flags.string({
      description: "bearer token every request must carry (or SPELLBOOK_TOKEN)",
    }),
    "max-concurrent": Flags.integer({ description: "casts at once; more get 429; default 16" }),
    "max-sessions": Flags.integer({
      description: "sessions open at once; POST /sessions past it gets 503; default 1000",
      min: 1,
    }),
    "session-idle": Flags.integer({
      description:
        "seconds a session may sit unused before it is let go (with a loom file it comes back when used); default 900",
      min: 1,
    }),
    "allow-origin": Flags.string({
      description:
        "an origin (http://localhost:3000) whose web pages may call the server; repeatable. Without a token, browser requests from any other origin are refused",
      multiple: true,
    }),
    "plain-http": Flags.boolean({
      description:
        "plain HTTP to a registry that is not on loopback, for an oci:// spell (loopback always is)",
    }),
    loom: Flags.string({
      description: 'loom JSONL file or postgres:// URL ("memory" for none); default: the spell\'s',
    }),
    ...otelFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Serve);
    const { serveCommand } = await import("../cli/serve.js");
    const { processIO } = await import("../cli/io.js");
    const stop = new Promise((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    process.exitCode = await serveCommand(
      args.file,
      {
        port: flags.port,
        host: flags.host,
        token: flags.token,
        maxConcurrent: flags["max-concurrent"],
        loom: flags.loom,
        plainHttp: flags["plain-http"],
        allowOrigins: flags["allow-origin"],
        maxSessions: flags["max-sessions"],
        sessionIdleSeconds: flags["session-idle"],
        otel: flags.otel,
        "otel-content": flags["otel-content"],
      },
      processIO(),
      stop,
    );
  }
}
