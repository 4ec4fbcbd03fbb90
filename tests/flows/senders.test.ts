import { describe, expect, it } from "vitest";
import { Flow, FlowRunner, move, stay, test as testEvent } from "../../src/flows/index.js";
import type { SenderOptions } from "../../src/flows/index.js";

const once = async (flow: Flow, payload: unknown = "m") =>
  (await new FlowRunner(flow).cycle(payload)).trace;

describe("senders (§6.4)", () => {
  const base = () =>
    new Flow({ tape: { shape: "many", initial: ["a"] } }).receive("a --[ l ]--> b", (i) =>
      i.payload === "stay" ? stay("s") : i.payload === "test" ? testEvent("ok") : move("ok"),
    );

  it.each<[string, SenderOptions, string[]]>([
    ["action filter only", { actions: ["MOVE"] }, ["move"]],
    ["trigger filter only", { triggers: ["ok"] }, ["move", "test"]],
    ["both: action and trigger must match", { actions: ["MOVE"], triggers: ["ok"] }, ["move"]],
    ["both, one failing", { actions: ["STAY"], triggers: ["ok"] }, []],
    ["no filter", {}, ["move", "stay", "test"]],
  ])("%s", async (_name, filters, want) => {
    const emitted: string[] = [];
    for (const p of ["move", "stay", "test"]) {
      const flow = base().send("l", () => p, filters);
      const trace = await once(flow, p);
      emitted.push(...trace.emissions.map((e) => String(e.payload)));
    }
    expect(emitted).toEqual(want);
  });

  it("only senders whose route is compatible with the receiver's route run", async () => {
    const trace = await once(
      base()
        .send("b", () => "b")
        .send("zzz", () => "zzz")
        .send("a --> l", () => "a-l"),
    );
    expect(trace.emissions.map((e) => e.payload)).toEqual(["a-l", "b"]);
  });

  it.each(["/oneof(a, c) --[ l ]--> b", "/not(c) --[ l ]--> b", "/oneof(a, /not(c)) --> b"])(
    "a sender registered on exactly its receiver's route %j fires",
    async (route) => {
      const flow = new Flow({ tape: { shape: "many", initial: ["a"] } })
        .receive(route, () => move("ok"))
        .send(route, () => "sent");
      expect((await once(flow)).emissions.map((e) => e.payload)).toEqual(["sent"]);
    },
  );

  it("emit at most once per (route, key) per cycle unless multi", async () => {
    const flow = (multi: boolean) =>
      new Flow({ tape: { shape: "index-many", initial: { k: ["a", "b"], j: ["a"] } } })
        .receive("a", () => stay("x"))
        .receive("b", () => stay("x"))
        .send("/all", (i) => `${i.key}:${i.route}`, { multi });
    expect((await once(flow(false))).emissions.map((e) => e.payload)).toEqual(["j:a", "k:a"]);
    expect((await once(flow(true))).emissions.map((e) => e.payload)).toEqual(["j:a", "k:a", "k:b"]);
  });

  it("run in a deterministic order: per event in receiver order, senders by priority then route", async () => {
    const order: string[] = [];
    const flow = new Flow({ tape: { shape: "many", initial: ["a"] } })
      .receive("a", () => stay(), { priority: [1] })
      .receive("--> a", () => stay(), { priority: [0] })
      .send("a", (i) => (order.push(`z@${i.route}`), null), { priority: [2], multi: true })
      .send("/all", (i) => (order.push(`y@${i.route}`), null), { priority: [1], multi: true })
      .send("/all, a", (i) => (order.push(`x@${i.route}`), null), { priority: [1], multi: true });
    await once(flow);
    expect(order).toEqual(["y@--[]--> a", "x@--[]--> a", "z@--[]--> a", "y@a", "x@a", "z@a"]);
  });

  it("a sender sees the hooked inbound payload and the event; null emits nothing", async () => {
    const flow = base()
      .hook("receive", (p) => `${String(p)}!`)
      .send("l", (i) => ({ got: i.payload, event: i.event, key: i.key }))
      .send("b", () => null);
    const trace = await once(flow, "move");
    expect(trace.emissions).toEqual([
      {
        route: "l",
        key: null,
        payload: { got: "move!", event: { action: "MOVE", trigger: "ok" }, key: null },
      },
    ]);
    expect(trace.drops).toEqual([]);
  });

  it("a sender that throws is traced as a drop with its error", async () => {
    const flow = base().send("l", () => {
      throw new Error("nope");
    });
    const trace = await once(flow);
    expect(trace.emissions).toEqual([]);
    expect(trace.drops).toEqual([{ by: "sender_error", at: "l", key: null, error: "nope" }]);
  });
});

describe("limits: the flow's wards (§9)", () => {
  it("drops an inbound message over max_message_bytes before any hook", async () => {
    let hooked = false;
    const flow = new Flow({ limits: { maxMessageBytes: 10 } }).hook(
      "receive",
      (p) => ((hooked = true), p),
    );
    expect((await once(flow, "x".repeat(20))).dropped).toEqual({ by: "max_message_bytes" });
    expect(hooked).toBe(false);
    expect((await once(flow, "short")).dropped).toBeUndefined();
  });

  it("drops an outbound emission over max_message_bytes", async () => {
    const flow = new Flow({ limits: { maxMessageBytes: 30 } })
      .receive("--> a", () => stay())
      .send("a", () => "y".repeat(40));
    const trace = await once(flow, "m");
    expect(trace.emissions).toEqual([]);
    expect(trace.drops).toEqual([{ by: "max_message_bytes", at: "a", key: null }]);
  });

  it("fails a handler that runs past max_handler_ms and aborts its signal", async () => {
    let aborted = false;
    const flow = new Flow({
      tape: { shape: "many", initial: ["a"] },
      limits: { maxHandlerMs: 20 },
    }).receive(
      "a --> b",
      (i) =>
        new Promise((resolve) => {
          i.signal.addEventListener("abort", () => ((aborted = true), resolve(move())));
        }),
    );
    const runner = new FlowRunner(flow);
    const { trace } = await runner.cycle("m");
    expect(trace.receivers[0]!.error).toMatch(/max_handler_ms \(20 ms\)/);
    expect(aborted).toBe(true);
    expect(runner.tapeValue()).toEqual(["a"]);
  });

  it("refuses a cycle that would grow the tape past max_tape_nodes, leaving the tape as it was", async () => {
    const flow = new Flow({
      tape: { shape: "many", initial: ["a"] },
      limits: { maxTapeNodes: 2 },
    }).receive("a --[ b, c ]--> d", (i) => (i.payload === "big" ? move() : testEvent()));
    const runner = new FlowRunner(flow);
    const big = (await runner.cycle("big")).trace;
    expect(big.drops[0]).toMatchObject({ by: "max_tape_nodes" });
    expect(big.tape).toEqual([]);
    expect(runner.tapeValue()).toEqual(["a"]);
    await runner.cycle("small");
    expect(runner.tapeValue()).toEqual(["b", "c"]);
  });
});
