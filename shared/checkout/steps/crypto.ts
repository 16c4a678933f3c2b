/**
 * The crypto step. An asset on several networks asks the customer to choose the network first, as
 * exchanges' withdrawal screens do, by links that reopen the page with `?network=` (no script
 * needed); then, as with an asset on one network, it shows the one address, its QR code and wallet
 * link, and the amount still to send.
 */
import { type Invoice, paymentProgress } from '../../domain/invoicing/index.js';
import { type CryptoAssetCode, type CryptoNetwork, Decimal } from '../../domain/kernel/index.js';
import { NATIVE_ASSETS, walletHandoff } from '../../domain/chains/index.js';
import { html, raw, type Html } from '../../http/html.js';
import type { PageContext } from '../page.js';
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

/** The id of the chosen network's part of the page, which the choice's links jump to. */
export const CHOSEN_NETWORK_ANCHOR = 'pay-on-network';

/** A network as the customer must pick it in a wallet: for a token, with its label, e.g. `Ethereum (ERC-20)`. */
export function networkName(network: CryptoNetwork, asset: string): string {
  const name = NETWORK_NAMES[network];
  const label = NATIVE_ASSETS[network] === asset ? undefined : TOKEN_NETWORK_LABELS[network];
  return label === undefined || label === name ? name : `${name} (${label})`;
}

/** The network whose address the page shows: the invoice's only one, else the one asked for if the invoice is payable on it. */
export function shownNetwork(networks: readonly CryptoNetwork[], requested: string | undefined): CryptoNetwork | undefined {
  return networks.length === 1 ? networks[0] : networks.find((network) => network === requested);
}

/** A name in running text or a list: isolated, so that a right-to-left page keeps `Tron (TRC-20)` as written. */
const isolated = (text: string): Html => html`<bdi>${text}</bdi>`;

/** The invoice's networks as links, the chosen one marked as current. */
function networkChoice(t: Translator, networks: readonly CryptoNetwork[], asset: string, chosen: CryptoNetwork | undefined, urlOf: (network: CryptoNetwork) => string): Html {
  const choices = networks.map((network) => {
    const current = network === chosen;
    return html`<li><a href="${urlOf(network)}#${CHOSEN_NETWORK_ANCHOR}"${current ? raw(' aria-current="true"') : ''}>${isolated(networkName(network, asset))}${
      current ? raw('<span class="check" aria-hidden="true">✓</span>') : ''
    }</a></li>`;
  });
  return html`<h2 id="network-choice">${t.html('crypto.chooseNetwork')}</h2>
<ul class="network-choices" aria-labelledby="network-choice">${choices}</ul>`;
}

/** The chosen network's part: the amount, the address with its QR code, and the wallet link where there is one. */
async function paymentOnNetwork(t: Translator, invoice: Invoice, network: CryptoNetwork, amount: string, merchantName: string, context: Pick<PageContext, 'stage' | 'chains'>): Promise<Html> {
  const asset = invoice.paymentCurrency as CryptoAssetCode;
  const progress = paymentProgress(invoice);
  const address = invoice.wallet!.addresses.find((entry) => entry.network === network)!.address;
  const name = networkName(network, asset);
  const { qrCode, qrCodeHasAmount, walletLink } = walletHandoff({ network, asset, address, amount }, context);
  const payment = shownAmount(t, amount, asset);
  const send = progress.partial ? t.html('crypto.partial', { amount: payment }) : t.html('crypto.sendOn', { amount: payment, network: isolated(name) });
  const alt = qrCodeHasAmount ? t.text('crypto.qrPayment', { amount: t.amount(amount, asset), network: name }) : t.text('crypto.qrAddress', { network: name });
  // A link only one wallet reads says which; an https link opens beside the page, leaving the checkout (or the shop's frame) in place.
  const link =
    walletLink === undefined
      ? ''
      : walletLink.app === undefined
        ? html`<a class="button secondary" href="${walletLink.href}">${t.html('crypto.openWallet')}</a>`
        : html`<a class="button secondary" href="${walletLink.href}" target="_blank" rel="noopener">${t.html('crypto.openIn', { wallet: walletLink.app })}</a>`;
  return html`<div class="network" id="${CHOSEN_NETWORK_ANCHOR}">
<h2>${isolated(name)}</h2>
<p>${send} ${t.html('crypto.addressIsYours', { merchant: merchantName })}</p>
${copyButton(t, amount, 'crypto.copyAmount')}
<img class="qr" src="${await qrCodeDataUri(qrCode)}" width="200" height="200" alt="${alt}">
${qrCodeHasAmount ? '' : html`<p class="muted">${t.html('crypto.addressOnly')}</p>`}
<p class="address" dir="ltr">${address}</p>
${copyButton(t, address, 'crypto.copyAddress')}
${link}
<p class="muted">${t.html('crypto.sendOnlyOn', { currency: asset, network: isolated(name) })}</p>
</div>`;
}

export async function cryptoSection(
  t: Translator,
  invoice: Invoice,
  merchantName: string,
  context: Pick<PageContext, 'stage' | 'chains'>,
  choice: { requested: string | undefined; urlOf: (network: CryptoNetwork) => string },
): Promise<Html> {
  const asset = invoice.paymentCurrency as CryptoAssetCode;
  const progress = paymentProgress(invoice);
  // What the wallet is asked for: what remains of the amount.
  const amount = new Decimal(progress.remaining).toFixed();
  const { networks } = invoice.wallet!;
  const chosen = shownNetwork(networks, choice.requested);
  const payment = chosen === undefined ? '' : await paymentOnNetwork(t, invoice, chosen, amount, merchantName, context);
  // Until a network is chosen, the amount is said here; then in the network's part, beside the address.
  const intro = progress.partial ? t.html('crypto.partial', { amount: shownAmount(t, amount, asset) }) : t.html('crypto.sendExactly', { amount: shownAmount(t, amount, asset) });
  const choosing =
    networks.length === 1
      ? ''
      : html`${chosen === undefined ? html`<p>${intro} ${t.html('crypto.chooseFirst')}</p>` : ''}
${networkChoice(t, networks, asset, chosen, choice.urlOf)}
${chosen === undefined ? html`<p class="muted">${t.html('crypto.sendOnlyChosen', { currency: asset })}</p>` : ''}`;
  return html`<h1>${t.html('crypto.title', { currency: asset })}</h1>
${choosing}
${payment}
<div class="pending"><span class="spinner"></span><span>${t.html('crypto.waiting')}</span></div>`;
}
