// The viewer page's script (src/protocols/viewer/page/, preact + htm,
// uPlot for the charts): one minified file,
// dist/viewer.js, read by `spell view` and inlined by `spell loom view --out`. No CDN, no network.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The bundle's text; written to `outfile` when given. */
export async function bundleViewer(outfile) {
  const result = await build({
    entryPoints: [join(root, "src", "protocols", "viewer", "page", "main.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    // uPlot's stylesheet, added to the page as a <style> element (no file to fetch).
    loader: { ".css": "text" },
    write: false,
    logLevel: "warning",
  });
  const text = result.outputFiles[0].text;
  if (outfile) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(outfile, text);
  }
  return text;
}
