/**
 * The readable API reference served at `/docs`: one self-contained page (no scripts, fonts or
 * external styles) rendered from the OpenAPI document and the limit tables of the environment that
 * serves it. It reads from 320 px wide: wide tables scroll inside their own box.
 */
import { CRYPTO_ASSETS, LOCAL_FIAT_CURRENCIES } from './domain/currencies.js';
import { CURRENCY_METHODS, providersServing, type ProviderRoute } from './domain/providers.js';
import { ERROR_STATUS } from './errors.js';
import { html, raw, type Html } from './http/html.js';
import type { buildOpenApiDocument } from './openapi.js';

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
interface JsonSchema {
  $ref?: string;
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}
interface Operation {
  summary: string;
  description: string;
  deprecated?: boolean;
  security: unknown[];
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string; content?: Record<string, { schema?: JsonSchema }> }>;
}

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
main{max-width:960px;margin:0 auto;padding:24px 16px 64px}
h1{font-size:28px;margin:8px 0}h2{margin-top:40px;border-bottom:1px solid #dde1e8;padding-bottom:4px}
h3{margin:28px 0 6px;font-family:ui-monospace,Menlo,monospace;font-size:16px;overflow-wrap:anywhere}
p{overflow-wrap:break-word}
.method{display:inline-block;min-width:52px;padding:2px 6px;border-radius:4px;color:#fff;text-align:center;margin-right:8px}
.get{background:#2f7d4f}.post{background:#2f5d9e}.patch{background:#8a5a14}
.table{overflow-x:auto;margin:8px 0}
.table:focus-visible{outline:3px solid #9db8e2}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#eef1f5}
code{font-family:ui-monospace,Menlo,monospace;font-size:13px;background:#eef1f5;padding:1px 4px;border-radius:3px}
.note{color:#5b6578}nav a{margin-right:12px}
@media (max-width:600px){table{font-size:12px}th,td{padding:3px 4px}}
`;

/** Text with `code` spans, as the OpenAPI descriptions write them: the spans become <code>, everything escaped. */
function inlineMarkup(text: string): Html {
  return html`${text.split(/`([^`]+)`/).map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

/** A table in a box of its own that scrolls sideways if a narrow screen cannot hold it; reachable by keyboard. */
const scrollingTable = (label: string, rows: Html): Html => html`<div class="table" role="region" aria-label="${label}" tabindex="0"><table>${rows}</table></div>`;

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.$ref) return schema;
  return (doc.components.schemas as Record<string, JsonSchema>)[schema.$ref.split('/').pop()!];
}

function typeLabel(doc: OpenApiDocument, schema: JsonSchema): string {
  const s = resolve(doc, schema) ?? {};
  const base = s.type === 'array' ? `array of ${typeLabel(doc, s.items ?? {})}` : (s.type ?? 'object');
  return s.nullable ? `${base} or null` : base;
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.enum) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.minLength !== undefined) parts.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`max length ${schema.maxLength}`);
  if (schema.minimum !== undefined) parts.push(`> ${schema.minimum}`);
  if (schema.format) parts.push(schema.format);
  else if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
  return parts.join('; ');
}

function propertiesTable(doc: OpenApiDocument, schema: JsonSchema | undefined, label: string): Html {
  const object = resolve(doc, schema);
  const properties = Object.entries(object?.properties ?? {});
  if (properties.length === 0) return html``;
  const rows = properties.map(([name, property]) => {
    const resolved = resolve(doc, property) ?? {};
    const notes = [resolved.description, constraints(resolved)].filter(Boolean).join('. ');
    return html`<tr><td><code>${name}</code></td><td>${typeLabel(doc, property)}</td><td>${
      object?.required?.includes(name) ? 'yes' : 'no'
    }</td><td>${inlineMarkup(notes)}</td></tr>`;
  });
  return scrollingTable(label, html`<tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${rows}`);
}

function operationSection(doc: OpenApiDocument, path: string, method: string, op: Operation): Html {
  const successStatus = Object.keys(op.responses).find((status) => status.startsWith('2')) ?? '200';
  const successSchema = op.responses[successStatus]?.content?.['application/json']?.schema;
  const data = resolve(doc, successSchema)?.properties?.data;
  // A list answers an array: its items' fields are what a reader needs.
  const dataFields = resolve(doc, data)?.type === 'array' ? resolve(doc, data)?.items : data;
  const errorStatuses = Object.keys(op.responses).filter((s) => s !== successStatus);
  const title = `${method.toUpperCase()} ${path}`;
  return html`
    <h3 id="${method}-${path}"><span class="method ${method}">${method.toUpperCase()}</span>${path}</h3>
    <p>${op.deprecated ? html`<strong>Deprecated.</strong> ` : ''}<strong>${inlineMarkup(op.summary)}.</strong> ${inlineMarkup(op.description)}</p>
    <p class="note">${op.security.length > 0 ? raw('Requires <code>x-api-key</code>.') : 'No authentication.'}${
      op.parameters?.length ? html` Parameters: ${op.parameters.map((p, i) => html`${i ? ', ' : ''}<code>${p.name}</code> (${p.in}${p.required ? ', required' : ''})`)}.` : ''
    }</p>
    ${op.requestBody ? html`<p>Request body (JSON):</p>${propertiesTable(doc, op.requestBody.content['application/json'].schema, `${title}: request body`)}` : ''}
    ${data ? html`<p>Success: <code>${successStatus}</code>, <code>{ "success": true, "data": … }</code> where <code>data</code> is${dataFields === data ? '' : ' a list of'}:</p>${propertiesTable(doc, dataFields, `${title}: data`)}` : ''}
    ${errorStatuses.length ? html`<p class="note">Errors: ${errorStatuses.join(', ')}.</p>` : ''}`;
}

function limitRows(providers: readonly ProviderRoute[]): Html[] {
  return LOCAL_FIAT_CURRENCIES.flatMap((currency) =>
    CURRENCY_METHODS[currency].flatMap((method) =>
      providersServing(providers, currency, method).map(
        ({ provider, limit }) =>
          html`<tr><td>${currency}</td><td><code>${method}</code></td><td>${limit.min}</td><td>${limit.max ?? '—'}</td><td>${limit.step ?? '—'}</td><td>${provider.name}</td></tr>`,
      ),
    ),
  );
}

/** `providers`: the payment providers of the environment serving the page, whose limits its invoices apply. */
export function renderDocsPage(doc: OpenApiDocument, providers: readonly ProviderRoute[]): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => operationSection(doc, path, method, op as Operation)),
  );
  const cryptoRows = Object.entries(CRYPTO_ASSETS).flatMap(([asset, { networks }]) =>
    Object.entries(networks).map(([network, min]) => html`<tr><td>${asset}</td><td>${network}</td><td>${min}</td></tr>`),
  );
  const errorRows = Object.entries(ERROR_STATUS).map(([code, status]) => html`<tr><td><code>${code}</code></td><td>${status}</td></tr>`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title}</title><style>${raw(STYLE)}</style></head>
<body><main>
<h1>${doc.info.title}</h1>
<p>${inlineMarkup(doc.info.description)}</p>
<p class="note">Base URL: <code>${doc.servers[0]?.url}</code> · Machine-readable: <a href="${doc.servers[0]?.url}/api/v2/openapi.json">openapi.json</a></p>
<nav><a href="#endpoints">Endpoints</a><a href="#limits">Limits</a><a href="#errors">Errors</a></nav>
<h2 id="endpoints">Endpoints</h2>
${operations}
<h2 id="limits">Limits</h2>
<p>Limits apply to the amount in the payment currency. Amounts travel as decimal strings; fiat has 2 places, crypto up to 18, rounded half-up.</p>
${scrollingTable('Local currency limits', html`<tr><th>Currency</th><th>Method</th><th>Min</th><th>Max</th><th>Multiple of</th><th>Provider</th></tr>${limitRows(providers)}`)}
${scrollingTable('Crypto minimums', html`<tr><th>Asset</th><th>Network</th><th>Min (no max)</th></tr>${cryptoRows}`)}
<h2 id="errors">Errors</h2>
<p>Errors are <code>{ "success": false, "errors": [{ "code", "message", "field"? }] }</code>. A 422 item names the request field at fault.</p>
${scrollingTable('Error codes', html`<tr><th>Code</th><th>Status</th></tr>${errorRows}`)}
</main></body></html>`.text;
}
