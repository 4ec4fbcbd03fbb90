// import() for the CLI bundles (src/cli/tui-load.ts): they run in a vm.Script (bin/load.js),
// where Node offers no import(); an ES module that cannot be required (the terminal UI: Ink)
// is imported here, in an ordinary CommonJS module. (CommonJS, as all of bin/.)
"use strict";
module.exports = (url) => import(url);
