/**
 * Creating and reading invoices (docs/merchant-guide.md "Invoices") through the invoice service
 * over in-memory ports. What only DynamoDB shows (the orderId claim's transaction, the indexes
 * that list and expire invoices) is tested in test/integration/invoices.test.ts and listings.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Conflict, Invalid, NotFound, Unavailable } from '../../shared/domain/kernel/errors.js';
import { PAYMENT_AT_CREATION_MS } from '../../shared/domain/invoicing/invoice-service.js';
import { DEMO_USD_PRICES, StaticRateSource, type RateSource } from '../../shared/domain/rates/rates.js';
import { INVOICE_LIFETIME_SECONDS, invoiceRequest, memoryGateway, type MemoryGateway, PUBLIC_BASE_URL, refusal } from '../support/memory/gateway.js';

const VALID_IBAN = 'TR330006100519786457841326';
/** Every detail TRY `iban` needs to skip the checkout. */
const IBAN_DETAILS = { customerFullName: 'Ayşe Yılmaz', customerEmail: 'ayse@example.com', customerAccount: VALID_IBAN };

let gateway: MemoryGateway;
let merchantId: string;

function setup(options: { rates?: RateSource } = {}) {
  gateway = memoryGateway(options);
  merchantId = gateway.merchants.add().id;
}

/** Every invoice the merchant has, newest first. */
const storedInvoices = async (merchant = merchantId) => (await gateway.invoices.list(merchant, { filters: {}, limit: 100 })).items;

describe('creating an invoice', () => {
  it("of crypto: the rate fixed, the customer's address on each network of the asset, open for its lifetime, nothing paid", async () => {
    setup();
    const request = invoiceRequest({ baseCurrency: 'USDT', amount: 25, applicationId: 'app-1' });
    const invoice = await gateway.invoiceService.create(merchantId, request);

    expect(invoice).toMatchObject({
      link: `${PUBLIC_BASE_URL}/checkout/${invoice.id}`,
      status: 'created',
      amount: '25.000000',
      paymentCurrency: 'USDT',
      paymentAmount: '25.000000',
      exchangeRate: '1',
      paidAmount: '0.000000',
      paymentStatus: 'unpaid',
      transactionIds: [],
      completedAt: null,
      paymentMethod: 'crypto',
      directOpen: false,
      customerId: request.customerId,
      orderId: request.orderId,
      applicationId: 'app-1',
      createdAt: gateway.clock().toISOString(),
    });
    expect(Date.parse(invoice.expiresAt) - Date.parse(invoice.createdAt)).toBe(INVOICE_LIFETIME_SECONDS * 1000);
    const { address, networks, addresses } = invoice.wallet!;
    expect(networks).toEqual(['ethereum', 'bsc', 'tron']);
    expect(addresses.map((entry) => entry.network)).toEqual(networks);
    expect(addresses[0]!.address).toBe(address);
    expect(addresses[1]!.address).toBe(address);
    expect(addresses[2]!.address).toMatch(/^T/);
    expect(gateway.metrics.invoiceCreated).toHaveBeenCalledExactlyOnceWith('crypto');
  });

  it('in another currency than its base converts at the rate of the moment, and keeps it', async () => {
    setup();
    const invoice = await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'USD', paymentCurrency: 'TRY', amount: 45 }));
    expect(invoice).toMatchObject({ amount: '45.00', exchangeRate: '33.333333333333333333', paymentAmount: '1500.00', paymentMethod: 'iban' });
    expect(invoice.wallet).toBeUndefined();
    expect(await gateway.invoices.get(invoice.id)).toMatchObject({ family: 'fiat', exchangeRate: invoice.exchangeRate, paymentAmount: '1500.00' });
  });

  it('gives a customer one permanent address across invoices and assets, and each customer their own', async () => {
    setup();
    const create = (customerId: string, baseCurrency: string, amount: number) => gateway.invoiceService.create(merchantId, invoiceRequest({ customerId, baseCurrency, amount }));
    const [usdt, eth, another] = [await create('alice', 'USDT', 25), await create('alice', 'ETH', 1), await create('bob', 'USDT', 25)];
    expect(eth.wallet!.address).toBe(usdt.wallet!.address);
    expect(another.wallet!.address).not.toBe(usdt.wallet!.address);
    expect(gateway.wallets.allocated).toBe(2);
  });

  it('answers unavailable while a rate it needs is stale, storing nothing', async () => {
    const table = new StaticRateSource(DEMO_USD_PRICES);
    setup({ rates: { current: async () => ({ ...(await table.current()), stale: new Set(['ETH']) }) } });
    const error = await refusal(gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'USD', paymentCurrency: 'ETH', amount: 100 })));
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Error).message).toBe('No current exchange rate for ETH; try again shortly');
    expect(await storedInvoices()).toEqual([]);
    expect(gateway.wallets.allocated).toBe(0);
  });
});

