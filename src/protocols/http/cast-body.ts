/**
 * A POST /cast body that failed its schema (openapi.ts CAST_BODY), said in the spell's terms:
 * what was wrong, then what to send — an intent, or the inputs only when the spell declares
 * `inputs:` (a spell without them is not told of an `inputs` it cannot take).
 */

/** One schema error as fastify passes it on (ajv's shape; only what the message needs). */
export interface BodyIssue {
  keyword: string;
  instancePath?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
  message?: string;
}

export function castBodyMessage(
  issues: readonly BodyIssue[] | undefined,
  fallback: string,
  hasInputs: boolean,
): string {
  const kept = (issues ?? []).filter(
    (i) => hasInputs || (i.keyword !== "anyOf" && i.params?.missingProperty !== "inputs"),
  );
  const what = kept.length
    ? kept
        .map((i) => {
          const extra = i.params?.additionalProperty;
          const where = `body${(i.instancePath ?? "").replace(/\//g, ".")}`;
          return `${where} ${i.message ?? i.keyword}${extra ? ` (${JSON.stringify(extra)})` : ""}`;
        })
        .join(", ")
    : fallback;
  const send = hasInputs
    ? `send {"intent": "…"} or {"inputs": {…}} (the spell's inputs:)`
    : `send {"intent": "…"}`;
  return `${what}: ${send}`;
}
