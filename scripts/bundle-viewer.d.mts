/** The viewer page's script, bundled (see bundle-viewer.mjs); written to `outfile` when given. */
export function bundleViewer(outfile?: string): Promise<string>;
