/**
 * Generated requests for any route of the route table: the route's own method and path with
 * path parameters of every shape, JSON or form bodies from near-valid (built from the OpenAPI
 * document's request schema, so a new route's body is covered as soon as it is documented) to
 * hostile (wrong types, huge and unicode strings, deep nesting, `__proto__` and duplicate keys,
 * exponents and 30-digit decimals), wrong content types, empty and gzip bodies, long headers, and
 * every kind of API key: the merchant's own, another merchant's, revoked, unknown, malformed, and
 * the merchant's own keys beyond their reach (a key with the `read` scope alone, a key allowed
 * from addresses the requests do not come from).
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS, FIAT_METHODS, LOCAL_FIAT_CURRENCIES, REFERENCE_CURRENCIES } from '../../../shared/domain/kernel/currencies.js';
import type { HttpRoute } from '../../../shared/routes.js';
import { formText, jsonText, numberText, objectOf, type JsonTree } from './json-text.js';

/** What exists in the tables the requests run against, so that some requests reach past validation. */
export interface FuzzWorld {
  keys: {
    own: string;
    other: string;
    revoked: string;
    /** The merchant's key with the `read` scope alone: every other route refuses it (403). */
    readOnly: string;
    /** The merchant's key with every scope, allowed only from addresses the requests do not come from (403 everywhere). */
    fenced: string;
  };
  /** Ids of records of the merchant whose key is `own`, and of the other merchant. */
  ownIds: string[];
  otherIds: string[];
  /** Routes whose success is the JSON envelope (the OpenAPI document names its schema); others answer a document or a page. */
  answersEnvelopes: Record<string, boolean>;
  /** Bodies each route accepted, by route name: the seeds of near-valid bodies. */
  examples: Record<string, JsonTree[]>;
  /** JSON schema (OpenAPI 3.0) of each route's request body, by route name, with the components it refers to. */
  requestSchemas: Record<string, JsonSchema | undefined>;
  components: Record<string, JsonSchema>;
  /** Values a path parameter of this name takes where a record of the world is not what it names (a provider's id). */
  pathValues?: Record<string, string[]>;
  /** Headers that sign a body, by route name: a provider's signature on the routes providers call. */
  signs?: Record<string, (body: string) => Array<[string, string]>>;
}

export interface JsonSchema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  nullable?: boolean;
}

type BodyEncoding = 'identity' | 'gzip' | 'gzip-undeclared';

/** A request as generated: readable in a counterexample, turned into bytes by `wireRequest`. */
export interface FuzzRequest {
  method: string;
  /** Path and query string. */
  target: string;
  headers: Array<[string, string]>;
  body: { text: string; encoding: BodyEncoding } | { hex: string };
}

export interface WireRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Values the domain knows, so that generated fields sometimes hit a real code. */
const DOMAIN_WORDS = [
  ...Object.keys(CRYPTO_ASSETS),
  ...LOCAL_FIAT_CURRENCIES,
  ...REFERENCE_CURRENCIES,
  ...CRYPTO_NETWORKS,
  ...FIAT_METHODS,
  'crypto',
  'fixed',
  'confirmed',
  'failed',
  'processing',
  'deposit',
  'withdraw',
];

const TRICKY_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e999',
  '0x1F',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a lookup injection as a client would send it
  '${jndi:ldap://x}',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\u202e\u0644\u0627',
  '\ud800',
  '\udfff',
  '😀👩‍👩‍👧',
  'Ｆｕｌｌｗｉｄｔｈ',
  'İıſK',
  'javascript:alert(1)',
  'https://example.com/return',
  'http://127.0.0.1/x',
  'a@b.co',
  '123456789012',
  '0001234567890',
  '4111111111111111',
  'TR330006100519786457841326',
  '0000000000',
];

const uuid = fc.uuid();

