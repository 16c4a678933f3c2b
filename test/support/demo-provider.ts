/**
 * The demo provider's core over in-memory ports: a store in a map, a scheduler that holds jobs
 * until the test lets time pass, a clock the test moves, and a gateway that records each event
 * and answers as the test says. Requests go through the same HTTP handler as in AWS and locally.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DeliveryResult } from '../../shared/domain/callbacks/callbacks.js';
import { signMessage } from '../../shared/connectors/protocol/messages.js';
import type { CreatePaymentRequest, PayoutRequest } from '../../shared/domain/providers/provider-port.js';
import { demoRequestHandler, type DemoRequest, type DemoResponse } from '../../demo-provider/core/http.js';
import type { DemoLog, DemoStore, Job, LogDetails, Scheduler } from '../../demo-provider/core/ports.js';
import type { DemoRecord, Outcome, PaymentRecord, RefundOutcome } from '../../demo-provider/core/records.js';
import { DemoProvider } from '../../demo-provider/core/service.js';

export const newProviderSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export class MemoryStore implements DemoStore {
  readonly records = new Map<string, DemoRecord>();

  async get(providerReference: string): Promise<DemoRecord | undefined> {
    const record = this.records.get(providerReference);
    return record && structuredClone(record);
  }

  async addOnce(record: DemoRecord): Promise<{ stored: DemoRecord; added: boolean }> {
    const existing = this.records.get(record.providerReference);
    if (existing) return { stored: structuredClone(existing), added: false };
    this.records.set(record.providerReference, structuredClone(record));
    return { stored: record, added: true };
  }

  async setUtrOnce(providerReference: string, utr: string, decidesAt: string): Promise<PaymentRecord> {
    const payment = this.payment(providerReference);
    if (payment.utr === undefined) Object.assign(payment, { utr, utrDecidesAt: decidesAt });
    return structuredClone(payment);
  }

  async recordOutcomeOnce(providerReference: string, outcome: Outcome): Promise<boolean> {
    const payment = this.payment(providerReference);
    if (payment.outcome) return false;
    payment.outcome = structuredClone(outcome);
    return true;
  }

  async countRefundOnce(paymentReference: string, refundReference: string, refundedAmount: string, counted: string | undefined): Promise<boolean> {
    const payment = this.payment(paymentReference);
    if (payment.refundReferences?.includes(refundReference) || payment.refundedAmount !== counted) return false;
    Object.assign(payment, { refundedAmount, refundReferences: [...(payment.refundReferences ?? []), refundReference] });
    return true;
  }

  async recordRefundOutcomeOnce(providerReference: string, outcome: RefundOutcome): Promise<boolean> {
    const refund = this.records.get(providerReference);
    if (refund?.kind !== 'refund') throw new Error(`No refund ${providerReference}`);
    if (refund.outcome) return false;
    refund.outcome = structuredClone(outcome);
    return true;
  }

  private payment(providerReference: string): PaymentRecord {
    const record = this.records.get(providerReference);
    if (record?.kind !== 'payment') throw new Error(`No payment ${providerReference}`);
    return record;
  }
}

export class FakeClock {
  private now: number;
  constructor(start = new Date()) {
    this.now = start.getTime();
  }
  readonly read = (): Date => new Date(this.now);
  advance(seconds: number): void {
    this.now += seconds * 1000;
  }
}

/** Holds jobs until `runDue`, which runs those due by the fake clock, in time order. */
export class HeldScheduler implements Scheduler {
  readonly held: Array<{ job: Job; at: Date }> = [];
  constructor(private readonly clock: FakeClock) {}

  async schedule(job: Job, at: Date): Promise<void> {
    this.held.push({ job, at });
  }

  /** Runs every job due now, those it schedules included when due too. */
  async runDue(run: (job: Job) => Promise<void>): Promise<number> {
    let ran = 0;
    for (;;) {
      const due = this.held.filter(({ at }) => at.getTime() <= this.clock.read().getTime()).sort((a, b) => a.at.getTime() - b.at.getTime())[0];
      if (!due) return ran;
      this.held.splice(this.held.indexOf(due), 1);
      await run(due.job);
      ran++;
    }
  }
}

