/** The OpenAPI description of the merchant's own routes: its settings and callback secret, with their examples (shared/routes/route-doc.ts). */
import { MAX_PREVIOUS_CALLBACK_SECRETS, merchantSettingsRequestSchema, merchantViewSchema, rotatedSecretSchema, type MerchantView, type RotatedSecret } from '../domain/merchants/index.js';
import type * as z from 'zod';
import { AUTH_ERRORS, BODY_ERRORS, type RouteDocs, EXAMPLE_IDS } from './route-doc.js';
import type { MERCHANTS_FUNCTIONS } from './merchants.js';

export const merchantExample: MerchantView = {
  merchantId: EXAMPLE_IDS.merchantId,
  name: 'Acme',
  callbackUrl: 'https://shop.example/callbacks',
  returnUrl: 'https://shop.example/thanks',
  frameAncestors: ['https://shop.example'],
  onchainDeposits: false,
  invoiceCallbacks: true,
  payoutApprovalAboveUsd: '5000.00',
  payoutAddressDelaySeconds: 86400,
};

export const merchantSettingsExample: z.input<typeof merchantSettingsRequestSchema> = {
  callbackUrl: 'https://shop.example/callbacks',
  frameAncestors: ['https://shop.example'],
  invoiceCallbacks: true,
  payoutApprovalAboveUsd: '5000.00',
};

export const rotatedSecretExample: RotatedSecret = {
  callbackSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Dc9zGBSUdQ=',
  previousSecretExpiresAt: '2025-06-02T11:00:00.000Z',
};

export const MERCHANTS_DOCS: RouteDocs<typeof MERCHANTS_FUNCTIONS> = {
  'get-merchant': {
    summary: "The merchant's settings",
    description:
      'The callback URL, the return URL, who may frame the checkout, whether on-chain deposits are credited, which crypto payouts wait ' +
      "for an owner's approval (`payoutApprovalAboveUsd`), and how long a new payout address waits before it is active " +
      "(`payoutAddressDelaySeconds`, set by the gateway's operator).",
    tag: 'Merchant',
    schemaName: 'GetMerchant',
    response: merchantViewSchema,
    responseExample: merchantExample,
    success: "The merchant's settings",
    errors: { ...AUTH_ERRORS },
  },
  'update-merchant': {
    summary: "Change the merchant's settings",
    description:
      'Changes the properties given, all or none: `callbackUrl` and `returnUrl` (absolute URLs, https in production, without ' +
      "control characters; null removes them; kept in the URL parser's form: host in punycode, path percent-encoded) and " +
      '`frameAncestors` (CSP frame-ancestors sources), `invoiceCallbacks`, and `payoutApprovalAboveUsd` (a decimal string of at ' +
      'most two places, kept with two; crypto payouts worth more USD than it wait for an owner to approve them in the dashboard; ' +
      'null: none waits). A `callbackUrl` whose host is or resolves to a loopback, private, link-local or other non-public address ' +
      "is a 422: deployed stages call back public addresses only. `payoutAddressDelaySeconds` is the operator's to set, and like " +
      'any other property is a 422 here.',
    tag: 'Merchant',
    schemaName: 'UpdateMerchant',
    request: merchantSettingsRequestSchema,
    requestExample: merchantSettingsExample,
    response: merchantViewSchema,
    responseExample: merchantExample,
    success: "The merchant's settings, changed",
    errors: {
      ...BODY_ERRORS,
      422:
        'A value is invalid (a URL that is not absolute, not https in production, or a callback URL at a non-public address; a source that is not a frame-ancestors source; ' +
        'a threshold that is not a positive decimal string of at most two places) or a property is not one of these: each error item names its `field`, and nothing is changed',
      ...AUTH_ERRORS,
    },
  },
  'rotate-callback-secret': {
    summary: 'Rotate the callback secret',
    description:
      'Answers a new `whsec_…` secret, once: it is not shown again. For 24 hours every callback also carries a signature with ' +
      "the secret it replaced in `webhook-signature`, space-separated after the new secret's, so a receiver verifies with either " +
      "while it switches; then only the new. The transactions' `hash` takes the new secret at once. Every secret answered signs " +
      'until its own 24 hours end: rotating again within them, or several rotations at once, keeps each replaced secret signing ' +
      `beside the newest, at most ${MAX_PREVIOUS_CALLBACK_SECRETS} of them. \`Idempotency-Key\` is not honoured here: a replay would need the secret ` +
      'kept in clear.',
    tag: 'Merchant',
    schemaName: 'RotateCallbackSecret',
    response: rotatedSecretSchema,
    responseExample: rotatedSecretExample,
    success: 'The new secret',
    errors: {
      409:
        `${MAX_PREVIOUS_CALLBACK_SECRETS} replaced secrets still sign within their overlap (the message says when the next rotation is possible), ` +
        'or other rotations kept being written while this one ran: this one changed nothing',
      ...AUTH_ERRORS,
    },
  },
};