export const trickyString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    // Lone surrogates and every other code unit.
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 3, arbitrary: fc.constantFrom(...TRICKY_STRINGS, ...DOMAIN_WORDS) },
    { weight: 1, arbitrary: uuid },
    { weight: 1, arbitrary: uuid.map((id) => id.toUpperCase()) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('x', 'é', '漢', '😀', '"', '\\', '\n'), fc.integer({ min: 200, max: 70_000 })).map(([unit, count]) => unit.repeat(count)),
    },
  );

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** Number text a JSON parser accepts, and some it does not. */
export const numberLiteral = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: -10, max: 100_000 }).map(String) },
    { weight: 2, arbitrary: fc.tuple(digits(1, 6), digits(1, 30)).map(([whole, fraction]) => `${whole}.${fraction}`) },
    { weight: 1, arbitrary: fc.tuple(digits(1, 30), digits(1, 30)).map(([whole, fraction]) => `${whole}.${fraction}`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('', '-'), digits(1, 4), fc.constantFrom('e', 'E', 'e+', 'e-'), fc.integer({ min: 0, max: 400 }))
        .map(([sign, mantissa, e, exponent]) => `${sign}${mantissa}${e}${exponent}`),
    },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)) },
    { weight: 1, arbitrary: fc.constantFrom('-0', '0', '0.0', '1e-7', '5e-324', '1.7976931348623157e309', `1${'0'.repeat(400)}`, '0.1e1') },
  );

const propertyKey = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'amount', 'invoiceId', 'id', 'status', 'merchantId', '') },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  );

/** Any JSON value, at most a few levels deep. */
export const anyJson = (): fc.Arbitrary<JsonTree> =>
  fc.letrec<{ value: JsonTree }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      trickyString(),
      numberLiteral().map(numberText),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(propertyKey(), tie('value')), { maxLength: 5 }).map(objectOf),
    ),
  })).value;

/** A body too deep for a recursive reader: arrays or objects nested thousands of levels. */
const deeplyNested = (): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean()).map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/** Text that is not JSON, or JSON cut short. */
const brokenJson = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('{', '{"amount":', '{"a":1,}', "{'a':1}", '{"a":01}', '{"a":NaN}', '{"a":Infinity}', '[1,2', 'null', 'true', '"text"', '42', '{"a":"\\ud800"}', '\ufeff{}', '{}garbage'),
    fc.string({ maxLength: 60 }),
  );

/** A body from the route's request schema, every field plausible: the part of the input space that reaches the domain. */
function fromSchema(schema: JsonSchema, world: FuzzWorld, name: string, depth: number): fc.Arbitrary<JsonTree> {
  if (schema.$ref) {
    const target = world.components[schema.$ref.replace('#/components/schemas/', '')];
    return target ? fromSchema(target, world, name, depth) : anyJson();
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => fromSchema(variant, world, name, depth)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as JsonTree[]));
  const ids = [...world.ownIds, ...world.otherIds];
  switch (schema.type) {
    case 'string': {
      const options: Array<fc.Arbitrary<string>> = [fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) }), fc.constantFrom(...DOMAIN_WORDS)];
      if (schema.pattern && schema.pattern.length < 40) options.push(fc.stringMatching(new RegExp(schema.pattern)));
      if (/id$/i.test(name) && ids.length > 0) options.push(fc.constantFrom(...ids), fc.constantFrom(...world.ownIds));
      return fc.oneof(...options);
    }
    case 'number':
    case 'integer':
      return numberLiteral().map(numberText);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(fromSchema(schema.items ?? {}, world, name, depth + 1), { maxLength: 3 });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (depth > 3 || properties.length === 0) return fc.constant(objectOf([]));
      const required = new Set(schema.required ?? []);
      return fc
        .tuple(...properties.map(([key, property]) => fc.tuple(fc.constant(key), fromSchema(property, world, key, depth + 1), required.has(key) ? fc.constant(true) : fc.boolean())))
        .map((fields) => objectOf(fields.filter(([, , present]) => present).map(([key, value]) => [key, value] as [string, JsonTree])));
    }
    default:
      return anyJson();
  }
}

/** One change that makes a near-valid body wrong in one way, or fresh (a new id), or leaves it as it is. */
const mutation = (): fc.Arbitrary<(tree: JsonTree) => JsonTree> =>
  fc.oneof(
    fc.constant((tree: JsonTree) => tree),
    fc.tuple(fc.nat(), uuid).map(
      ([at, id]) =>
        (tree: JsonTree) =>
          replaceEntry(tree, at, id),
    ),
    fc.tuple(fc.nat(), numberLiteral()).map(
      ([at, text]) =>
        (tree: JsonTree) =>
          replaceEntry(tree, at, numberText(text)),
    ),
    fc.tuple(fc.nat(), anyJson()).map(
      ([at, value]) =>
        (tree: JsonTree) =>
          replaceEntry(tree, at, value),
    ),
    fc.nat().map((at) => (tree: JsonTree) => dropEntry(tree, at)),
    fc.tuple(propertyKey(), anyJson()).map(
      ([key, value]) =>
        (tree: JsonTree) =>
          addEntry(tree, key, value),
    ),
    // The same key twice: the second value must not silently win.
    fc.tuple(fc.nat(), anyJson()).map(
      ([at, value]) =>
        (tree: JsonTree) =>
          duplicateEntry(tree, at, value),
    ),
    anyJson().map((value) => (tree: JsonTree) => addEntry(tree, '__proto__', value)),
    fc.constant((tree: JsonTree) =>
      addEntry(
        tree,
        '__proto__',
        objectOf([
          ['merchantId', 'someone-else'],
          ['status', 'completed'],
        ]),
      ),
    ),
  );

