/**
 * The page's HTML: served with its script at /app.js, or — `spell loom view --out` — one file
 * holding the data and the script inline, which opens from disk with no server and no network.
 */
export function pageHtml(inline?: { data: string; appJs: string }): string {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>spell view</title></head><body><div id="app"></div>';
  if (!inline) return `${head}<script src="/app.js"></script></body></html>\n`;
  // Inside a <script> element only "</script" (and "<!--") end or change it: written escaped.
  const data = inline.data.replace(/</g, "\\u003c");
  const script = inline.appJs.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  return (
    `${head}<script id="spell-data" type="application/json">${data}</script>` +
    `<script>${script}</script></body></html>\n`
  );
}
