import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Flow, FlowRunner } from "../../src/flows/index.js";
import { JsHandlers } from "../../src/flows/js-handlers.js";

describe("js handlers in the QuickJS sandbox", () => {
  let js: JsHandlers;
  beforeAll(async () => {
    js = await JsHandlers.open(200);
  });
  afterAll(() => js.dispose());

  it("receivers, senders and hooks run as sandboxed functions with move/stay/test", async () => {
    const flow = new Flow({ tape: { shape: "index-many", initial: { alice: ["idle"] } } })
      .hook(
        "receive",
        js.add("hook", "payload.text ? { ...payload, text: payload.text.trim() } : null"),
      )
      .receive(
        "idle --[ greeted ]--> talking",
        js.add("receiver", "return payload.text.startsWith('hi') ? move('ok') : stay(key)"),
      )
      .send(
        "greeted",
        js.add("sender", "({ to: key, reply: 'hello ' + payload.text, why: event.trigger })"),
        {
          triggers: ["ok"],
        },
      );
    const runner = new FlowRunner(flow);
    const quiet = await runner.cycle({ text: "" });
    expect(quiet.trace.dropped?.by).toBe("receive_hook");
    const stayed = await runner.cycle({ text: " yo " });
    expect(stayed.trace.receivers[0]).toMatchObject({ action: "STAY", trigger: "alice" });
    const moved = await runner.cycle({ text: " hi there" });
    expect(moved.emitted.map((e) => e.payload)).toEqual([
      { to: "alice", reply: "hello hi there", why: "ok" },
    ]);
    expect(runner.tapeValue()).toEqual({ alice: ["greeted", "talking"] });
  });

  it("a handler that loops forever is interrupted by max_handler_ms and the sandbox stays usable", async () => {
    const flow = new Flow({ tape: { shape: "many", initial: ["a"] } }).receive(
      "a",
      js.add("receiver", "while (payload === 'spin') {} return stay('fine')"),
    );
    const runner = new FlowRunner(flow);
    const spun = await runner.cycle("spin");
    expect(spun.trace.receivers[0]!.error).toBe(
      "the handler exceeded max_handler_ms (200 ms of compute)",
    );
    const fine = await runner.cycle("ok");
    expect(fine.trace.receivers[0]).toMatchObject({ action: "STAY", trigger: "fine" });
  });

  it("a thrown error is the handler's failure; host objects are out of reach", async () => {
    const flow = new Flow({ tape: { shape: "many", initial: ["a"] } }).receive(
      "a",
      js.add("receiver", "throw new TypeError('bad ' + typeof process + ' ' + typeof require)"),
    );
    const { trace } = await new FlowRunner(flow).cycle("x");
    expect(trace.receivers[0]!.error).toBe("TypeError: bad undefined undefined");
  });

  it("a syntax error names the handler", async () => {
    const other = await JsHandlers.open(200);
    try {
      other.add("hook", "return (");
      await expect(other.compile()).rejects.toThrow(/js handler 0: SyntaxError/);
    } finally {
      other.dispose();
    }
  });
});