const entriesOf = (tree: JsonTree): Array<[string, JsonTree]> | undefined => (typeof tree === 'object' && tree !== null && !Array.isArray(tree) && tree.kind === 'object' ? tree.entries : undefined);

function replaceEntry(tree: JsonTree, at: number, value: JsonTree): JsonTree {
  const entries = entriesOf(tree);
  if (!entries || entries.length === 0) return tree;
  const index = at % entries.length;
  return objectOf(entries.map(([key, old], i) => [key, i === index ? value : old]));
}

function dropEntry(tree: JsonTree, at: number): JsonTree {
  const entries = entriesOf(tree);
  if (!entries || entries.length === 0) return tree;
  return objectOf(entries.filter((_, i) => i !== at % entries.length));
}

const addEntry = (tree: JsonTree, key: string, value: JsonTree): JsonTree => objectOf([...(entriesOf(tree) ?? []), [key, value]]);

function duplicateEntry(tree: JsonTree, at: number, value: JsonTree): JsonTree {
  const entries = entriesOf(tree);
  if (!entries || entries.length === 0) return tree;
  return addEntry(tree, entries[at % entries.length]![0], value);
}

/** A plain JSON value as a tree. */
export function treeOf(value: unknown): JsonTree {
  if (typeof value === 'number') return numberText(String(value));
  if (Array.isArray(value)) return value.map(treeOf);
  if (typeof value === 'object' && value !== null) return objectOf(Object.entries(value).map(([key, item]) => [key, treeOf(item)]));
  return value as string | boolean | null;
}

/** Bodies for a route: accepted ones and ones from its request schema, each changed once, then anything at all. */
function bodyTree(route: HttpRoute, world: FuzzWorld): fc.Arbitrary<JsonTree> {
  const schema = world.requestSchemas[route.name];
  const examples = world.examples[route.name] ?? [];
  const mutated = (base: fc.Arbitrary<JsonTree>) => fc.tuple(base, mutation()).map(([tree, mutate]) => mutate(tree));
  const bases: Array<fc.WeightedArbitrary<JsonTree>> = [{ weight: 2, arbitrary: anyJson() }];
  if (examples.length > 0) bases.push({ weight: 3, arbitrary: mutated(fc.constantFrom(...examples)) });
  if (schema) bases.push({ weight: 2, arbitrary: mutated(fromSchema(schema, world, 'body', 0)) });
  else bases.push({ weight: 1, arbitrary: fc.array(fc.tuple(propertyKey(), trickyString()), { maxLength: 6 }).map(objectOf) });
  return fc.oneof(...bases);
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/x-www-form-urlencoded',
  'text/plain',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/json; charset=latin1',
  ';;;',
  'application/',
];

type BodyChoice = { text: string; encoding: BodyEncoding } | { hex: string };

function body(route: HttpRoute, world: FuzzWorld): fc.Arbitrary<{ body: BodyChoice; contentType: string | undefined }> {
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/x-www-form-urlencoded') },
    { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }).map((text) => latin1Header(text)) },
  );
  const encoding = fc.oneof({ weight: 8, arbitrary: fc.constant<BodyEncoding>('identity') }, { weight: 1, arbitrary: fc.constantFrom<BodyEncoding>('gzip', 'gzip-undeclared') });
  const structured = fc.tuple(bodyTree(route, world), contentType, encoding).map(([tree, type, enc]) => ({
    body: { text: type === 'application/x-www-form-urlencoded' ? formText(tree) : jsonText(tree), encoding: enc } as BodyChoice,
    contentType: type,
  }));
  const raw = fc.tuple(fc.oneof(deeplyNested(), brokenJson(), fc.constant('')), contentType, encoding).map(([text, type, enc]) => ({
    body: { text, encoding: enc } as BodyChoice,
    contentType: type,
  }));
  // Bytes that are not UTF-8 at all.
  const binary = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), contentType).map(([bytes, type]) => ({
    body: { hex: Buffer.from(bytes).toString('hex') } as BodyChoice,
    contentType: type,
  }));
  return fc.oneof({ weight: 8, arbitrary: structured }, { weight: 3, arbitrary: raw }, { weight: 1, arbitrary: binary });
}

