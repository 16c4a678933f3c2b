import { describe, expect, it } from 'vitest';
import { htmlDocument } from '../../shared/checkout/document.js';
import { LANGUAGE_CODES, LANGUAGES, Translator, type Language } from '../../shared/checkout/language.js';
import { escapeHtml, html } from '../../shared/http/html.js';
import type { Stage } from '../../shared/stage.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { checkoutStep, parseCustomerDetails, paymentProgress, returnUrlOf } from '../../shared/domain/invoicing/checkout.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import type { Invoice } from '../../shared/domain/invoicing/invoice.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { stageProviders } from '../support/providers.js';
import { asRequestBody } from '../support/request-body.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const CREATED = new Date('2026-01-01T00:00:00.000Z');
const LATER = new Date('2026-01-01T00:05:00.000Z');
const LAPSED = new Date('2026-01-01T00:15:00.000Z');

function invoice(fields: Record<string, unknown>): Invoice {
  const request = createInvoiceRequestSchema.parse(asRequestBody({ orderId: 'o-1', customerId: 'c-1', ...fields }));
  return buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: CREATED }, prices, {
    stage: 'demo',
    lifetimeSeconds: 900,
    providers: stageProviders('demo'),
    networks: CRYPTO_NETWORKS,
  });
}

describe('the checkout step of an invoice', () => {
  it('follows the invoice: crypto, details to collect, the payment, completed, closed', () => {
    expect(checkoutStep(invoice({ baseCurrency: 'ETH', amount: 0.01 }), LATER)).toEqual({ kind: 'crypto' });
    expect(checkoutStep(invoice({ baseCurrency: 'TRY', amount: 1000 }), LATER)).toEqual({
      kind: 'details',
      fields: ['customerFullName', 'customerEmail', 'customerAccount'],
    });
    expect(checkoutStep(invoice({ baseCurrency: 'INR', amount: 1000, customerEmail: 'a@b.co' }), LATER)).toEqual({
      kind: 'details',
      fields: ['customerFirstName', 'customerLastName'],
    });
    expect(checkoutStep(invoice({ baseCurrency: 'PKR', amount: 1000, customerFullName: 'Sana' }), LATER)).toEqual({ kind: 'payment' });
    expect(checkoutStep({ ...invoice({ baseCurrency: 'ETH', amount: 0.01 }), status: 'completed' }, LATER)).toEqual({ kind: 'completed' });
    expect(checkoutStep({ ...invoice({ baseCurrency: 'PKR', amount: 1000 }), status: 'canceled', cancelReason: 'rejected' }, LATER)).toEqual({
      kind: 'closed',
      reason: 'rejected',
    });
  });

  it('is closed as expired once the lifetime ends, before the expiry schedule cancels the invoice', () => {
    expect(checkoutStep(invoice({ baseCurrency: 'ETH', amount: 0.01 }), LAPSED)).toEqual({ kind: 'closed', reason: 'expired' });
  });
});

describe('the return URL', () => {
  it("is the invoice's redirectUrl, else the merchant's static URL, else none", () => {
    expect(returnUrlOf({ redirectUrl: 'https://shop.example/a' }, { returnUrl: 'https://shop.example/b' })).toBe('https://shop.example/a');
    expect(returnUrlOf({ redirectUrl: null }, { returnUrl: 'https://shop.example/b' })).toBe('https://shop.example/b');
    expect(returnUrlOf({ redirectUrl: null }, { returnUrl: null })).toBeNull();
  });

  it('is never anything but a web address', () => {
    expect(returnUrlOf({ redirectUrl: null }, { returnUrl: 'javascript:alert(1)' })).toBeNull();
    expect(returnUrlOf({ redirectUrl: null }, { returnUrl: '/relative' })).toBeNull();
  });
});

