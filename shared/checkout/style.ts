/**
 * The checkout's stylesheet, inlined in every page under the response's nonce (no file to fetch):
 * one column from 320 px wide, a roomier card from 600 px, and no motion for readers who ask for none.
 */
export const CHECKOUT_STYLE = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f3f5f8}
main{max-width:480px;margin:0 auto;padding:12px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:12px;padding:16px;margin-bottom:12px}
.languages ul{display:flex;flex-wrap:wrap;gap:4px;list-style:none;margin:0 0 8px;padding:0;font-size:14px}
.languages a{display:inline-block;min-height:24px;padding:2px 8px;border-radius:6px;color:#2f5d9e}
.languages a[aria-current]{color:#1d2330;font-weight:700;text-decoration:none;background:#fff;border:1px solid #dde1e8}
.summary-top{display:flex;flex-wrap:wrap;justify-content:space-between;gap:4px 12px;font-size:14px;color:#5b6578}
.merchant{font-weight:600;color:#1d2330;overflow-wrap:anywhere}
.order{overflow-wrap:anywhere}
.amount{font-size:28px;font-weight:700;line-height:1.2;margin:8px 0 0;overflow-wrap:anywhere}
.muted{color:#5b6578;font-size:14px}
.progress{border-top:1px solid #dde1e8;margin-top:12px;padding-top:8px}
.progress p{margin:4px 0}
p{margin:8px 0}
h1{font-size:20px;line-height:1.3;margin:0 0 8px}
h2{font-size:16px;margin:0 0 8px}
.countdown{font-variant-numeric:tabular-nums;font-weight:600;color:#1d2330}
.network{border-top:1px solid #dde1e8;margin-top:16px;padding-top:16px}
.network-choices{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.network-choices a{display:flex;justify-content:space-between;align-items:center;gap:8px;min-height:48px;padding:10px 14px;border:1px solid #b8c0cc;border-radius:8px;background:#fff;color:#1d2330;font-weight:600;text-decoration:none}
.network-choices a[aria-current]{border:2px solid #2f5d9e;padding:9px 13px;background:#eef3fb}
.network-choices .check{color:#2f5d9e}
.qr{display:block;width:200px;max-width:100%;height:auto;margin:8px auto 12px;image-rendering:pixelated}
.address{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:14px;word-break:break-all;background:#f3f5f8;border-radius:8px;padding:8px 10px;margin:0}
.button,button{display:block;width:100%;margin:12px 0 0;padding:12px 16px;border:1px solid #2f5d9e;border-radius:8px;background:#2f5d9e;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #9db8e2;outline-offset:1px}
.secondary{background:#fff;color:#2f5d9e}
.copy{display:inline-block;width:auto;margin-top:8px;padding:6px 14px;font-size:14px}
.choices{list-style:none;margin:0;padding:0}
.instructions{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:12px 0}
.instructions dt{color:#5b6578}
.instructions dd{margin:0;overflow-wrap:anywhere}
.instructions .copy{margin:0 0 0 4px;padding:2px 10px}
label{display:block;font-weight:600;margin:16px 0 4px}
input{display:block;width:100%;padding:10px 12px;font:inherit;border:1px solid #b8c0cc;border-radius:8px;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:#b3261e}
.error{color:#b3261e;font-size:14px;margin:4px 0 0}
.demo{background:#fff6dc;border:1px solid #e8c96a;border-radius:8px;padding:8px 12px;font-size:14px;margin:0 0 12px}
.pending{display:flex;align-items:center;gap:12px;margin-top:16px}
.spinner{flex:none;width:22px;height:22px;border:3px solid #dde1e8;border-top-color:#2f5d9e;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
.outcome{font-size:40px;line-height:1;margin:0 0 8px;color:#2f7d4f}
.offscreen{position:fixed;left:-9999px;top:0}
@media (min-width:600px){main{padding:32px 16px}.card{padding:24px}}
`;
