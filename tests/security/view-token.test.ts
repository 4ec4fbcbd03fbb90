import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewer, viewFolder, type Viewer } from "../support/view.js";

/**
 * `spell view --token T`: a wrong token OF THE RIGHT LENGTH is refused in each form a request
 * can carry it (the Authorization header, `/?token=` and the cookie that sets). Issue 38: the
 * only wrong token tested had another length, so a comparison that checked the length alone
 * passed every test. The comparisons are `crypto.timingSafeEqual` on buffers of equal length
 * (src/protocols/http/guard.ts for the header and the cookie, src/protocols/viewer/server.ts for
 * the query).
 */
const TOKEN = "view-token-123456";

/** Wrong tokens of TOKEN's length: each differs in one place (first, middle, last, case). */
const SAME_LENGTH = [
  "xiew-token-123456",
  "view-tokem-123456",
  "view-token-123457",
  "VIEW-TOKEN-123456",
  "a".repeat(TOKEN.length),
];

let viewer: Viewer;
beforeAll(async () => {
  viewer = await startViewer(viewFolder().root, TOKEN);
});
afterAll(() => viewer?.app.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${viewer.base}${path}`, { headers, redirect: "manual" });

describe("spell view: a wrong token of the right length", () => {
  it("the wrong tokens have the right length", () => {
    for (const wrong of SAME_LENGTH) expect(Buffer.byteLength(wrong)).toBe(TOKEN.length);
  });

  it("in the Authorization header: refused; the right one answers", async () => {
    for (const wrong of SAME_LENGTH) {
      const a = await get("/api/sources", { authorization: `Bearer ${wrong}` });
      expect(a.status, JSON.stringify(wrong)).toBe(401);
      expect(await a.text()).not.toContain("loom.jsonl");
    }
    expect((await get("/api/sources", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it("as /?token=: refused, and no cookie is set; the right one sets it", async () => {
    for (const wrong of SAME_LENGTH) {
      const a = await get(`/?token=${encodeURIComponent(wrong)}`);
      expect(a.status, JSON.stringify(wrong)).toBe(401);
      expect(a.headers.get("set-cookie")).toBeNull();
    }
    const right = await get(`/?token=${TOKEN}`);
    expect(right.status).toBe(303);
    expect(right.headers.get("set-cookie")).toContain("spell_view_token=");
  });

  it("in the cookie: refused; the right one answers", async () => {
    for (const wrong of SAME_LENGTH) {
      const cookie = `spell_view_token=${encodeURIComponent(wrong)}`;
      const a = await get("/api/sources", { cookie });
      expect(a.status, JSON.stringify(wrong)).toBe(401);
      expect(await a.text()).not.toContain("loom.jsonl");
    }
    const cookie = `spell_view_token=${TOKEN}`;
    expect((await get("/api/sources", { cookie })).status).toBe(200);
  });
});
