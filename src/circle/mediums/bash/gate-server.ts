import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type * as Net from "node:net";
import type { Server, Socket } from "node:net";
import type * as Os from "node:os";
import { join } from "node:path";
import { lazyBuiltin } from "../../../core/builtin.js";

const net = lazyBuiltin<typeof Net>("node:net");
const os = lazyBuiltin<typeof Os>("node:os");

/** A gate call as it comes from a command: the gate's name and its words (NUL-separated on the wire). */
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
 * The clients a gate command runs (read-only inside the sandbox): the words go to the host's
 * socket NUL-separated, the answer comes back as "1" (ok) or "0" (error) and the text. perl
 * (Debian's perl-base is always there) starts in a few ms; node is the fall-back.
 */
const PERL_CLIENT = `use strict;
use IO::Socket::UNIX;
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $ENV{SPELL_GATE_SOCKET})
  or do { print STDERR "$ARGV[0]: the host is not answering ($!)\n"; exit 2 };
binmode $s;
print $s join("\0", @ARGV);
shutdown($s, 1);
local $/;
my $r = <$s>;
$r = "" unless defined $r;
my $t = substr($r, 1);
$t .= "\n" if length($t) && substr($t, -1) ne "\n";
if (substr($r, 0, 1) eq "1") { binmode STDOUT; print $t; exit 0 }
binmode STDERR; print STDERR $t; exit(length($r) ? 1 : 2);
`;

const NODE_CLIENT = `"use strict";
const sock = require("node:net").connect(process.env.SPELL_GATE_SOCKET);
const parts = [];
sock.on("connect", () => sock.end(process.argv.slice(2).join("\\0")));
sock.on("data", (d) => parts.push(d));
sock.on("error", (e) => { process.stderr.write(process.argv[2] + ": the host is not answering (" + e.code + ")\\n"); process.exitCode = 2; });
sock.on("end", () => {
  const r = Buffer.concat(parts).toString("utf8");
  let t = r.slice(1);
  if (t && !t.endsWith("\\n")) t += "\\n";
  if (r[0] === "1") process.stdout.write(t); else { process.stderr.write(t); process.exitCode = r ? 1 : 2; }
});
`;

/** The program that runs the client, and the client's file name. */
export const GATE_CLIENT = existsSync("/usr/bin/perl")
  ? { runner: "/usr/bin/perl", file: "gate-client.pl" }
  : { runner: undefined, file: "gate-client.cjs" };

const commandScript = (gate: string): string =>
  `#!/bin/sh\nexec "$SPELL_GATE_RUNNER" "$SPELL_GATE_CLIENT" ${gate} "$@"\n`;

const GATE_SCRIPT = `#!/bin/sh\nexec "$SPELL_GATE_RUNNER" "$SPELL_GATE_CLIENT" "$@"\n`;

function writeCommand(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

/** How much a command may ask of the host's socket at once (issue 20). */
export interface GateLimits {
  /** Connections served at once; more wait (up to MAX_WAITING), the rest are refused. */
  maxConnections: number;
  /** Bytes of one request; past it the connection is answered with an error, nothing kept. */
  maxRequestBytes: number;
}

/** Connections that may wait for a slot; past them a connection is refused at once. */
export const MAX_WAITING = 64;

/**
 * One entity's gate folder: `bin/<gate>` for every gate, the client, and a unix socket the host
 * answers on. The folder is bound read-only into the sandbox; only the socket is reachable.
 * The host serves `maxConnections` at once and buffers at most `maxRequestBytes` of each, so
 * what a command can make the host hold is bounded whatever it sends.
 */
export class GateServer {
  readonly dir: string;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly waiting = new Set<Socket>();
  private serving = 0;

  private constructor(
    dir: string,
    server: Server,
    private readonly limits: GateLimits,
  ) {
    this.dir = dir;
    this.server = server;
  }

  static async open(
    gates: readonly string[],
    handle: GateHandler,
    limits: GateLimits,
  ): Promise<GateServer> {
    const dir = mkdtempSync(join(os().tmpdir(), "spellbook-gates-"));
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, GATE_CLIENT.file), GATE_CLIENT.runner ? PERL_CLIENT : NODE_CLIENT);
    for (const gate of gates) writeCommand(join(dir, "bin", gate), commandScript(gate));
    // `gate NAME ARGS…`: any gate, even one whose name the shell keeps for itself.
    writeCommand(join(dir, "bin", "gate"), GATE_SCRIPT);
    const gs: GateServer = new GateServer(
      dir,
      net().createServer({ allowHalfOpen: true, pauseOnConnect: true }, (s) =>
        gs.accept(s, handle),
      ),
      limits,
    );
    await new Promise<void>((resolve, reject) => {
      gs.server.once("error", reject);
      gs.server.listen(join(dir, "gate.sock"), () => resolve());
    });
    return gs;
  }

  /** A connection is served, waits (paused: the client's writes wait in its own buffer), or is refused. */
  private accept(socket: Socket, handle: GateHandler): void {
    this.sockets.add(socket);
    socket.on("error", () => socket.destroy());
    if (this.serving < this.limits.maxConnections) return this.serve(socket, handle);
    if (this.waiting.size < MAX_WAITING) {
      this.waiting.add(socket);
      socket.on("close", () => {
        this.sockets.delete(socket);
        this.waiting.delete(socket);
      });
      return;
    }
    socket.on("close", () => this.sockets.delete(socket));
    refuse(
      socket,
      `error: more than ${this.limits.maxConnections} gate calls at once and ${MAX_WAITING} waiting (max_gate_connections); this one was not run`,
    );
  }

  private serve(socket: Socket, handle: GateHandler): void {
    this.serving++;
    socket.on("close", () => {
      this.sockets.delete(socket);
      this.serving--;
      this.next(handle);
    });
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (d: Buffer): void => {
      size += d.length;
      if (size <= this.limits.maxRequestBytes) return void parts.push(d);
      parts.length = 0;
      socket.off("data", onData);
      socket.removeAllListeners("end");
      const kb = Math.floor(this.limits.maxRequestBytes / 1024);
      refuse(
        socket,
        `error: a gate call of more than ${kb} KiB (max_gate_request_kb); it was not run`,
      );
    };
    socket.on("data", onData);
    // The client ends its side once the words are sent: then the request is whole.
    socket.on("end", () => void this.answer(socket, Buffer.concat(parts).toString("utf8"), handle));
    socket.resume();
  }

  /** A slot came free: the longest-waiting connection still open is served. */
  private next(handle: GateHandler): void {
    for (const socket of this.waiting) {
      this.waiting.delete(socket);
      if (socket.destroyed) continue;
      return this.serve(socket, handle);
    }
  }

  private async answer(socket: Socket, request: string, handle: GateHandler): Promise<void> {
    let reply: GateResponse;
    try {
      const [gate, ...args] = request.split("\0");
      reply = await handle({ gate: gate ?? "", args });
    } catch (e) {
      reply = { ok: false, text: `error: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!socket.destroyed) socket.end((reply.ok ? "1" : "0") + reply.text);
  }

  close(): void {
    this.waiting.clear();
    for (const s of this.sockets) s.destroy();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Answers with an error and ends the host's side; what the client still sends is read and
 * dropped (so its writes finish and it reads the answer), never kept.
 */
function refuse(socket: Socket, text: string): void {
  socket.on("data", () => undefined);
  socket.resume();
  socket.end("0" + text);
}
