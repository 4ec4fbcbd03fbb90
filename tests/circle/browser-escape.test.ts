// Ways out of the browser's allow list that neither request routing nor the proxy sees.
import { createSocket } from "node:dgram";
import { afterAll, expect, it } from "vitest";
import { closeSharedBrowser } from "../../src/circle/gates/browser-engine.js";
import { BrowserPages } from "../../src/circle/gates/browser-pages.js";
import { parseAllowEntryOf } from "../../src/circle/gates/fetch-allow.js";
import { noChromium } from "../support/browser.js";
import { needs } from "../support/needs.js";

afterAll(() => closeSharedBrowser());

interface Peer {
  createDataChannel(label: string): unknown;
  createOffer(): Promise<unknown>;
  setLocalDescription(d: unknown): Promise<void>;
}

needs(noChromium).describe("browser escapes", () => {
  it("a page's WebRTC sends no UDP to a host not allowed (STUN)", async () => {
    const udp = createSocket("udp4");
    const packets: Buffer[] = [];
    udp.on("message", (m) => packets.push(m));
    await new Promise<void>((r) => udp.bind(0, "127.0.0.1", r));
    const port = udp.address().port;
    const pages = new BrowserPages({
      allow: [parseAllowEntryOf("http://example.invalid", "browser")],
      maxChars: 1000,
      timeoutMs: 5000,
    });
    try {
      const { page } = await pages.page("e1");
      await page.evaluate(async (p) => {
        // In the page (the DOM's RTCPeerConnection), not in Node.
        const Rtc = (globalThis as unknown as { RTCPeerConnection: new (c: object) => Peer })
          .RTCPeerConnection;
        const pc = new Rtc({ iceServers: [{ urls: `stun:127.0.0.1:${p}` }] });
        pc.createDataChannel("x");
        await pc.setLocalDescription(await pc.createOffer());
        await new Promise((r) => setTimeout(r, 1500));
      }, port);
    } finally {
      await pages.close("e1");
      udp.close();
    }
    expect(packets.length).toBe(0);
  });
});