describe('customer details from the checkout form', () => {
  it('applies the creation rules, normalising as creation does', () => {
    expect(
      parseCustomerDetails(['customerFullName', 'customerEmail', 'customerAccount'], {
        customerFullName: ' Ada ',
        customerEmail: 'ada@example.com',
        customerAccount: 'tr33 0006 1005 1978 6457 8413 26',
        customerPhone: 'ignored: not asked for',
      }),
    ).toEqual({ details: expect.objectContaining({ fullName: 'Ada', email: 'ada@example.com', account: 'TR330006100519786457841326', phone: undefined }) });
  });

  it('names one problem per field, in the order asked, a blank field as missing', () => {
    expect(parseCustomerDetails(['customerFirstName', 'customerLastName', 'customerEmail'], { customerFirstName: 'x'.repeat(101), customerEmail: ' ' })).toEqual({
      problems: [
        { field: 'customerFirstName', rule: 'tooLong', max: 100 },
        { field: 'customerLastName', rule: 'required' },
        { field: 'customerEmail', rule: 'required' },
      ],
    });
  });

  it('tells a malformed email and an IBAN that fails its checksum', () => {
    expect(parseCustomerDetails(['customerEmail', 'customerAccount'], { customerEmail: 'not-an-email', customerAccount: 'TR330006100519786457841327' })).toEqual({
      problems: [
        { field: 'customerEmail', rule: 'email' },
        { field: 'customerAccount', rule: 'iban' },
      ],
    });
  });
});

describe('what has been paid', () => {
  const usdt = invoice({ baseCurrency: 'USDT', amount: 25 });

  it('is nothing before a deposit, and the whole amount remains', () => {
    expect(paymentProgress(usdt)).toEqual({ paid: '0.000000', remaining: '25.000000', partial: false });
  });

  it('is partial while less than asked has arrived', () => {
    expect(paymentProgress({ ...usdt, paidAmount: '10.5' })).toEqual({ paid: '10.500000', remaining: '14.500000', partial: true });
  });

  it('leaves nothing to pay once enough or more arrived', () => {
    expect(paymentProgress({ ...usdt, paidAmount: '25.000000' })).toEqual({ paid: '25.000000', remaining: '0.000000', partial: false });
    expect(paymentProgress({ ...usdt, paidAmount: '30' })).toEqual({ paid: '30.000000', remaining: '0.000000', partial: false });
  });
});

describe('the demo notice', () => {
  const noticeOf = (stage: Stage, language: Language, family?: Invoice['family']): string | undefined => {
    const page = htmlDocument(new Translator(language), stage, { status: 200, title: 'Pay', family, main: html``, pageUrlIn: () => '', policy: { frameAncestors: [], formTargets: [] } });
    return /<p class="demo">([^<]*)<\/p>/.exec(page.html)?.[1];
  };

  it.each(LANGUAGE_CODES)('speaks in %s of test networks on a crypto page, of the demo provider on a fiat page, and of no money moving elsewhere', (language) => {
    const { catalogue } = LANGUAGES[language];
    expect(noticeOf('demo', language, 'crypto')).toBe(escapeHtml(catalogue['demo.crypto']));
    expect(noticeOf('demo', language, 'fiat')).toBe(escapeHtml(catalogue['demo.fiat']));
    expect(noticeOf('demo', language)).toBe(escapeHtml(catalogue['demo.notice']));
    expect(new Set([catalogue['demo.crypto'], catalogue['demo.fiat'], catalogue['demo.notice']]).size).toBe(3);
  });

  it('says in English what each family pays with in the demo', () => {
    expect(noticeOf('demo', 'en', 'crypto')).toContain('The addresses are on test networks');
    expect(noticeOf('demo', 'en', 'fiat')).toContain('enter any 12-digit UTR');
    expect(noticeOf('demo', 'en', 'fiat')).not.toContain('address');
  });

  it('is absent from production pages', () => {
    expect(noticeOf('prod', 'en', 'crypto')).toBeUndefined();
    expect(noticeOf('prod', 'hi', 'fiat')).toBeUndefined();
  });
});
