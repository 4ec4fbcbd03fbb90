/**
 * The layers of src/ (docs/design/ARCHITECTURE.md "Layers"), lowest first. A file may import
 * from its own layer or a lower one, never from a higher one; no two files import each other in
 * a loop; only the loader (src/spell/) reads the types and validators generated from schemas/.
 * `npm run check` runs this, so CI fails when a change breaks the layering.
 */
const LAYERS = [
  ["core"],
  // The QuickJS sandbox engine: knows nothing of circles, gates or looms (src/sandbox/index.ts).
  ["sandbox"],
  ["loom"],
  ["llm"],
  ["circle"],
  // OpenTelemetry GenAI spans of a cast's events or a loom's records (`spellbook/otel`): they read
  // the engine's events, gate names and loom records; the CLI's --otel wiring (flags, the SDK and
  // its exporter) stays in cli/otel/.
  ["otel"],
  ["flows", "council"],
  // Spells shared through an OCI registry (REGISTRY.md): the loader fetches oci:// references.
  ["registry"],
  ["spell"],
  // The conformance runner speaks to the real ACP agent (acp_exchange): protocols sit below it.
  ["protocols"],
  // The eval runner reuses the conformance runner's checks: they sit in one layer.
  ["conformance", "eval"],
  // Casts on a BullMQ queue (spell worker, eval --queue): runs eval's casts on other machines.
  ["queue"],
  ["cli", "commands"],
];

const folder = (names) => `^src/(${names.join("|")})/`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.join("-")}`,
  comment: `${layer.join(", ")} may not import a higher layer (${LAYERS.slice(i + 1)
    .flat()
    .join(", ")})`,
  severity: "error",
  from: { path: folder(layer) },
  to: { path: folder(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "no-circular",
      comment: "files that import each other in a loop",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "generated-only-in-spell",
      comment:
        "snake_case documents are converted once, in the loader: only src/spell/ reads src/generated/",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(spell|generated)/" },
      to: { path: "^src/generated/" },
    },
    {
      name: "sandbox-through-index",
      comment:
        "the sandbox engine is used through its public face: outside src/sandbox/ only src/sandbox/index.ts is imported",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/sandbox/" },
      to: { path: "^src/sandbox/", pathNot: "^src/sandbox/index\\.ts$" },
    },
    {
      name: "loom-rooms-through-index",
      comment:
        "loom/ is rooms with one face each: outside src/loom/ only a room's index.ts is imported",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/loom/" },
      to: { path: "^src/loom/", pathNot: "^src/loom/[^/]+/index\\.ts$" },
    },
    {
      name: "loom-rooms-apart",
      comment: "a room of src/loom/ imports another room only through that room's index.ts",
      severity: "error",
      from: { path: "^src/loom/([^/]+)/" },
      to: { path: "^src/loom/", pathNot: ["^src/loom/$1/", "^src/loom/[^/]+/index\\.ts$"] },
    },
    {
      name: "siblings-apart",
      comment: "flows and council are independent modules of one layer",
      severity: "error",
      from: { path: "^src/flows/" },
      to: { path: "^src/council/" },
    },
    {
      name: "siblings-apart-2",
      severity: "error",
      from: { path: "^src/council/" },
      to: { path: "^src/flows/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
