// The browser's loopback proxy against what a local process (not Chromium) may send it.
import { connect, createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { startAllowProxy } from "../../src/circle/gates/browser-proxy.js";
import { parseAllowEntryOf } from "../../src/circle/gates/fetch-allow.js";

/** Sends raw bytes to the proxy; what it answers before closing. */
function raw(server: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(server);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let got = "";
    socket.on("data", (d) => (got += String(d)));
    socket.on("close", () => resolve(got));
    socket.on("error", reject);
    socket.setTimeout(2000, () => socket.destroy());
  });
}

describe("browser allow proxy", () => {
  it("a CONNECT whose target is not host:port is refused, and the proxy goes on serving", async () => {
    const proxy = await startAllowProxy([parseAllowEntryOf("example.org", "browser")]);
    try {
      for (const target of ["a:b:c", "example.org:notaport", "[::1", ":443"])
        expect(await raw(proxy.server, `CONNECT ${target} HTTP/1.1\r\n\r\n`)).toMatch(
          /^HTTP\/1\.1 (400|403)/,
        );
      expect(await raw(proxy.server, "CONNECT evil.test:443 HTTP/1.1\r\n\r\n")).toMatch(
        /^HTTP\/1\.1 403/,
      );
    } finally {
      proxy.close();
    }
  });

  it("a CONNECT to an allowed host and port opens the tunnel", async () => {
    const echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const { port } = echo.address() as AddressInfo;
    const proxy = await startAllowProxy([parseAllowEntryOf(`http://127.0.0.1:${port}`, "browser")]);
    try {
      const answer = await raw(proxy.server, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      const other = await raw(proxy.server, `CONNECT 127.0.0.1:${port + 1} HTTP/1.1\r\n\r\n`);
      expect(other).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      proxy.close();
      echo.close();
    }
  });

  it("a refusal naming an allow entry written in Unicode is still a 403", async () => {
    const proxy = await startAllowProxy([parseAllowEntryOf("http://日本.jp", "browser")]);
    try {
      const answer = await raw(
        proxy.server,
        "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
      );
      expect(answer).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      proxy.close();
    }
  });
});
