/**
 * A PostgreSQL-speaking listener on 127.0.0.1 that records what a client would give a host it
 * should not trust: it answers an SSL or GSS request with "no", reads the startup message (user,
 * database), asks for the password in clear (or MD5 with `{ auth: "md5" }`), records the password
 * message it gets, and refuses the login (28P01). Enough of the protocol (v3, "Message Flow:
 * Start-up") for `pg` and libpq to send a password if they have one; nothing is ever served.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface PgRecorder {
  port: number;
  /** Every connection made to it (a test of a wall expects none, or no password). */
  connections: number;
  /** Each startup message's parameters (user, database, …). */
  startups: Record<string, string>[];
  /** Each password message's text (cleartext: the password; md5: `md5` and its hash). */
  passwords: string[];
  /** Every byte received, as latin1 text (to search for a secret in any form). */
  received(): string;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function authRequest(auth: "cleartext" | "md5"): Buffer {
  if (auth === "cleartext") return message("R", Buffer.from([0, 0, 0, 3]));
  return message("R", Buffer.from([0, 0, 0, 5, 0x73, 0x61, 0x6c, 0x74]));
}

function refusal(): Buffer {
  const fields = ["SFATAL", "VFATAL", "C28P01", "Mpassword authentication failed (pg-recorder)"];
  return message("E", Buffer.from(`${fields.join("\0")}\0\0`, "latin1"));
}

export async function startPgRecorder(
  options: { auth?: "cleartext" | "md5" } = {},
): Promise<PgRecorder> {
  const auth = options.auth ?? "cleartext";
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const rec: Omit<PgRecorder, "port" | "close" | "received"> = {
    connections: 0,
    startups: [],
    passwords: [],
  };
  const server: Server = createServer((socket) => {
    rec.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on("data", (data: Buffer) => {
      chunks.push(data);
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readInt32BE(4);
          const body = buffered.subarray(8, length);
          buffered = buffered.subarray(length);
          if (code === SSL_REQUEST || code === GSS_REQUEST) {
            socket.write("N");
            continue;
          }
          const parts = body.toString("utf8").split("\0");
          const params: Record<string, string> = {};
          for (let i = 0; i + 1 < parts.length && parts[i]; i += 2)
            params[parts[i]!] = parts[i + 1]!;
          rec.startups.push(params);
          started = true;
          socket.write(authRequest(auth));
          continue;
        }
        if (buffered.length < 5) return;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) return;
        const type = buffered.toString("latin1", 0, 1);
        const body = buffered.subarray(5, length + 1);
        buffered = buffered.subarray(length + 1);
        if (type === "p") {
          rec.passwords.push(body.toString("utf8").replace(/\0$/, ""));
          socket.end(refusal());
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(rec, {
    port: (server.address() as AddressInfo).port,
    received: () => Buffer.concat(chunks).toString("latin1"),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}
