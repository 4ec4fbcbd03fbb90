/**
 * `spell dna FILE [--sign KEY]` prints a flow's DNA (seed 003 §7) as deterministic JSON, signed
 * with an Ed25519 private key (PEM) on request; `spell dna verify SIGNED [--key PUB]` checks one.
 * Loading for DNA never queries a model: cast spells get a stand-in LLM, so no API key is needed.
 */
import { readFileSync } from "node:fs";
import { ConfigError, errorMessage, unreadableBecause } from "../core/errors.js";
import type { LLM } from "../core/contract.js";
import type { SignedDna } from "../flows/index.js";
import type { CompiledFlow } from "../spell/kinds/flow-kind.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";
import { loadFlow } from "./flow-run.js";

const dnaOnly: LLM = {
  name: "dna-only",
  query: () => Promise.reject(new ConfigError("dna_only", "loaded for its DNA only")),
};

function readText(io: CliIO, file: string, what: string): string {
  try {
    return readFileSync(displayPath(io.cwd, file), "utf8");
  } catch (err) {
    throw new ConfigError(
      "unreadable",
      `cannot read the ${what} ${file}: ${unreadableBecause(err)}`,
    );
  }
}

export async function dnaCommand(
  file: string,
  flags: { sign?: string | undefined },
  io: CliIO,
): Promise<number> {
  const loaded = await loadFlow(file, io, { llm: dnaOnly, loomPath: "memory" });
  if (!loaded) return EXIT.invalid;
  const { flowDna, prettyJson, signDna } = await import("../flows/index.js");
  const compiled = loaded.value as CompiledFlow;
  try {
    const dna = flowDna(compiled.flow);
    const out = flags.sign ? signDna(dna, readText(io, flags.sign, "key")) : dna;
    await print(io, prettyJson(out) + "\n");
    return EXIT.ok;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return EXIT.invalid;
  } finally {
    compiled.dispose();
  }
}

export async function dnaVerifyCommand(
  file: string,
  flags: { key?: string | undefined },
  io: CliIO,
): Promise<number> {
  const { verifyDna } = await import("../flows/index.js");
  try {
    const signed = JSON.parse(readText(io, file, "signed DNA")) as SignedDna;
    const check = verifyDna(signed, flags.key ? readText(io, flags.key, "public key") : undefined);
    if (!check.ok) {
      io.stderr(`${file}: not verified: ${check.reason}\n`);
      return EXIT.failed;
    }
    const how = flags.key
      ? "with the given key"
      : "with the key it carries (integrity only; pass --key to check who signed)";
    io.stdout(`${file}: verified ${how}; profile ${signed.dna.profile}\n`);
    return EXIT.ok;
  } catch (err) {
    io.stderr(`${errorMessage(err)}\n`);
    return EXIT.invalid;
  }
}