/** A header value as its UTF-8 bytes read as latin1: what a client puts on the wire for non-ASCII text. */
const latin1Header = (text: string): string =>
  Buffer.from(text.toWellFormed(), 'utf8')
    .toString('latin1')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters a header value cannot carry, tab aside
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '');

function apiKey(world: FuzzWorld): fc.Arbitrary<readonly string[]> {
  const base62 = fc.string({ unit: fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 32, maxLength: 32 });
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant([world.keys.own]) },
    { weight: 2, arbitrary: fc.constant([world.keys.other]) },
    { weight: 1, arbitrary: fc.constant([world.keys.revoked]) },
    { weight: 1, arbitrary: fc.constant([world.keys.readOnly]) },
    { weight: 1, arbitrary: fc.constant([world.keys.fenced]) },
    { weight: 1, arbitrary: base62.map((text) => [`gw_demo_${text}`]) },
    { weight: 1, arbitrary: base62.map((text) => [`gw_prod_${text}`]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }).map((text) => [latin1Header(text)]) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.constant([world.keys.own, world.keys.other]) },
    { weight: 1, arbitrary: fc.constant([` ${world.keys.own} `]) },
    { weight: 1, arbitrary: fc.constant([world.keys.own.toUpperCase()]) },
  );
}

/** Path parameters of every shape: real ids (own and another merchant's), near-misses, encodings, hostile text. */
function pathParameter(world: FuzzWorld): fc.Arbitrary<string> {
  const encoded = trickyString().map((text) => encodeURIComponent(text.toWellFormed()).slice(0, 4_000));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.ownIds) },
    { weight: 2, arbitrary: fc.constantFrom(...world.otherIds) },
    { weight: 2, arbitrary: uuid },
    { weight: 1, arbitrary: fc.constantFrom(...world.ownIds).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...world.ownIds).map((id) => `${id} `.replace(' ', '%20')) },
    { weight: 1, arbitrary: fc.constantFrom(...world.ownIds).map((id) => id.slice(0, -1)) },
    { weight: 3, arbitrary: encoded },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%2e%2e', '%2F', 'a%2Fb', '%00', '%C0%AF', '__proto__', 'constructor', '-1', '0', '1e9', 'null') },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 8_000 }).map((length) => 'a'.repeat(length)) },
  );
}

