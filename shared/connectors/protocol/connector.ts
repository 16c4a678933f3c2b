/**
 * The provider protocol (docs/provider-protocol.md) as a `PaymentProvider`: signed JSON over
 * HTTP(S), 10 seconds per request, every answer checked against the protocol before it is used.
 * A provider that fails, times out or answers anything else is `ProviderUnavailable`: the caller
 * changes nothing and tries again with the same `webhook-id`.
 */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import {
  type CreatedPayment,
  type CreatePaymentRequest,
  type ForwardUtrRequest,
  type PaymentProvider,
  type PayoutRequest,
  type ProviderEvent,
  ProviderDoesNotRefund,
  type ProviderMessage,
  type ProviderRefundRequest,
  type ProviderStatusAnswer,
  ProviderUnavailable,
} from '../../domain/providers/index.js';
import { createdPaymentSchema, providerEventSchema, providerStatusSchema, requestedPayoutSchema, requestedRefundSchema, signMessage, verifiesMessage } from './messages.js';

/** docs/provider-protocol.md: a provider that does not answer within 10 seconds is tried again later. */
export const PROVIDER_TIMEOUT_MS = 10_000;
/** More than any answer of the protocol needs; a larger one is not read. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ProtocolProviderSettings {
  id: string;
  /** The provider's base URL, without a trailing slash. */
  url: string;
  /** Resolves the provider's secret; called on each request, so it caches what it reads. */
  secret: () => Promise<string>;
  timeoutMs?: number;
  clock?: () => Date;
}

/** A provider that answered a status outside 2xx: unavailable for now, unless the status says more (501 to a refund). */
class ProviderAnswered extends ProviderUnavailable {
  constructor(
    providerId: string,
    request: string,
    readonly status: number,
  ) {
    super(providerId, `${request} answered ${status}`);
  }
}

const describe = (error: unknown): string => (error instanceof Error ? (error.name === 'TimeoutError' ? 'no answer in time' : error.message) : String(error));

export class ProtocolProvider implements PaymentProvider {
  readonly id: string;

  constructor(private readonly settings: ProtocolProviderSettings) {
    this.id = settings.id;
  }

  createPayment(message: ProviderMessage<CreatePaymentRequest>): Promise<CreatedPayment> {
    return this.send('POST', '/payments', message, createdPaymentSchema);
  }

  async forwardUtr(providerReference: string, message: ProviderMessage<ForwardUtrRequest>): Promise<void> {
    await this.send('POST', `/payments/${encodeURIComponent(providerReference)}/utr`, message);
  }

  requestPayout(message: ProviderMessage<PayoutRequest>): Promise<{ providerReference: string }> {
    return this.send('POST', '/payouts', message, requestedPayoutSchema);
  }

  async requestRefund(message: ProviderMessage<ProviderRefundRequest>): Promise<{ providerReference: string }> {
    try {
      return await this.send('POST', '/refunds', message, requestedRefundSchema);
    } catch (error) {
      if (error instanceof ProviderAnswered && error.status === 501) throw new ProviderDoesNotRefund(this.id);
      throw error;
    }
  }

  paymentStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    return this.send('GET', `/payments/${encodeURIComponent(providerReference)}`, { webhookId: `status:${randomUUID()}` }, providerStatusSchema);
  }

  payoutStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    return this.send('GET', `/payouts/${encodeURIComponent(providerReference)}`, { webhookId: `status:${randomUUID()}` }, providerStatusSchema);
  }

  refundStatus(providerReference: string): Promise<ProviderStatusAnswer> {
    return this.send('GET', `/refunds/${encodeURIComponent(providerReference)}`, { webhookId: `status:${randomUUID()}` }, providerStatusSchema);
  }

  async readEvent(headers: Record<string, string>, body: string): Promise<{ event: ProviderEvent } | { refused: 'unauthorized' | 'malformed'; reason: string }> {
    if (!verifiesMessage(await this.settings.secret(), headers, body)) return { refused: 'unauthorized', reason: 'the signature does not verify' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { refused: 'malformed', reason: 'the body is not JSON' };
    }
    const event = providerEventSchema.safeParse(parsed);
    if (!event.success) return { refused: 'malformed', reason: event.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
    return { event: event.data };
  }

  private async send<Answer>(method: 'GET' | 'POST', path: string, message: { webhookId: string; body?: unknown }, answer?: z.ZodType<Answer>): Promise<Answer> {
    const { id, url, timeoutMs = PROVIDER_TIMEOUT_MS, clock = () => new Date() } = this.settings;
    const body = message.body === undefined ? '' : JSON.stringify(message.body);
    const signed = signMessage(await this.settings.secret(), message.webhookId, body, clock());
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { ...signed.headers, accept: 'application/json', 'user-agent': 'payment-gateway-providers' },
        body: method === 'POST' ? body : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw new ProviderUnavailable(id, `${method} ${path}: ${describe(error)}`);
    }
    if (status < 200 || status > 299) throw new ProviderAnswered(id, `${method} ${path}`, status);
    if (!answer) return undefined as Answer;
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new ProviderUnavailable(id, `${method} ${path} answered over ${MAX_ANSWER_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ProviderUnavailable(id, `${method} ${path} answered something that is not JSON`);
    }
    const parsed = answer.safeParse(json);
    if (!parsed.success) throw new ProviderUnavailable(id, `${method} ${path} answered outside the protocol: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }
}
