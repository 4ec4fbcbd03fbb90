/** The page's look, added by main.ts as one <style> element (no file to fetch). */
export const CSS = `
*{box-sizing:border-box}body{margin:0;font:13px/1.4 system-ui,sans-serif;color:#1d2433;background:#f7f8fa}
header{display:flex;gap:12px;align-items:center;padding:8px 16px;background:#1d2433;color:#fff}
header a{color:#fff;text-decoration:none;font-weight:600}header .live{margin-left:auto;font-size:12px;opacity:.8}
main{padding:8px 16px}h2{font-size:15px;margin:8px 0}h3{font-size:14px;margin:6px 0}h4{margin:10px 0 4px;font-size:12px;text-transform:uppercase;color:#5a6478}
a{color:#2456c7}.virtual{overflow:auto;position:relative;border:1px solid #d9dde5;background:#fff}
.vrow{position:absolute;left:0;right:0;overflow:hidden}
.erow,.row{display:flex;gap:10px;align-items:center;height:26px;padding:0 6px;white-space:nowrap;color:inherit;text-decoration:none;border-bottom:1px solid #eef0f4}
.erow:hover,.row:hover{background:#eef3ff}.erow.head{font-weight:600;background:#eef0f4}
.erow .intent{flex:1;overflow:hidden;text-overflow:ellipsis}.erow .status{width:140px;overflow:hidden}
.num{width:70px;text-align:right}.time{width:250px;color:#5a6478}
.row .gates{overflow:hidden;text-overflow:ellipsis}.row .meta,.meta{color:#5a6478;font-size:12px}.row .meta{margin-left:auto}
.row.open{background:#dde7ff}.row.folded{background:#f6f2e6}.row.fold{color:#6b5a1e;background:#fbf5dc}.row.shared{opacity:.6}
.err .seq,.err>b,.call.err .call-head{color:#b3261e}.tag{font-size:11px;padding:0 5px;border-radius:8px;background:#e4e7ee;font-weight:600}
.tag.fork{background:#e3d7ff}.tag.child{background:#d5f0e3}.tag.fold,.tag.folded{background:#f5e6a8}.tag.err{background:#fbd4d0;color:#b3261e}
.split{display:flex;gap:12px}.split .left{flex:1;min-width:0}.split .right{flex:1;min-width:0;max-height:calc(100vh - 70px);overflow:auto}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #e1e4ea;padding:6px;margin:2px 0;max-height:320px;overflow:auto}
.call{border-left:3px solid #9db4e8;padding-left:6px;margin:6px 0}.call.err{border-left-color:#b3261e}
.compare{display:flex;gap:12px}.compare .column{flex:1;min-width:0}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d9dde5;padding:3px 8px;text-align:left}
td.cell.pass,td.cell.pass a{color:#17703a;background:#e6f4ea}td.cell.fail,td.cell.fail a{color:#b3261e;background:#fce8e6}
dl.summary{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dd{margin:0}
.intent-line{color:#5a6478;margin:2px 0 6px}.sources li{margin:4px 0}.hint{color:#5a6478}
`;
