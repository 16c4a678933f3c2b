/**
 * The readable API reference served at `/docs`: one self-contained page (no scripts, fonts or
 * external styles) rendered from the OpenAPI document and the limit tables of the environment that
 * serves it: each operation under its tag with its examples, and the callbacks a merchant
 * receives. It reads from 320 px wide: on a narrow screen each
 * row of a field table becomes a block of its own, any other table too wide for it scrolls inside
 * its own box, and no column is ever squeezed below its words.
 */
import { CRYPTO_ASSETS, LOCAL_FIAT_CURRENCIES } from './domain/kernel/index.js';
import { CURRENCY_METHODS, providersServing, type ProviderRoute } from './domain/providers/index.js';
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
  exclusiveMinimum?: boolean;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}
/** Where OpenAPI puts examples: one `example`, or named `examples`. */
interface Examples {
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Parameter extends Examples {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema?: JsonSchema;
}
interface MediaType extends Examples {
  schema?: JsonSchema;
}
interface Response {
  description: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  deprecated?: boolean;
  security: unknown[];
  parameters?: Parameter[];
  requestBody?: { description?: string; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  callbacks?: Record<string, unknown>;
}
interface CallbackTarget {
  description: string;
  post: Operation;
}

/** The tag of the merchant's callback tools: the callbacks themselves are described at its head. */
const CALLBACKS_TAG = 'Callbacks';

/**
 * Columns keep their words whole (`break-word`, not `anywhere`, which would let a column shrink to a
 * letter); a value in the notes moves to its own line whole and breaks only if wider than the column.
 * Under 600 px a table with a column of notes (a field table) leaves its header row to screen
 * readers and makes each row a block: the name and its short facts on a line, the notes beneath at
 * the full width.
 */
const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
main{max-width:1040px;margin:0 auto;padding:24px 16px 64px}
h1{font-size:28px;margin:8px 0}h2{margin-top:48px;border-bottom:1px solid #dde1e8;padding-bottom:4px}
h3{margin:32px 0 6px;font-family:ui-monospace,Menlo,monospace;font-size:16px;overflow-wrap:anywhere}
p{overflow-wrap:break-word}
.method{display:inline-block;min-width:52px;padding:2px 6px;border-radius:4px;color:#fff;text-align:center;margin-right:8px}
.get{background:#2f7d4f}.post{background:#2f5d9e}.patch{background:#8a5a14}
.table{overflow-x:auto;margin:8px 0}
.table:focus-visible{outline:3px solid #9db8e2}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}th{background:#eef1f5;white-space:nowrap}
td code{white-space:nowrap}
td.text{min-width:16em}
td.text code{display:inline-block;max-width:100%;white-space:normal;overflow-wrap:anywhere}
code{font-family:ui-monospace,Menlo,monospace;font-size:13px;background:#eef1f5;padding:1px 4px;border-radius:3px}
pre{margin:8px 0;padding:8px 12px;background:#fff;border:1px solid #dde1e8;border-radius:4px;font:13px/1.4 ui-monospace,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
td pre{margin:4px 0 0;padding:4px 8px;background:#f7f8fa}
.note{color:#5b6578}nav a{margin-right:12px;display:inline-block}
@media (max-width:600px){
table{font-size:13px}th,td{padding:3px 6px}th{white-space:normal}
table:has(td.text),table:has(td.text) tbody{display:block}
table:has(td.text) tr{display:flex;flex-wrap:wrap;gap:2px 12px;padding:6px 8px;border:1px solid #dde1e8;border-top:0}
table:has(td.text) tr:first-child{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table:has(td.text) tr:nth-child(2){border-top:1px solid #dde1e8}
table:has(td.text) td{border:0;padding:0}
td.text{flex-basis:100%;min-width:0}
td.required::before{content:"required: "}
}
`;

/** Text with `code` spans, as the OpenAPI descriptions write them: the spans become <code>, everything escaped. */
function inlineMarkup(text: string): Html {
  return html`${text.split(/`([^`]+)`/).map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

const joined = (parts: readonly Html[], separator: string): Html => html`${parts.map((part, index) => html`${index ? separator : ''}${part}`)}`;

/** A table in a box of its own that scrolls sideways if a narrow screen cannot hold it; reachable by keyboard. */
const scrollingTable = (label: string, rows: Html): Html => html`<div class="table" role="region" aria-label="${label}" tabindex="0"><table>${rows}</table></div>`;

/** The widest line of an example: an object or list that fits stays on one line, as code formatters keep it. */
const EXAMPLE_LINE_CHARS = 100;

/** JSON on one line, spaced as a reader expects: `{ "a": [{ "b": 1 }] }`. */
function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${inlineJson(item)}`);
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}

/**
 * JSON indented by two spaces, except that a nested value that fits in `EXAMPLE_LINE_CHARS` from
 * `column` stays on one line; the outermost is always opened, so that every example has one shape.
 */
function formatJson(value: unknown, indent = '', column = 0): string {
  const inline = inlineJson(value);
  const fits = indent !== '' && column + inline.length <= EXAMPLE_LINE_CHARS;
  if (value === null || typeof value !== 'object' || Object.keys(value).length === 0 || fits) return inline;
  const inner = `${indent}  `;
  const lines = Array.isArray(value)
    ? value.map((item) => `${inner}${formatJson(item, inner, inner.length)}`)
    : Object.entries(value).map(([key, item]) => {
        const lead = `${inner}${JSON.stringify(key)}: `;
        return `${lead}${formatJson(item, inner, lead.length)}`;
      });
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
}

/** An example as the document holds it: JSON written out, a text (an HTML page, a header's value) as it is. */
const exampleText = (example: unknown): string => (typeof example === 'string' ? example : formatJson(example));

/** The examples of a parameter, body or answer, each with the name the document gives it if it has several. */
const examplesOf = ({ example, examples }: Examples): { name?: string; value: unknown }[] =>
  example !== undefined ? [{ value: example }] : Object.entries(examples ?? {}).map(([name, { summary, value }]) => ({ name: summary ?? name, value }));

const exampleBlocks = (caption: string, holder: Examples): Html[] => examplesOf(holder).map(({ name, value }) => html`<p>${caption}${name ? ` (${name})` : ''}:</p><pre>${exampleText(value)}</pre>`);

const sectionId = (tag: string): string => tag.toLowerCase();

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.$ref) return schema;
  return (doc.components.schemas as Record<string, JsonSchema>)[schema.$ref.split('/').pop()!];
}

function typeLabel(doc: OpenApiDocument, schema: JsonSchema): string {
  const s = resolve(doc, schema) ?? {};
  const base = s.type === 'array' ? `array of ${typeLabel(doc, s.items ?? {})}` : (s.type ?? 'object');
  return s.nullable ? `${base} or null` : base;
}

function constraints(schema: JsonSchema): Html[] {
  const parts: Html[] = [];
  if (schema.enum) parts.push(html`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.minLength !== undefined) parts.push(html`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(html`max length ${schema.maxLength}`);
  // An integer's bounds that only say it is a safe integer say nothing to a reader.
  if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) parts.push(html`${schema.exclusiveMinimum ? '>' : 'min'} ${schema.minimum}`);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) parts.push(html`max ${schema.maximum}`);
  if (schema.format) parts.push(html`${schema.format}`);
  else if (schema.pattern) parts.push(html`pattern <code>${schema.pattern}</code>`);
  return parts;
}

/** What a field is for, then what its schema allows, then (for a parameter) its examples. */
function notes(description: string | undefined, schema: JsonSchema, examples: Examples = {}): Html {
  const rules = constraints(schema);
  const values = examplesOf(examples).map(({ value }) => html`<code>${exampleText(value)}</code>`);
  return joined(
    [
      ...(description ? [inlineMarkup(description)] : []),
      ...(rules.length ? [joined(rules, '; ')] : []),
      ...(values.length ? [html`${values.length > 1 ? 'Examples' : 'Example'}: ${joined(values, ', ')}`] : []),
    ],
    '. ',
  );
}

const requiredCell = (required: boolean | undefined): Html => html`<td class="required">${required ? 'yes' : 'no'}</td>`;

function propertiesTable(doc: OpenApiDocument, schema: JsonSchema | undefined, label: string): Html {
  const object = resolve(doc, schema);
  const properties = Object.entries(object?.properties ?? {});
  if (properties.length === 0) return html``;
  const rows = properties.map(([name, property]) => {
    const resolved = resolve(doc, property) ?? {};
    return html`<tr><td><code>${name}</code></td><td>${typeLabel(doc, property)}</td>${requiredCell(object?.required?.includes(name))}<td class="text">${notes(resolved.description, resolved)}</td></tr>`;
  });
  return scrollingTable(label, html`<tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr>${rows}`);
}

/** Headers, when they all are (as a callback's are), else parameters with where each goes. */
function parametersSection(doc: OpenApiDocument, parameters: readonly Parameter[], title: string): Html {
  const allHeaders = parameters.every((parameter) => parameter.in === 'header');
  const what = allHeaders ? 'Headers' : 'Parameters';
  const rows = parameters.map(
    (parameter) =>
      html`<tr><td><code>${parameter.name}</code></td>${allHeaders ? '' : html`<td>${parameter.in}</td>`}<td>${typeLabel(doc, parameter.schema ?? {})}</td>${requiredCell(
        parameter.required,
      )}<td class="text">${notes(parameter.description, parameter.schema ?? {}, parameter)}</td></tr>`,
  );
  const head = html`<tr><th>Name</th>${allHeaders ? '' : raw('<th>In</th>')}<th>Type</th><th>Required</th><th>Notes</th></tr>`;
  return html`<p>${what}:</p>${scrollingTable(`${title}: ${what.toLowerCase()}`, html`${head}${rows}`)}`;
}

/** Each answer with when it comes and, beneath at the width of the text, the example bodies the document gives it. */
function responsesTable(responses: ReadonlyArray<[string, Response]>, label: string): Html {
  const rows = responses.map(([status, response]) => {
    const examples = examplesOf(Object.values(response.content ?? {})[0] ?? {});
    return html`<tr><td>${status}</td><td class="text">${inlineMarkup(response.description)}${examples.map(({ value }) => html`<pre>${exampleText(value)}</pre>`)}</td></tr>`;
  });
  return scrollingTable(label, html`<tr><th>Status</th><th>When, and an example</th></tr>${rows}`);
}

interface OperationHeading {
  id: string;
  method: string;
  /** The path, or for a callback the URL it goes to. */
  target: string;
  /** Who may call, and what follows. */
  note: Html;
  /** What names its tables for assistive technology, where method and target are not unique (the callbacks share a URL). */
  title?: string;
}

function operationSection(doc: OpenApiDocument, heading: OperationHeading, op: Operation): Html {
  const title = heading.title ?? `${heading.method.toUpperCase()} ${heading.target}`;
  const [successStatus, success] = Object.entries(op.responses).find(([status]) => status.startsWith('2')) ?? ['200', undefined];
  const [successType, successContent] = Object.entries(success?.content ?? {})[0] ?? [];
  const data = resolve(doc, successContent?.schema)?.properties?.data;
  // A list answers an array: its items' fields are what a reader needs.
  const dataFields = resolve(doc, data)?.type === 'array' ? resolve(doc, data)?.items : data;
  const errors = Object.entries(op.responses).filter(([status]) => status !== successStatus);
  const request = op.requestBody?.content['application/json'];
  return html`
    <h3 id="${heading.id}"><span class="method ${heading.method}">${heading.method.toUpperCase()}</span>${heading.target}</h3>
    <p>${op.deprecated ? html`<strong>Deprecated.</strong> ` : ''}<strong>${inlineMarkup(op.summary)}.</strong> ${inlineMarkup(op.description)}</p>
    <p class="note">${heading.note}</p>
    ${op.parameters?.length ? parametersSection(doc, op.parameters, title) : ''}
    ${
      request
        ? html`<p>Request body (JSON).${op.requestBody?.description ? html` ${inlineMarkup(op.requestBody.description)}` : ''}</p>${propertiesTable(
            doc,
            request.schema,
            `${title}: request body`,
          )}${exampleBlocks('Example request body', request)}`
        : ''
    }
    ${
      success
        ? html`<p>Success <code>${successStatus}</code>: ${inlineMarkup(success.description)}.${
            data
              ? html` The body is <code>{ "success": true, "data": … }</code> where <code>data</code> is${dataFields === data ? '' : ' a list of'}:`
              : successType
                ? html` The body is <code>${successType}</code>.`
                : ''
          }</p>${data ? propertiesTable(doc, dataFields, `${title}: data`) : ''}${exampleBlocks('Example response', successContent ?? {})}`
        : ''
    }
    ${errors.length ? html`<p>Errors:</p>${responsesTable(errors, `${title}: errors`)}` : ''}`;
}

function endpointSection(doc: OpenApiDocument, path: string, method: string, op: Operation): Html {
  const access = op.security.length > 0 ? raw('Requires <code>x-api-key</code>.') : html`No authentication.`;
  const callbacks = op.callbacks ? html` The outcome is announced by <a href="#callbacks">callbacks</a>.` : '';
  return operationSection(doc, { id: `${method}-${path}`, method, target: path, note: html`${access}${callbacks}` }, op);
}

/** What the gateway posts to the merchant's callback URL, as the document's callbacks describe it. */
function callbackSections(doc: OpenApiDocument): Html[] {
  const callbacks = doc.components.callbacks as Record<string, Record<string, CallbackTarget>>;
  return Object.values(callbacks).flatMap((targets) =>
    Object.entries(targets).map(([target, { description, post }]) =>
      operationSection(doc, { id: post.operationId, method: 'post', target, note: inlineMarkup(description), title: `POST ${target} (${post.operationId})` }, post),
    ),
  );
}

function limitRows(providers: readonly ProviderRoute[]): Html[] {
  return LOCAL_FIAT_CURRENCIES.flatMap((currency) =>
    CURRENCY_METHODS[currency].flatMap((method) =>
      providersServing(providers, currency, method).map(
        ({ provider, limit }) => html`<tr><td>${currency}</td><td><code>${method}</code></td><td>${limit.min}</td><td>${limit.max ?? '—'}</td><td>${limit.step ?? '—'}</td><td>${provider.name}</td></tr>`,
      ),
    ),
  );
}

/** `providers`: the payment providers of the environment serving the page, whose limits its invoices apply. */
export function renderDocsPage(doc: OpenApiDocument, providers: readonly ProviderRoute[]): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ tag: (op as Operation).tags[0], section: endpointSection(doc, path, method, op as Operation) })),
  );
  const tagSection = ({ name, description }: { name: string; description: string }, lead: Html[] = []): Html => html`
<h2 id="${sectionId(name)}">${name}</h2>
<p>${inlineMarkup(description)}</p>
${lead}${operations.filter(({ tag }) => tag === name).map(({ section }) => section)}`;
  const cryptoRows = Object.entries(CRYPTO_ASSETS).flatMap(([asset, { networks }]) => Object.entries(networks).map(([network, min]) => html`<tr><td>${asset}</td><td>${network}</td><td>${min}</td></tr>`));
  const errorRows = Object.entries(ERROR_STATUS).map(([code, status]) => html`<tr><td><code>${code}</code></td><td>${status}</td></tr>`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title}</title><style>${raw(STYLE)}</style></head>
<body><main>
<h1>${doc.info.title}</h1>
<p>${inlineMarkup(doc.info.description)}</p>
<p class="note">Base URL: <code>${doc.servers[0]?.url}</code> · Machine-readable: <a href="${doc.servers[0]?.url}/api/v2/openapi.json">openapi.json</a></p>
<nav aria-label="Contents">${doc.tags.map(({ name }) => html`<a href="#${sectionId(name)}">${name}</a>`)}<a href="#limits">Limits</a><a href="#errors">Errors</a></nav>
${doc.tags.map((tag) => tagSection(tag, tag.name === CALLBACKS_TAG ? callbackSections(doc) : []))}
<h2 id="limits">Limits</h2>
<p>Limits apply to the amount in the payment currency. Amounts travel as decimal strings; fiat has 2 places, crypto up to 18, rounded half-up.</p>
${scrollingTable('Local currency limits', html`<tr><th>Currency</th><th>Method</th><th>Min</th><th>Max</th><th>Multiple of</th><th>Provider</th></tr>${limitRows(providers)}`)}
${scrollingTable('Crypto minimums', html`<tr><th>Asset</th><th>Network</th><th>Min (no max)</th></tr>${cryptoRows}`)}
<h2 id="errors">Errors</h2>
<p>Errors are <code>{ "success": false, "errors": [{ "code", "message", "field"? }] }</code>. A 422 item names the request field at fault.</p>
${scrollingTable('Error codes', html`<tr><th>Code</th><th>Status</th></tr>${errorRows}`)}
</main></body></html>`.text;
}
