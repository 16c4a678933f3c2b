/** The crypto step: each network with the customer's address, its QR code and wallet link, and the amount still to send. */
import { paymentProgress } from '../../domain/checkout.js';
import type { CryptoAssetCode, CryptoNetwork } from '../../domain/currencies.js';
import type { Invoice } from '../../domain/invoices.js';
import { Decimal } from '../../domain/money.js';
import { NATIVE_ASSETS } from '../../domain/networks.js';
import { paymentUri } from '../../domain/payment-uri.js';
import { html, type Html } from '../../http/html.js';
import type { PageContext } from '../../checkout-page.js';
import { copyButton, shownAmount } from '../fragments.js';
import type { Translator } from '../language.js';
import { qrCodeDataUri } from '../qr-code.js';

/** Proper names: the same in every language. */
const NETWORK_NAMES: Record<CryptoNetwork, string> = {
  bitcoin: 'Bitcoin',
  ethereum: 'Ethereum',
  bsc: 'BNB Smart Chain',
  polygon: 'Polygon',
  tron: 'Tron',
  bahamut: 'Bahamut',
};

/** How wallets and exchanges name a token's network (docs/merchant-guide.md#the-hosted-checkout). */
const TOKEN_NETWORK_LABELS: Partial<Record<CryptoNetwork, string>> = {
  ethereum: 'ERC-20',
  bsc: 'BEP-20',
  polygon: 'Polygon',
  tron: 'TRC-20',
};

/** A network as the customer must pick it in a wallet: for a token, with its label, e.g. `Ethereum (ERC-20)`. */
function networkName(network: CryptoNetwork, asset: string): string {
  const name = NETWORK_NAMES[network];
  const label = NATIVE_ASSETS[network] === asset ? undefined : TOKEN_NETWORK_LABELS[network];
  return label === undefined || label === name ? name : `${name} (${label})`;
}

export async function cryptoSection(t: Translator, invoice: Invoice, merchantName: string, chains: PageContext['chains']): Promise<Html> {
  const asset = invoice.paymentCurrency as CryptoAssetCode;
  const progress = paymentProgress(invoice);
  // What the wallet is asked for: what remains of the amount.
  const amount = new Decimal(progress.remaining).toFixed();
  const payment = shownAmount(t, amount, asset);
  const blocks = await Promise.all(
    invoice.wallet!.addresses.map(async ({ network, address }) => {
      const name = networkName(network, asset);
      const uri = paymentUri({ network, asset, address, amount }, chains);
      const alt = uri === undefined ? t.text('crypto.qrAddress', { network: name }) : t.text('crypto.qrPayment', { amount: t.amount(amount, asset), network: name });
      return html`<div class="network">
<h2>${name}</h2>
<img class="qr" src="${await qrCodeDataUri(uri ?? address)}" width="200" height="200" alt="${alt}">
${uri === undefined ? html`<p class="muted">${t.html('crypto.addressOnly')}</p>` : ''}
<p class="address" dir="ltr">${address}</p>
${copyButton(t, address, 'crypto.copyAddress')}
${uri === undefined ? '' : html`<a class="button secondary" href="${uri}">${t.html('crypto.openWallet')}</a>`}
</div>`;
    }),
  );
  const networks = invoice.wallet!.networks;
  const only = networks.length === 1 ? networkName(networks[0]!, asset) : undefined;
  const send = progress.partial
    ? t.html('crypto.partial', { amount: payment })
    : only === undefined
      ? t.html('crypto.sendOnOneOf', { amount: payment })
      : t.html('crypto.sendOn', { amount: payment, network: only });
  return html`<h1>${t.html('crypto.title', { currency: asset })}</h1>
<p>${send} ${t.html('crypto.addressIsYours', { merchant: merchantName })}</p>
${copyButton(t, amount, 'crypto.copyAmount')}
${blocks}
<p class="muted">${only === undefined ? t.html('crypto.sendOnlyNamed', { currency: asset }) : t.html('crypto.sendOnlyOn', { currency: asset, network: only })}</p>
<div class="pending"><span class="spinner"></span><span>${t.html('crypto.waiting')}</span></div>`;
}
