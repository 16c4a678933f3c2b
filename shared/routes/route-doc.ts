/**
 * What a route's OpenAPI description is made of (shared/openapi.ts builds the document from these):
 * each capability describes its routes in shared/routes/<capability>.docs.ts, with an example of
 * every request and answer written as a merchant's client sends and receives them.
 */
import type * as z from 'zod';
import { PER_KEY_THROTTLE } from '../platform.js';
import type { GatewayFunction } from './function-definition.js';

export const TAGS = {
  Invoices: 'Invoices and their hosted checkout',
  Transactions: 'Money that moved: deposits, withdrawals and refunds',
  Callbacks: 'The callbacks a merchant receives: their delivery log, resending, a test',
  Merchant: "The merchant's own settings and callback secret",
  Deposits: 'Host-to-host deposit confirmation',
  Withdrawals: 'Payouts',
  Refunds: 'Money of a confirmed deposit given back to the customer',
  Balances: "The merchant's money per currency, and the entries that moved it",
  Reports: "CSV files of the merchant's transactions or balance entries, built off the request path",
  Simulation: 'Demo only: moving money without a chain or a bank',
  Providers: 'Their decisions on the payments, payouts and refunds the gateway asked of them (the provider protocol, docs/provider-protocol.md)',
} as const;

export type Tag = keyof typeof TAGS;

export interface RouteDoc {
  summary: string;
  description: string;
  tag: Tag;
  /** Component name of the request and response schemas: `{schemaName}Request`, `{schemaName}Response`. */
  schemaName?: string;
  request?: z.ZodType;
  requestExample?: unknown;
  /** Query parameters: a strict object of optional parameters. */
  query?: z.ZodObject;
  /** Schema of `data` in the success envelope; absent for routes that do not answer JSON envelopes. */
  response?: z.ZodType;
  /** `data` of the success envelope, or the whole body of a route that answers no envelope. */
  responseExample: unknown;
  /** What the success answer holds. */
  success: string;
  successStatus?: 200 | 202;
  /** Content type of a non-envelope success response. */
  produces?: string;
  /** Each error status the route answers, with what it means there. */
  errors: Partial<Record<number, string>>;
  /** The record a 404 is about, for its example. */
  notFound?: 'Invoice' | 'Transaction' | 'Report';
  /** Query parameters as a client sends them, one example value each. */
  queryExample?: Record<string, string | number>;
  /** The operation leads to callbacks to the merchant's callback URL. */
  callbacks?: boolean;
  /** The operation may lead to invoice events, for a merchant that turned them on. */
  invoiceEvents?: boolean;
}

/** A route outside the API (the customer-facing checkout, the dashboard's pages, the documents themselves): left out of the documents. */
export interface HiddenRoute {
  hidden: true;
}

export const HIDDEN: HiddenRoute = { hidden: true };

/** Routes of pages for people, not the merchant API: the hosted checkout's and the dashboard's (docs/merchant-guide.md#the-hosted-checkout). */
export const hiddenRoutes = <Functions extends readonly GatewayFunction[]>(functions: Functions): RouteDocs<Functions> =>
  Object.fromEntries(functions.flatMap((fn) => (fn.kind === 'http' ? [[fn.name, HIDDEN]] : []))) as RouteDocs<Functions>;

export const isDocumented = (doc: RouteDoc | HiddenRoute): doc is RouteDoc => !('hidden' in doc);

/** A capability's descriptions: one for each of its HTTP routes, or a compile error. */
export type RouteDocs<Functions extends readonly GatewayFunction[]> = Record<Extract<Functions[number], { kind: 'http' }>['name'], RouteDoc | HiddenRoute>;

export const AUTH_ERRORS = {
  401: 'The `x-api-key` header is missing, or names an unknown or revoked key',
  429: `More than ${PER_KEY_THROTTLE.ratePerSecond} requests per second with this key (bursts of ${PER_KEY_THROTTLE.burst}); retry after \`Retry-After\` seconds`,
  500: 'Something failed on our side; the message carries the request id to quote to support',
};
export const BODY_ERRORS = {
  400: 'The body is not a JSON object (malformed, a property given twice, or nested too deeply)',
  413: "The body is over this route's limit (see the request body)",
  415: 'The `Content-Type` is not `application/json`',
  422: 'A field is missing, of the wrong type or invalid: each error item names its `field`',
};
export const IDEMPOTENCY_CONFLICT = 'The `Idempotency-Key` was used with another body, or its first request is still running';
export const QUERY_ERRORS = { 422: 'A filter, `limit` or `cursor` is invalid: each error item names its `field`' };
export const NO_CALLBACK_URL = 'The merchant has no callback URL (set one with PATCH /api/v2/merchant)';

/** A component schema of the document, referred to where it appears. */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The records the examples are about, the same in every capability's examples. */
export const EXAMPLE_IDS = {
  invoiceId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0a7b8d13',
  transactionId: '8b2d4e6f-1a3c-4d5e-8f70-9a1b2c3d4e5f',
  withdrawalId: 'c7e8f9a0-b1c2-4d3e-8f4a-5b6c7d8e9f01',
  payoutId: '9d0e1f2a-3b4c-4d5e-9f6a-7b8c9d0e1f2a',
  refundId: '1e2f3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b',
  merchantId: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
  reportId: 'e4a1b2c3-d5e6-4f7a-8b9c-0d1e2f3a4b5c',
} as const;

export const EXAMPLE_CURSOR = 'eyJ0YWJsZSI6Imludm9pY2VzIiwiaW5kZXgiOiJieU1lcmNoYW50In0';

/** The filters every list takes, as a client sends them. */
export const PAGE_QUERY_EXAMPLE = { createdFrom: '2025-06-01T00:00:00Z', createdTo: '2025-06-30T23:59:59Z', limit: 20, cursor: EXAMPLE_CURSOR };
