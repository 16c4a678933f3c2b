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
code,.mono,.id{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
td code,.id{overflow-wrap:normal;white-space:nowrap}
td .mono{display:inline-block;min-width:min(16ch,100%)}
.badge{display:inline-flex;align-items:center;gap:4px;white-space:nowrap;border:1px solid;border-radius:999px;padding:0 8px;margin:1px 4px 1px 0;font-size:.85rem;font-weight:600;line-height:1.5}
.badge::before{font-weight:700}
.badge.done{background:#e6f4ea;color:#1d5b28;border-color:#2e7d32}
.badge.done::before{content:"\\2713" / ""}
.badge.waiting{background:#e7f0fb;color:#0b4a8a;border-color:#0b57a4}
.badge.waiting::before{content:"\\25F7" / ""}
.badge.attention{background:#fff4ce;color:#5c4300;border-color:#8a6500}
.badge.attention::before{content:"!" / ""}
.badge.ended{background:#fdecea;color:#8a1010;border-color:#a11212}
.badge.ended::before{content:"\\2715" / ""}
.badge.none{background:#eef0f3;color:#3b4048;border-color:#6b7380}
.badge.none::before{content:"\\25CB" / ""}
nav.pager ul{list-style:none;display:flex;gap:16px;margin:12px 0 0;padding:0}
nav.pager a{display:inline-block;padding:6px 12px;border:1px solid #0b57a4;border-radius:4px;text-decoration:none}
nav.pager li:has(a[rel=next]){margin-inline-start:auto}
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
@media (max-width:600px){main{padding:8px}section,.card{padding:8px 10px}dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:4px}ol.codes{columns:1}
.cards{overflow:visible}
.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.cards table,.cards tbody{display:block}
.cards tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 12px;padding:8px 0;border-bottom:1px solid #d5dae1}
.cards td{display:block;flex:1 1 calc(50% - 6px);min-width:0;padding:0;border:0;text-align:start;overflow-wrap:anywhere}
.cards td.brief{flex:0 1 auto}
.cards td:empty{display:none}
.cards td::before{content:attr(data-label);display:block;font-size:.75rem;font-weight:600;color:#4a4f57}
.cards td.brief::before{content:none}
.cards td:not(.brief) code{white-space:normal;overflow-wrap:anywhere}
.cards td:has(form),.cards td:has(.long){flex-basis:100%}
.cards .mono{display:inline;min-width:0}
form.inline{align-items:stretch}
}
`;