describe('payment limits', () => {
  it.each([
    [{ baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 999 }, 'amount must be at least 1000.00 TRY for method wallet'],
    [{ baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1025 }, 'amount must be a multiple of 50 TRY for method wallet'],
    [{ baseCurrency: 'AZN', amount: 5000.01 }, 'amount must be at most 5000.00 AZN for method p2p'],
    [{ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 4.99 }, 'amount must be at least 5.000000 USDT'],
  ])('refuse %o: "%s", storing nothing and using up no address', async (fields, message) => {
    setup();
    const error = await refusal(gateway.invoiceService.create(merchantId, invoiceRequest(fields)));
    expect(error).toBeInstanceOf(Invalid);
    expect((error as Invalid).problems).toEqual([{ field: 'amount', message }]);
    expect(await storedInvoices()).toEqual([]);
    expect(gateway.wallets.allocated).toBe(0);
  });
});

describe('orderId', () => {
  it('answers the same request again with the invoice made the first time, creating nothing', async () => {
    setup();
    const request = invoiceRequest({ baseCurrency: 'USDT', amount: 25 });
    const first = await gateway.invoiceService.create(merchantId, request);
    gateway.advance(60);
    expect(await gateway.invoiceService.create(merchantId, request)).toEqual(first);
    expect(await storedInvoices()).toHaveLength(1);
    expect(gateway.metrics.invoiceCreated).toHaveBeenCalledOnce();
  });

  it("refuses another request with a taken orderId as a conflict, without using up a new customer's address", async () => {
    setup();
    const first = invoiceRequest({ baseCurrency: 'USDT', amount: 25 });
    await gateway.invoiceService.create(merchantId, first);
    for (const other of [
      { ...first, amount: first.amount.plus(1) },
      { ...first, customerId: 'a-new-customer' },
    ]) {
      const error = await refusal(gateway.invoiceService.create(merchantId, other));
      expect(error).toBeInstanceOf(Conflict);
      expect((error as Error).message).toBe('An invoice with this orderId already exists with different details');
    }
    expect(await storedInvoices()).toHaveLength(1);
    expect(gateway.wallets.allocated).toBe(1);
  });

  it('is unique per merchant, not across merchants', async () => {
    setup();
    const other = gateway.merchants.add().id;
    const request = invoiceRequest({ baseCurrency: 'TRY', amount: 500 });
    const [mine, theirs] = [await gateway.invoiceService.create(merchantId, request), await gateway.invoiceService.create(other, request)];
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.orderId).toBe(mine.orderId);
  });

  it('answers concurrent first requests of one order for a new customer with one invoice and one address', async () => {
    setup();
    const request = invoiceRequest({ baseCurrency: 'USDT', amount: 25 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => gateway.invoiceService.create(merchantId, request)));
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.wallet!.address)).size).toBe(1);
    expect(await storedInvoices()).toHaveLength(1);
    expect(gateway.metrics.invoiceCreated).toHaveBeenCalledOnce();
  });
});