const queryString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant('') },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.tuple(propertyKey(), fc.oneof(trickyString(), numberLiteral())), { minLength: 1, maxLength: 5 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed().slice(0, 2_000))}`).join('&')}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?a', '?a=1&a=2', '?limit=-1', '?limit=1e3', '?cursor=%zz', '?__proto__[x]=1', '?lang=ur', '?lang=xx') },
  );

const headerName = fc.oneof(
  fc.constantFrom('accept-language', 'accept', 'x-forwarded-for', 'user-agent', 'cookie', 'origin', 'referer', 'idempotency-key', 'x-request-id', 'x-amzn-trace-id'),
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-0123456789'), minLength: 1, maxLength: 20 }).map((name) => `x-${name}`),
);

/** Extra headers, some long (past what servers take, 16 KiB in Node's default), some not ASCII. */
const extraHeaders = (): fc.Arbitrary<Array<[string, string]>> =>
  fc.array(
    fc.tuple(
      headerName,
      fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 60 }).map(latin1Header) }, { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 24_000 }).map((length) => 'h'.repeat(length)) }),
    ),
    { maxLength: 4 },
  );

const idempotencyKey = (): fc.Arbitrary<readonly string[]> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    { weight: 2, arbitrary: fc.constantFrom('fuzz-key-1', 'fuzz-key-2', 'fuzz-key-3').map((key) => [key]) },
    { weight: 1, arbitrary: fc.oneof(fc.constant(''), fc.constant('k'.repeat(256)), fc.string({ maxLength: 30 }).map(latin1Header)).map((key) => [key]) },
  );

/**
 * Requests as a merchant's client or a customer's browser sends them: the route's method, the
 * merchant's key, the body in the route's media type, an accepted body changed in at most one
 * way. Without these, nearly every request would be refused at the door.
 */
function wellFormedRequest(route: HttpRoute, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const schema = world.requestSchemas[route.name];
  const examples = world.examples[route.name] ?? [];
  const bases: Array<fc.Arbitrary<JsonTree>> = [];
  if (examples.length > 0) bases.push(fc.constantFrom(...examples));
  if (schema) bases.push(fromSchema(schema, world, 'body', 0));
  const json = schema !== undefined || route.method === 'GET';
  const tree = bases.length === 0 ? fc.constant(objectOf([])) : fc.oneof(...bases);
  const change = fc.oneof({ weight: 3, arbitrary: fc.constant((value: JsonTree) => value) }, { weight: 4, arbitrary: mutation() });
  return fc
    .record({
      parameters: fc.tuple(...[...route.path.matchAll(PATH_PARAMETER)].map(([, name]) => fc.oneof(fc.constantFrom(...(world.pathValues?.[name!] ?? world.ownIds)), pathParameter(world)))),
      tree: fc.tuple(tree, change).map(([value, mutate]) => mutate(value)),
      idempotency: idempotencyKey(),
      query: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString() }),
      // Mostly the merchant's own key; sometimes one beyond its reach, on a request that would otherwise pass.
      key: fc.oneof({ weight: 8, arbitrary: fc.constant(world.keys.own) }, { weight: 1, arbitrary: fc.constant(world.keys.readOnly) }, { weight: 1, arbitrary: fc.constant(world.keys.fenced) }),
    })
    .map(({ parameters, tree: value, idempotency, query, key }) => {
      let index = 0;
      const path = route.path.replace(PATH_PARAMETER, () => parameters[index++]!);
      const hasBody = route.method !== 'GET';
      const headers: Array<[string, string]> = [
        ['x-api-key', key],
        ...idempotency.map((idempotencyKey): [string, string] => ['idempotency-key', idempotencyKey]),
        ...(hasBody ? [['content-type', json ? 'application/json' : 'application/x-www-form-urlencoded'] as [string, string]] : []),
      ];
      const text = hasBody ? (json ? jsonText(value) : formText(value)) : '';
      headers.push(...(world.signs?.[route.name]?.(text) ?? []));
      return { method: route.method, target: `${path}${query}`, headers, body: { text, encoding: 'identity' as BodyEncoding } };
    });
}

/** A path parameter of a route's template: `{invoiceId}`, or a greedy `{page+}`. */
const PATH_PARAMETER = /\{(\w+)\+?\}/g;

/** Requests for `route`: well-formed ones, and hostile ones in every part (method, path, query, headers, body). */
export function requestFor(route: HttpRoute, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 2, arbitrary: wellFormedRequest(route, world) }, { weight: 3, arbitrary: hostileRequest(route, world) });
}

function hostileRequest(route: HttpRoute, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const parameterNames = [...route.path.matchAll(PATH_PARAMETER)].map((match) => match[1]!);
  return fc
    .record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant<string>(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      parameters: fc.tuple(...parameterNames.map(() => pathParameter(world))),
      trailingSlash: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      query: queryString(),
      keys: apiKey(world),
      idempotency: idempotencyKey(),
      withBody: route.method === 'GET' ? fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) : fc.constant(true),
      body: body(route, world),
      extra: extraHeaders(),
    })
    .map(({ method, parameters, trailingSlash, query, keys, idempotency, withBody, body: { body: payload, contentType }, extra }) => {
      let index = 0;
      const path = route.path.replace(PATH_PARAMETER, () => parameters[index++]!);
      const headers: Array<[string, string]> = [
        ...keys.map((key): [string, string] => ['x-api-key', key]),
        ...idempotency.map((key): [string, string] => ['idempotency-key', key]),
        ...(withBody && contentType !== undefined ? [['content-type', contentType] as [string, string]] : []),
        ...(withBody && 'text' in payload && payload.encoding === 'gzip' ? [['content-encoding', 'gzip'] as [string, string]] : []),
        ...extra,
      ];
      return { method, target: `${path}${trailingSlash ? '/' : ''}${query}`, headers, body: withBody ? payload : { text: '', encoding: 'identity' } };
    });
}

export function wireRequest(request: FuzzRequest): WireRequest {
  const { body } = request;
  const bytes = 'hex' in body ? Buffer.from(body.hex, 'hex') : body.encoding === 'identity' ? Buffer.from(body.text, 'utf8') : gzipSync(Buffer.from(body.text, 'utf8'));
  return { method: request.method, target: request.target, headers: request.headers, body: bytes };
}