export interface SentEvent {
  url: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** What the gateway answered; null for no answer. */
  status: number | null;
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  details?: LogDetails;
}

export interface CoreHarness {
  secret: string;
  clock: FakeClock;
  store: MemoryStore;
  scheduler: HeldScheduler;
  provider: DemoProvider;
  /** Every event posted, in order. */
  events: SentEvent[];
  /** The gateway's answer to each event; 200 unless replaced. */
  answer: (event: Omit<SentEvent, 'status'>) => number | null;
  log: LogLine[];
  /** A request through the HTTP handler, as the runtimes pass it. */
  send(request: DemoRequest): Promise<DemoResponse>;
  /** A request of the protocol, signed with the secret now (by the real clock, as the verifier reads it). */
  signed(method: 'GET' | 'POST', target: string, body?: unknown, options?: { at?: Date; secret?: string; id?: string }): Promise<DemoResponse>;
  /** Runs the jobs due by the fake clock. */
  runDue(): Promise<number>;
}

export const PUBLIC_URL = 'https://demo.example/demo-provider';

export function coreHarness(options: { utrDecisionDelaySeconds?: number } = {}): CoreHarness {
  const secret = newProviderSecret();
  const clock = new FakeClock();
  const store = new MemoryStore();
  const scheduler = new HeldScheduler(clock);
  const logLines: LogLine[] = [];
  const log: DemoLog = {
    info: (message, details) => logLines.push({ level: 'info', message, details }),
    warn: (message, details) => logLines.push({ level: 'warn', message, details }),
    error: (message, details) => logLines.push({ level: 'error', message, details }),
  };
  const deliver = async (url: string, callback: { headers: Record<string, string>; body: string }): Promise<DeliveryResult> => {
    const sent = { url, headers: callback.headers, body: callback.body, json: JSON.parse(callback.body) };
    const status = harness.answer(sent);
    harness.events.push({ ...sent, status });
    return status === null ? { status, latencyMs: 1, error: 'connection refused' } : { status, latencyMs: 1 };
  };
  const provider = new DemoProvider({
    secret,
    publicUrl: PUBLIC_URL,
    utrDecisionDelaySeconds: options.utrDecisionDelaySeconds ?? 2,
    store,
    scheduler,
    deliver,
    clock: clock.read,
    log,
  });
  const handle = demoRequestHandler(provider, log);
  const harness: CoreHarness = {
    secret,
    clock,
    store,
    scheduler,
    provider,
    events: [],
    answer: () => 200,
    log: logLines,
    send: (request) => handle(request),
    signed: (method, target, body, { at = new Date(), secret: signingSecret = secret, id = randomUUID() } = {}) => {
      const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const { headers } = signMessage(signingSecret, id, text, at);
      return handle({ method, target, headers, body: text });
    },
    runDue: () => scheduler.runDue((job) => provider.run(job)),
  };
  return harness;
}

export function paymentRequest(fields: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest {
  return {
    reference: randomUUID(),
    amount: '1500.00',
    currency: 'TRY',
    method: 'wallet',
    customer: { id: 'cust-42', fullName: null, firstName: 'Ayşe', lastName: 'Yılmaz', email: 'ayse@example.com', phone: null, account: null, country: 'TR' },
    returnUrl: 'https://pay.gateway.example/checkout/0b7f6f1e-3c39-4f7c-9d0b-2a6c0f5e9a11/provider',
    notifyUrl: 'https://pay.gateway.example/api/v2/providers/demo/events',
    ...fields,
  };
}

export function payoutRequest(fields: Partial<PayoutRequest> = {}): PayoutRequest {
  return {
    reference: randomUUID(),
    amount: '2500.00',
    currency: 'TRY',
    recipient: { variant: 'card', cardNumber: '4111111111111111', cardHolderName: 'Ada Lovelace' },
    notifyUrl: 'https://pay.gateway.example/api/v2/providers/demo/events',
    ...fields,
  };
}
