/** The dashboard's one stylesheet, inline under the response's nonce: readable from 320 px up, AA contrast, no web fonts. */
export const DASHBOARD_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Nastaliq Urdu","Noto Sans Devanagari",sans-serif;color:#1a1a1a;background:#f6f7f9}
a{color:#0b57a4}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #0b57a4;outline-offset:2px}
.skip{position:absolute;inset-inline-start:-999px}
.skip:focus{inset-inline-start:8px;top:8px;background:#fff;padding:8px;z-index:1}
header{background:#12263f;color:#fff;padding:8px 16px}
header a{color:#fff}
header .top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between}
header .merchant{font-weight:700;font-size:1.1rem}
header nav ul,.languages ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px 12px}
header nav{margin-top:8px}
header nav a[aria-current]{font-weight:700;text-decoration-thickness:3px}
header form{display:inline}
header button{background:transparent;color:#fff;border:1px solid #fff;border-radius:4px;padding:2px 8px;font:inherit;cursor:pointer}
.who{font-size:.9rem}
.languages{padding:4px 16px;background:#e8ebf0;font-size:.9rem}
.languages a[aria-current]{font-weight:700}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
section,.card{background:#fff;border:1px solid #d5dae1;border-radius:6px;padding:12px 16px;margin:0 0 16px}
.table-wrap{overflow-x:auto}
.table-wrap:focus-visible{outline:3px solid #0b57a4;outline-offset:2px}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:start;padding:6px 8px;border-bottom:1px solid #e1e5ea;vertical-align:top}
th{background:#f0f2f5}
td.num,th.num{text-align:end;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
form.stack label{display:block;margin:.75rem 0 .25rem;font-weight:600}
form.stack input:not([type=checkbox]),form.stack select,form.stack textarea{width:100%;max-width:32rem;padding:8px;border:1px solid #6b7380;border-radius:4px;font:inherit;background:#fff}
fieldset.plain{border:0;padding:0;margin:0;min-width:0}
form.stack legend{font-weight:600;margin:.75rem 0 0;padding:0}
.hint{color:#4a4f57;font-size:.9rem;margin:.25rem 0}
form.inline{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}
form.inline label{display:flex;flex-direction:column;font-size:.9rem;font-weight:600}
form.inline input,form.inline select{padding:6px;border:1px solid #6b7380;border-radius:4px;font:inherit}
.check{display:flex;gap:8px;align-items:center;font-weight:600;margin:.75rem 0}
button.primary,button.secondary,button.danger{font:inherit;padding:8px 14px;border-radius:4px;cursor:pointer;margin-top:.75rem}
button.primary{background:#0b57a4;color:#fff;border:1px solid #0b57a4}
button.secondary{background:#fff;color:#0b57a4;border:1px solid #0b57a4}
button.danger{background:#fff;color:#a11212;border:1px solid #a11212;margin:0;padding:2px 10px}
.error{color:#a11212;font-weight:600;margin:.25rem 0}
[aria-invalid=true]{border-color:#a11212!important;border-width:2px!important}
.notice{background:#e7f4ea;border:1px solid #2e7d32;border-radius:6px;padding:10px 14px;margin:0 0 16px;overflow-wrap:anywhere}
.alert{background:#fdecea;border:1px solid #a11212;border-radius:6px;padding:10px 14px;margin:0 0 16px}
.demo{background:#fff4ce;color:#4a3b00;padding:4px 12px;margin:0;border-radius:6px;font-size:.9rem}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px}
.stat{background:#f0f2f5;border-radius:6px;padding:8px 12px}
.stat b{display:block;font-size:1.3rem}
dl.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:4px 16px;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.chart svg{width:100%;height:auto;display:block}
.chart .bar{fill:#0b57a4}
.chart .axis{stroke:#6b7380}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,360px),1fr));gap:16px}
.volume h3{font-size:1rem;margin:0 0 .25rem}
.volume summary{cursor:pointer;margin:.5rem 0}
ol.codes{columns:2;font-family:ui-monospace,Menlo,Consolas,monospace}
.qr{width:200px;height:200px;image-rendering:pixelated;background:#fff}
@media (max-width:600px){main{padding:8px}dl.facts{grid-template-columns:1fr}ol.codes{columns:1}}
`;
