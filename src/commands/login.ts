import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

export default class Login extends Command {
  static override description =
    "Check a credential against a registry and store it in the Docker config (DOCKER_CONFIG or ~/.docker/config.json). The password is read from stdin, never printed.";
  static override examples = [
    'echo "$REGISTRY_TOKEN" | spell login ghcr.io --username octocat --password-stdin',
  ];
  static override args = {
    host: Args.string({ description: "HOST[:PORT] of the registry", required: true }),
  };
  static override flags = {
    username: Flags.string({ char: "u", description: "the user name" }),
    "password-stdin": Flags.boolean({ description: "read the password (or token) from stdin" }),
    "plain-http": Flags.boolean({
      description: "plain HTTP to a registry that is not on loopback (loopback always is)",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Login);
    const { loginCommand } = await import("../cli/share.js");
    const { processIO } = await import("../cli/io.js");
    let password: string | undefined;
    if (flags["password-stdin"]) {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      password = Buffer.concat(chunks)
        .toString("utf8")
        .replace(/\r?\n$/, "");
    }
    process.exitCode = await loginCommand(
      args.host,
      { username: flags.username, password, plainHttp: flags["plain-http"] },
      processIO(),
    );
  }
}
