/**
 * The gateway's services over the in-memory ports, wired as functions/commons wires them over
 * DynamoDB: the demo stage, its demo provider and rate table, and a clock the test moves.
 */
import { CRYPTO_NETWORKS } from '../../../shared/domain/kernel/currencies.js';
import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import { BalanceService } from '../../../shared/domain/ledger/balance-service.js';
import type { BalanceReader } from '../../../shared/domain/ledger/balances.js';
import { FiatService } from '../../../shared/domain/payments/fiat-service.js';
import { InvoiceService } from '../../../shared/domain/invoicing/invoice-service.js';
import { createInvoiceRequestSchema, type CreateInvoiceRequest } from '../../../shared/domain/invoicing/invoice-requests.js';
import type { Invoice } from '../../../shared/domain/invoicing/invoice.js';
import { Decimal } from '../../../shared/domain/kernel/money.js';
import { ProviderRequests } from '../../../shared/domain/payments/provider-requests.js';
import { ProviderSettlement } from '../../../shared/domain/payments/provider-settlement.js';
import { demoProviderRoute } from '../../../shared/domain/providers/providers.js';
import { DEMO_USD_PRICES, StaticRateSource, type RateSource } from '../../../shared/domain/rates/rates.js';
import { TransactionService } from '../../../shared/domain/payments/transaction-service.js';
import { asRequestBody } from '../request-body.js';
import { MemoryBalanceStore } from './balances.js';
import { MemoryCallbackQueue } from './callback-queue.js';
import { MemoryDailyTotals } from './daily-totals.js';
import { InvoiceExpiry } from '../../../shared/domain/invoicing/invoice-expiry.js';
import { MemoryInvoiceStore } from './invoice-store.js';
import { MemoryLedger } from './ledger.js';
import { MemoryMerchants } from './merchants.js';
import { MemoryPaymentProvider, memoryProviderRegistry } from './payment-provider.js';
import { MemoryReceiptStore } from './receipts.js';
import { MemoryVault } from './vault.js';
import { MemoryWallets } from './wallets.js';

export const PUBLIC_BASE_URL = 'https://pay.example';
export const INVOICE_LIFETIME_SECONDS = 900;

/** A creation request as the route's schema reads it, for an order and a customer of its own unless `fields` name them. */
export const invoiceRequest = (fields: Record<string, unknown>): CreateInvoiceRequest =>
  createInvoiceRequestSchema.parse(asRequestBody({ orderId: `order-${randomUUID()}`, customerId: `customer-${randomUUID()}`, ...fields }));

export function memoryGateway(options: { rates?: RateSource } = {}) {
  let now = new Date('2026-06-01T12:00:00.000Z');
  const clock = () => now;
  const totals = new MemoryDailyTotals();
  const invoices = new MemoryInvoiceStore(totals);
  const balances = new MemoryBalanceStore();
  const ledger = new MemoryLedger(invoices, balances, totals);
  const wallets = new MemoryWallets();
  const merchants = new MemoryMerchants();
  const callbacks = new MemoryCallbackQueue();
  const receipts = new MemoryReceiptStore();
  const vault = new MemoryVault();
  const provider = new MemoryPaymentProvider(demoProviderRoute());
  const registry = memoryProviderRegistry(provider);
  const rates = options.rates ?? new StaticRateSource(DEMO_USD_PRICES);
  const metrics = { invoiceCreated: vi.fn(), depositSettled: vi.fn() };
  const log = { warn: vi.fn() };

  const requests = new ProviderRequests({ registry, invoices, transactions: ledger, publicBaseUrl: PUBLIC_BASE_URL, clock });
  const policy = { stage: 'demo' as const, lifetimeSeconds: INVOICE_LIFETIME_SECONDS, providers: registry.routes, networks: CRYPTO_NETWORKS };
  const invoiceService = new InvoiceService({ invoices, wallets, rates, policy, publicBaseUrl: PUBLIC_BASE_URL, metrics, providerPayments: requests, log, clock, newId: randomUUID });
  /** The money services as one process has them: postings made through one balance reader take turns (shared/domain/ledger/balances.ts). */
  const moneyServices = (reader: BalanceReader) => {
    const transactionService = new TransactionService({ ledger, balances: reader, invoices, merchants, callbacks, rates, metrics, clock, newId: randomUUID, publicBaseUrl: PUBLIC_BASE_URL });
    const fiatService = new FiatService({ transactions: transactionService, ledger, balances: reader, merchants, receipts, vault, providers: registry, requests, rates, log, clock, newId: randomUUID });
    return { transactionService, fiatService };
  };
  const { transactionService, fiatService } = moneyServices(balances);
  const balanceService = new BalanceService({ balances, merchants, clock, newId: randomUUID });
  const settlement = new ProviderSettlement({ registry, transactions: transactionService, ledger, invoices, log, clock });

  return {
    clock,
    invoices,
    ledger,
    balances,
    totals,
    wallets,
    merchants,
    callbacks,
    receipts,
    vault,
    provider,
    metrics,
    log,
    invoiceService,
    transactionService,
    fiatService,
    requests,
    settlement,
    balanceService,
    /** The same services in another process, over the same stores: only the write conditions decide between the two. */
    anotherProcess: () => moneyServices({ get: (merchantId, currency) => balances.get(merchantId, currency) }),
    /** Money for a merchant's withdrawals: an operator's adjustment, with no transaction or callback. */
    async fund(merchantId: string, currency: string, amount: string): Promise<void> {
      await balanceService.adjust(merchantId, { currency, amount: new Decimal(amount), reason: 'Funds for the test' });
    },
    /** An invoice the merchant asked for, as stored. */
    async createInvoice(merchantId: string, fields: Record<string, unknown>): Promise<Invoice> {
      const { id } = await invoiceService.create(merchantId, invoiceRequest(fields));
      return (await invoices.get(id))!;
    },
    /** Lets time pass. */
    advance(seconds: number): void {
      now = new Date(now.getTime() + seconds * 1000);
    },
    /** One run of the expiry schedule (functions/expire-invoices.ts): every due invoice canceled as expired, announced where the merchant takes invoice events. */
    async sweep(): Promise<void> {
      await new InvoiceExpiry({ invoices, merchants, callbacks, publicBaseUrl: PUBLIC_BASE_URL }).sweep(now);
    },
  };
}

export type MemoryGateway = ReturnType<typeof memoryGateway>;

/** The error a service call was refused with; a call that succeeds fails the test. */
export async function refusal(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => expect.fail('the call was accepted'),
    (error: Error) => error,
  );
}