describe('direct-open', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('skips the checkout when the request names the method and every detail it needs, and gets the payment at the provider at once', async () => {
    setup();
    const invoice = await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'TRY', amount: 1500, paymentMethod: 'iban', ...IBAN_DETAILS }));
    expect(invoice.directOpen).toBe(true);
    const stored = await gateway.invoices.get(invoice.id);
    expect(stored!.providerPayment).toMatchObject({ providerId: 'demo', providerReference: 'pay-1', redirectUrl: 'https://provider.example/pay/pay-1' });
    expect(gateway.provider.payments.get(`payment:${invoice.id}`)!.request).toMatchObject({
      reference: invoice.id,
      amount: '1500.00',
      currency: 'TRY',
      method: 'iban',
      customer: { fullName: IBAN_DETAILS.customerFullName, email: IBAN_DETAILS.customerEmail, account: VALID_IBAN },
    });
    expect((await gateway.invoices.awaitingProvider('demo')).map(({ id }) => id)).toEqual([invoice.id]);
  });

  it('is not direct-open while a detail is missing or the method is not named: the checkout makes the payment later', async () => {
    setup();
    const { customerEmail: _email, ...withoutEmail } = IBAN_DETAILS;
    for (const fields of [{ paymentMethod: 'iban', ...withoutEmail }, IBAN_DETAILS]) {
      const invoice = await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'TRY', amount: 1500, ...fields }));
      expect(invoice.directOpen).toBe(false);
    }
    expect(gateway.provider.payments.size).toBe(0);
  });

  it('is created all the same when the provider is down, the checkout asking again when the customer opens the link', async () => {
    setup();
    gateway.provider.down = true;
    const invoice = await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'TRY', amount: 1500, paymentMethod: 'iban', ...IBAN_DETAILS }));
    expect(invoice).toMatchObject({ status: 'created', directOpen: true });
    expect((await gateway.invoices.get(invoice.id))!.providerPayment).toBeUndefined();
    expect(gateway.log.warn).toHaveBeenCalledExactlyOnceWith('No payment at the provider yet; the checkout asks again', expect.objectContaining({ invoiceId: invoice.id }));
  });

  it(`answers after ${PAYMENT_AT_CREATION_MS} ms of a slow provider, whose payment is kept when it comes`, async () => {
    setup();
    vi.useFakeTimers();
    const release = gateway.provider.stall();
    const creating = gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'TRY', amount: 1500, paymentMethod: 'iban', ...IBAN_DETAILS }));
    await vi.advanceTimersByTimeAsync(PAYMENT_AT_CREATION_MS);
    const invoice = await creating;
    expect((await gateway.invoices.get(invoice.id))!.providerPayment).toBeUndefined();
    release();
    await vi.waitFor(async () => expect((await gateway.invoices.get(invoice.id))!.providerPayment).toBeDefined());
  });
});

describe('reading invoices', () => {
  it("answers the merchant's own invoice as its view; another merchant's, an unknown one or an id that is not a UUID is not found", async () => {
    setup();
    const created = await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'USDT', amount: 25 }));
    expect(await gateway.invoiceService.get(merchantId, created.id)).toEqual(created);
    const other = gateway.merchants.add().id;
    for (const [merchant, id] of [
      [other, created.id],
      [merchantId, crypto.randomUUID()],
      [merchantId, 'not-a-uuid'],
    ] as const) {
      await expect(gateway.invoiceService.get(merchant, id)).rejects.toThrow(NotFound);
    }
  });

  it("lists the merchant's own invoices newest first, a page at a time", async () => {
    setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.unshift((await gateway.invoiceService.create(merchantId, invoiceRequest({ baseCurrency: 'TRY', amount: 500 }))).id);
      gateway.advance(1);
    }
    await gateway.invoiceService.create(gateway.merchants.add().id, invoiceRequest({ baseCurrency: 'TRY', amount: 500 }));
    const first = await gateway.invoiceService.list(merchantId, { limit: 2 });
    expect(first.items.map(({ id }) => id)).toEqual(ids.slice(0, 2));
    const second = await gateway.invoiceService.list(merchantId, { limit: 2, cursor: first.nextCursor! });
    expect(second).toEqual({ items: [await gateway.invoiceService.get(merchantId, ids[2]!)], nextCursor: null });
  });
});
