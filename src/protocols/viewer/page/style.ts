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
.tiles{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}.tile{display:flex;flex-direction:column;min-width:110px;padding:8px 12px;background:#fff;border:1px solid #d9dde5;border-radius:6px}
.tile b{font-size:20px}.tile span{color:#4a5468;font-size:12px}
.panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:12px;margin:8px 0}
.panel{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:8px 12px;min-width:0;overflow:auto}.panel h3{margin-top:2px}
caption{text-align:left;color:#4a5468;font-size:12px;padding:2px 0}
table.bars,table.numbers,table.changes{width:100%}table.bars td,table.bars th,table.numbers td,table.numbers th,table.changes td,table.changes th{border:0;border-bottom:1px solid #eef0f4}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.bar-cell{width:40%}.bar{display:flex;height:14px;background:#eef0f4;border-radius:3px;overflow:hidden}
.seg.pass{background:#17703a}.seg.fail{background:#b3261e}.seg.error{background:#a36200}
figure.chart{margin:4px 0}.key{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:#1d2433}
.key-item{display:inline-flex;align-items:center;gap:5px}.swatch{display:inline-block;width:18px;border-top:3px solid}.swatch.dashed{border-top-style:dashed}
table.heat td.cell{text-align:center;min-width:64px}table.heat th[scope=row]{font-weight:500}
td.cell.error,td.cell.error a{color:#6b4000;background:#fdefd3}td.cell.none{background:#f3f4f7}
.erow.head{padding:0}.erow.head button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0 6px;height:26px;text-align:left;cursor:pointer;color:inherit}
.erow.head button.num{text-align:right}.erow.head button.intent{flex:1}.erow.head button.status{width:140px}.erow.head button.time{width:250px}
.filters{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0;align-items:end}.filters label{display:flex;flex-direction:column;font-size:12px;color:#4a5468}
.filters input,.filters select{font:inherit;padding:3px 6px;border:1px solid #b8bfcc;border-radius:4px}.filters input[type=number]{width:110px}
.row.tl .gates{display:flex;gap:4px;min-width:120px}.chip{font-size:11px;padding:0 6px;border-radius:8px;background:#e4ebfa;color:#1d3a7a}
.dur{flex:1;min-width:80px;max-width:360px;height:8px;background:#eef0f4;border-radius:4px;overflow:hidden;margin-left:auto}
.dur-bar{display:block;height:100%;background:#1f4fbf}.dur-bar.gate{background:#5a6478}.call-head .dur{display:inline-block;width:200px;vertical-align:middle;margin:0 8px}
.row.tl .tl-meta{margin-left:8px;min-width:170px;text-align:right}
.vopen{position:absolute;left:0;right:0;padding:6px 8px 10px;background:#f3f6fd;border-bottom:2px solid #9db4e8}
.vopen .turn{max-width:1100px}form.fork{margin-top:10px;padding:8px;border:1px dashed #9aa6bd;border-radius:6px;background:#fff}
form.fork label{display:block;margin:4px 0;font-size:12px;color:#4a5468}form.fork textarea,form.fork input{display:block;width:100%;font:inherit;padding:4px}
form.fork button{margin-top:4px;font:inherit;padding:3px 14px}.error{color:#b3261e}
.row.first-diff{outline:2px solid #a34800;outline-offset:-2px}.tag.diff{background:#ffe2c7;color:#6b2f00}
.tag.change-regressed{background:#fbd4d0;color:#8c1d16}.tag.change-newly-errored{background:#fdefd3;color:#6b4000}.tag.change-improved{background:#d5f0e3;color:#0f5a2d}
.tag.change-new{background:#e3d7ff}.tag.change-not-run-again{background:#e4e7ee}tr.open{background:#eef3ff}.compare-pick a{margin-left:6px}
.compare .column .row{position:static}details.metadata-box summary h4{display:inline}pre.diff-gist{margin:2px 0 6px;border-color:#a34800}
`;
