/**
 * The crypto step as production renders it, where no browser test reaches (the local runtime is the
 * demo): which network's address a page shows, and the Trust Wallet link of a Tron payment.
 */
import { describe, expect, it } from 'vitest';
import { shownNetwork } from '../../shared/checkout/steps/crypto.js';
import type { Language } from '../../shared/checkout/language.js';
import { renderCheckoutPage } from '../../shared/checkout-page.js';
import type { Checkout } from '../../shared/domain/payments/checkout-service.js';
import { networksOf, type CryptoNetwork } from '../../shared/domain/kernel/currencies.js';
import { createInvoiceRequestSchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { buildInvoice } from '../../shared/domain/invoicing/invoices.js';
import { defaultChains } from '../../shared/domain/chains/networks.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { stageProviders } from '../support/providers.js';
import { asRequestBody } from '../support/request-body.js';

const prices = (await new StaticRateSource(DEMO_USD_PRICES).current()).prices;
const NOW = new Date('2026-01-01T00:00:00.000Z');
const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const TRON = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

/** A production USDT invoice as the API makes it, with the customer's address on each of its networks. */
function usdtCheckout(): Checkout {
  const request = createInvoiceRequestSchema.parse(asRequestBody({ orderId: 'o-1', customerId: 'c-1', baseCurrency: 'USDT', amount: 25 }));
  const networks = networksOf('USDT');
  const invoice = buildInvoice(request, { id: '00000000-0000-4000-8000-000000000001', merchantId: 'm-1', now: NOW }, prices, {
    stage: 'prod',
    lifetimeSeconds: 900,
    providers: stageProviders('prod'),
    networks,
  });
  const addresses = networks.map((network) => ({ network, address: network === 'tron' ? TRON : EVM }));
  return {
    invoice: { ...invoice, wallet: { address: EVM, networks, addresses } },
    merchant: { name: 'Shop', returnUrl: null, frameAncestors: [] } as unknown as Checkout['merchant'],
    step: { kind: 'crypto' },
    now: NOW,
  };
}

const productionPage = async (network: string, language: Language = 'en') =>
  (
    await renderCheckoutPage(
      usdtCheckout(),
      { kind: 'crypto', network },
      {
        publicBaseUrl: 'https://pay.example',
        stage: 'prod',
        chains: defaultChains('prod'),
        language: { language, explicit: false },
      },
    )
  ).html;

describe('the network a crypto page shows', () => {
  const usdt: CryptoNetwork[] = ['ethereum', 'bsc', 'tron'];

  it("is the one chosen among the invoice's, else none; an invoice on one network needs no choice", () => {
    expect(shownNetwork(usdt, 'tron')).toBe('tron');
    expect(shownNetwork(usdt, undefined)).toBeUndefined();
    expect(shownNetwork(usdt, 'polygon')).toBeUndefined();
    expect(shownNetwork(usdt, 'constructor')).toBeUndefined();
    expect(shownNetwork(['bitcoin'], undefined)).toBe('bitcoin');
    expect(shownNetwork(['bitcoin'], 'tron')).toBe('bitcoin');
  });
});

describe('a Tron payment in production', () => {
  it("offers Trust Wallet's send link of the TRC-20, by name, opening beside the page", async () => {
    const page = await productionPage('tron');
    expect(page).toContain(
      `<a class="button secondary" href="https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amp;address=${TRON}&amp;amount=25" target="_blank" rel="noopener">Open in Trust Wallet</a>`,
    );
    expect(page).toContain('This QR code holds only the address');
    expect(page).not.toContain(EVM);
    expect(await productionPage('tron', 'tr')).toContain('>Trust Wallet ile aç</a>');
  });

  it('leaves the other networks to their payment URIs on the main chains', async () => {
    const page = await productionPage('ethereum');
    expect(page).toContain(`href="ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${EVM}&amp;uint256=25000000">Open in wallet</a>`);
    expect(page).not.toContain('trustwallet');
  });
});
