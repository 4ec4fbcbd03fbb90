import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A gate call as it comes from a command: the gate's name and its words. */
export interface GateRequest {
  gate: string;
  args: string[];
}

/** The host's answer: printed on stdout (ok) or stderr (error, exit 1). */
export interface GateResponse {
  ok: boolean;
  text: string;
}

export type GateHandler = (request: GateRequest) => Promise<GateResponse>;

/**
 * The client each gate command runs (node, read-only inside the sandbox): one JSON line to the
 * host's socket, one JSON line back, printed.
 */
const CLIENT = `"use strict";
const net = require("node:net");
const [gate, ...args] = process.argv.slice(2);
const sock = net.connect(process.env.SPELL_GATE_SOCKET);
let buf = "";
sock.on("connect", () => sock.write(JSON.stringify({ gate, args }) + "\\n"));
sock.on("data", (d) => { buf += d; });
sock.on("error", (e) => { process.stderr.write(gate + ": the host is not answering (" + e.code + ")\\n"); process.exitCode = 2; });
sock.on("end", () => {
  let r;
  try { r = JSON.parse(buf); } catch { process.stderr.write(gate + ": bad reply from the host\\n"); process.exitCode = 2; return; }
  const text = r.text.endsWith("\\n") || r.text === "" ? r.text : r.text + "\\n";
  if (r.ok) process.stdout.write(text); else { process.stderr.write(text); process.exitCode = 1; }
});
`;

const commandScript = (gate: string): string =>
  `#!/bin/sh\nexec "$SPELL_NODE" "$SPELL_GATE_CLIENT" ${gate} "$@"\n`;

const GATE_SCRIPT = `#!/bin/sh\nexec "$SPELL_NODE" "$SPELL_GATE_CLIENT" "$@"\n`;

function writeCommand(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

const MAX_REQUEST = 4 * 1024 * 1024;

/**
 * One entity's gate folder: `bin/<gate>` for every gate, the client, and a unix socket the host
 * answers on. The folder is bound read-only into the sandbox; only the socket is reachable.
 */
export class GateServer {
  readonly dir: string;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(dir: string, server: Server) {
    this.dir = dir;
    this.server = server;
  }

  static async open(gates: readonly string[], handle: GateHandler): Promise<GateServer> {
    const dir = mkdtempSync(join(tmpdir(), "spellbook-gates-"));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "gate-client.cjs"), CLIENT);
    for (const gate of gates) writeCommand(join(dir, "bin", gate), commandScript(gate));
    // `gate NAME ARGS…`: any gate, even one whose name the shell keeps for itself.
    writeCommand(join(dir, "bin", "gate"), GATE_SCRIPT);
    const gs: GateServer = new GateServer(
      dir,
      createServer((s) => gs.serve(s, handle)),
    );
    await new Promise<void>((resolve, reject) => {
      gs.server.once("error", reject);
      gs.server.listen(join(dir, "gate.sock"), () => resolve());
    });
    return gs;
  }

  private serve(socket: Socket, handle: GateHandler): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buf = "";
    socket.on("data", (d: Buffer) => {
      buf += d.toString("utf8");
      if (buf.length > MAX_REQUEST) return socket.destroy();
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      socket.removeAllListeners("data");
      void this.answer(socket, buf.slice(0, nl), handle);
    });
  }

  private async answer(socket: Socket, line: string, handle: GateHandler): Promise<void> {
    let reply: GateResponse;
    try {
      const req = JSON.parse(line) as GateRequest;
      if (typeof req.gate !== "string" || !Array.isArray(req.args)) throw new Error("bad request");
      reply = await handle({ gate: req.gate, args: req.args.map(String) });
    } catch (e) {
      reply = { ok: false, text: `error: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!socket.destroyed) socket.end(JSON.stringify(reply));
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
