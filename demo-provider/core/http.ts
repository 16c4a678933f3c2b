/**
 * The demo provider's HTTP interface, one function from request to response for every runtime
 * (the Lambda entry point and the local server): the provider protocol's routes
 * (docs/provider-protocol.md), signed, answering JSON, and the customer's payment page.
 */
import { chooseLanguage } from '../../shared/checkout/language.js';
import { Invalid } from '../../shared/domain/kernel/index.js';
import { UNAUTHORIZED_MESSAGE, type ErrorItem } from '../../shared/errors.js';
import { errorResponse, JSON_CONTENT_TYPE } from '../../shared/http/envelope.js';
import { apiErrorOf } from '../../shared/http/errors.js';
import { parseOrThrow } from '../../shared/http/validation.js';
import { createPaymentRequestSchema, forwardUtrRequestSchema, payoutRequestSchema, refundRequestSchema } from '../../shared/connectors/protocol/messages.js';
import { notFoundPage, paymentPage } from './page.js';
import type { DemoLog } from './ports.js';
import type { DemoProvider } from './service.js';

export interface DemoRequest {
  method: string;
  /** The path below the provider's base URL and the query string: `/pay/pay_1a2b?lang=tr`. */
  target: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Exactly as received: the signature covers these bytes. */
  body: string;
}

export interface DemoResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type DemoRequestHandler = (request: DemoRequest) => Promise<DemoResponse>;

interface RouteInput {
  request: DemoRequest;
  url: URL;
  /** The provider reference in the path, when the route has one. */
  reference: string;
}

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** A request of the protocol: refused with 401 unless the shared secret signs it, before anything is read. */
  signed: boolean;
  handle(input: RouteInput): Promise<DemoResponse>;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): DemoResponse => ({
  status,
  headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', ...headers },
  body: JSON.stringify(body),
});

const errorOf = (status: number, items: ErrorItem[], headers: Record<string, string> = {}): DemoResponse => {
  const { statusCode, headers: envelopeHeaders, body } = errorResponse(status, items, headers);
  return { status: statusCode, headers: { ...(envelopeHeaders as Record<string, string>), 'cache-control': 'no-store' }, body };
};

function jsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw Invalid.of('', 'The body must be JSON');
  }
}

/** A provider reference in a path: what the protocol allows, one segment. */
const REFERENCE = '([A-Za-z0-9._:-]{1,128})';
const path = (pattern: string) => new RegExp(`^${pattern.replace('{ref}', REFERENCE)}$`);

const OUTCOMES = ['confirmed', 'failed'] as const;
const isOutcome = (value: string | null): value is (typeof OUTCOMES)[number] => (OUTCOMES as readonly (string | null)[]).includes(value);

function routes(provider: DemoProvider): Route[] {
  const languageOf = (request: DemoRequest, named: string | null) => chooseLanguage(named ?? undefined, request.headers['accept-language']);
  return [
    {
      method: 'POST',
      pattern: path('/payments'),
      signed: true,
      handle: async ({ request }) => json(201, await provider.createPayment(parseOrThrow(createPaymentRequestSchema, jsonBody(request.body)))),
    },
    {
      method: 'GET',
      pattern: path('/payments/{ref}'),
      signed: true,
      handle: async ({ reference }) => json(200, await provider.paymentStatus(reference)),
    },
    {
      method: 'POST',
      pattern: path('/payments/{ref}/utr'),
      signed: true,
      handle: async ({ request, reference }) => {
        await provider.submitUtr(reference, parseOrThrow(forwardUtrRequestSchema, jsonBody(request.body)).utr);
        return json(202, {});
      },
    },
    {
      method: 'POST',
      pattern: path('/payouts'),
      signed: true,
      handle: async ({ request }) => json(202, await provider.requestPayout(parseOrThrow(payoutRequestSchema, jsonBody(request.body)))),
    },
    {
      method: 'GET',
      pattern: path('/payouts/{ref}'),
      signed: true,
      handle: async ({ reference }) => json(200, await provider.payoutStatus(reference)),
    },
    {
      method: 'POST',
      pattern: path('/refunds'),
      signed: true,
      handle: async ({ request }) => json(202, await provider.requestRefund(parseOrThrow(refundRequestSchema, jsonBody(request.body)))),
    },
    {
      method: 'GET',
      pattern: path('/refunds/{ref}'),
      signed: true,
      handle: async ({ reference }) => json(200, await provider.refundStatus(reference)),
    },
    {
      method: 'GET',
      pattern: path('/pay/{ref}'),
      signed: false,
      handle: async ({ request, url, reference }) => {
        const language = languageOf(request, url.searchParams.get('lang'));
        const payment = await provider.pagePayment(reference);
        return payment ? paymentPage(payment, language) : notFoundPage(language);
      },
    },
    {
      method: 'POST',
      pattern: path('/pay/{ref}'),
      signed: false,
      handle: async ({ request, url, reference }) => {
        const form = new URLSearchParams(request.body);
        const language = languageOf(request, form.get('lang') ?? url.searchParams.get('lang'));
        const outcome = form.get('outcome');
        if (!isOutcome(outcome)) {
          const payment = await provider.pagePayment(reference);
          return payment ? paymentPage(payment, language, 422) : notFoundPage(language);
        }
        const payment = await provider.choose(reference, outcome);
        // Back to this page, which shows the outcome and goes on to the gateway's return URL by
        // itself: a form's redirect to another origin would have to be admitted by the page's
        // form-action, for every redirect after it too (the gateway's own, on to the shop).
        // Relative, as the form's action is: it resolves to the page on whichever host the customer reached.
        const page = `?${new URLSearchParams({ lang: language.language })}`;
        return payment ? { status: 303, headers: { location: page, 'cache-control': 'no-store' }, body: '' } : notFoundPage(language);
      },
    },
  ];
}

export function demoRequestHandler(provider: DemoProvider, log: DemoLog): DemoRequestHandler {
  const table = routes(provider);
  return async (request) => {
    // Any origin will do: only the path and the query are read.
    const url = new URL(request.target, 'http://demo-provider.invalid');
    const matching = table.flatMap((route) => {
      const match = route.pattern.exec(url.pathname);
      return match ? [{ route, reference: match[1] ?? '' }] : [];
    });
    const found = matching.find(({ route }) => route.method === request.method);
    if (!found) {
      if (matching.length === 0) return errorOf(404, [{ code: 'not_found', message: 'Route not found' }]);
      return errorOf(405, [{ code: 'method_not_allowed', message: 'Method not allowed' }], { allow: matching.map(({ route }) => route.method).join(', ') });
    }
    if (found.route.signed && !provider.isSigned(request.headers, request.body)) return errorOf(401, [{ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE }]);
    try {
      return await found.route.handle({ request, url, reference: found.reference });
    } catch (error) {
      const refusal = apiErrorOf(error);
      if (refusal) return errorOf(refusal.status, refusal.items);
      log.error('Request failed', { method: request.method, path: url.pathname }, error);
      return errorOf(500, [{ code: 'internal_server_error', message: 'Internal server error' }]);
    }
  };
}
