/**
 * The package's public API as a user meets it: only the package's entry points (package.json
 * "exports": `spellbook` → src/index.ts, `spellbook/council` → src/spell/crucible.ts), a real
 * provider built in code against a loopback server (no network), and the identity's settings
 * reaching the request.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import * as api from "../../src/index.js";
import * as council from "../../src/spell/crucible.js";
import { startLoopbackProvider, type LoopbackServer } from "../support/providers.js";
import { needs, notBuilt } from "../support/needs.js";

/** Every name the package exports at run time. A new one is a decision: add it here. */
const PUBLIC = [
  // the spec's vocabulary
  "Cantrip",
  "Circle",
  "Entity",
  "createIdentity",
  "composeWards",
  // the loom
  "Loom",
  "MemoryStore",
  "JsonlStore",
  "readLoomFile",
  "fork",
  // what the LLM is shown of the history
  "wholeHistory",
  "foldingView",
  "templateSummary",
  "llmSummary",
  "DEFAULT_CONTEXT_WINDOW",
  "DEFAULT_FOLD_THRESHOLD",
  // LLMs: the provider factories, the generic one, the offline ones, their errors
  "anthropic",
  "openai",
  "openrouter",
  "google",
  "local",
  "createLLM",
  "ScriptedLLM",
  "ReplayLLM",
  "ProviderError",
  // gates
  "doneGate",
  "echoGate",
  "readGate",
  "listDirGate",
  "searchGate",
  "writeGate",
  "fetchGate",
  "mcpGates",
  "newEntityId", // pre-assigns a cast's entity, to continue it later with cast(intent, { resumeEntity })
  "browserGates",
  "behaviorGate",
  "callEntityGate",
  "callEntityBatchGate",
  "gate", // a gate written in code, its arguments typed from its schema
  // mediums: every one
  "conversationMedium",
  "codeMedium",
  "createCodeMedium",
  "bashMedium",
  "createBashMedium",
  // spells
  "loadSpell",
  "loadSpellText",
  "loadDocument",
  "castSpell",
  "castIntent",
  // errors
  "SpellbookError",
  "ConfigError",
  "SystemError",
  "ModelError",
  "SpellErrors",
  "errorMessage",
  // flows (seed 003): the namespace, and its old name kept one version (deprecated)
  "flows",
  "routes",
  "Flow",
  "FlowRunner",
  "FLOW_PROFILE_VERSION",
  "JsHandlers",
].sort();

describe("the package's entry points", () => {
  it("package.json exports the two code entries this test imports, the schemas and itself", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports).toEqual({
      ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
      "./council": { types: "./dist/spell/crucible.d.ts", default: "./dist/spell/crucible.js" },
      "./otel": { types: "./dist/otel/index.d.ts", default: "./dist/otel/index.js" },
      // Data, not code: editors and tools read them (tests/spell/schema-editor.test.ts).
      "./schemas/*": "./schemas/*",
      "./package.json": "./package.json",
    });
  });

  it("spellbook exports a deliberate list: nothing internal", () => {
    expect(Object.keys(api).sort()).toEqual(PUBLIC);
    for (const internal of ["offerDelegationMessage", "mcpConfigOf", "gateRegistry", "forkPath"])
      expect(api).not.toHaveProperty(internal);
  });

  // The built package imported by its name, as a user's code does. Without dist/ (no
  // `npm run build` yet) there is nothing to import: the source entries above stand for it.
  needs(notBuilt("dist/index.js")).it(
    "import('spellbook') from the built package gives the same list",
    () => {
      const out = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", "console.log(Object.keys(await import('spellbook')).join())"],
        { encoding: "utf8" },
      );
      expect(out.trim().split(",").sort()).toEqual(PUBLIC);
    },
  );

  it("flows is the flows' namespace; routes, its deprecated old name, is the same namespace", async () => {
    const direct = await import("../../src/flows/index.js");
    expect(Object.keys(api.flows).sort()).toEqual(Object.keys(direct).sort());
    expect(api.flows.FlowRunner).toBe(api.FlowRunner);
    expect(api.routes).toBe(api.flows);
    // The old name is marked deprecated in the typings a user's editor reads.
    const index = readFileSync("src/index.ts", "utf8");
    expect(index).toMatch(/@deprecated Use `flows`[^]*?\*\/\nexport \* as routes from/);
  });

  it("spellbook/council exports the engine only", () => {
    expect(Object.keys(council).sort()).toEqual(["Crucible"]);
  });
});

describe("a real provider built in code", () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const completion = (content: string) => ({
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-test",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
  });

  it("openai(...) talks to a loopback server, and the identity's temperature reaches the request", async () => {
    server = await startLoopbackProvider([completion("hello from the wire")]);
    const llm = await api.openai({
      model: "gpt-test",
      baseUrl: `${server.url}/v1`,
      apiKey: "sk-test-not-a-real-key-0123456789",
      retry: { maxRetries: 0 },
    });
    const cantrip = new api.Cantrip({
      llm,
      identity: api.createIdentity({ systemPrompt: "Be brief.", temperature: 0.25 }),
      circle: new api.Circle({ gates: [api.doneGate()], wards: [{ max_turns: 2 }] }),
    });
    const result = await cantrip.cast("Say hello.");
    expect(result.status).toBe("terminated");
    expect(result.result).toBe("hello from the wire");
    // CastResult is typed with the package's Loom: no cast needed to read the thread.
    expect(result.loom.thread(result.lastTurnId!)).toHaveLength(1);
    const sent = server.requests[0]!.body as { model: string; temperature?: number };
    expect(sent.model).toBe("gpt-test");
    expect(sent.temperature).toBe(0.25);
  });

  it("anthropic(...) builds the Anthropic adapter against a loopback server", async () => {
    server = await startLoopbackProvider([
      {
        body: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [{ type: "text", text: "hi from anthropic" }],
          stop_reason: "end_turn",
          usage: { input_tokens: 3, output_tokens: 2 },
        },
      },
    ]);
    const llm = await api.anthropic({
      model: "claude-test",
      baseUrl: server.url,
      apiKey: "sk-ant-test-not-a-real-key-0123456789",
      retry: { maxRetries: 0 },
    });
    const cantrip = new api.Cantrip({
      llm,
      identity: api.createIdentity({ temperature: 0.5 }),
      circle: new api.Circle({ gates: [api.doneGate()], wards: [{ max_turns: 2 }] }),
    });
    const result = await cantrip.cast("Say hi.");
    expect(result.result).toBe("hi from anthropic");
    expect((server.requests[0]!.body as { temperature?: number }).temperature).toBe(0.5);
  });

  it("createIdentity refuses a key it does not know instead of dropping it", () => {
    const loose = { systemPrompt: "x", temprature: 1 } as Parameters<typeof api.createIdentity>[0];
    expect(() => api.createIdentity(loose)).toThrow(/unknown identity key temprature/);
  });
});
