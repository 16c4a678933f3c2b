/**
 * Local-fiat money movement: deposit confirmation by UTR (docs/merchant-guide.md#confirming-a-deposit-by-utr) and the deprecated
 * withdrawal (docs/merchant-guide.md#withdrawals-deprecated), over small ports. Both take a uniqueness claim in the same write as
 * the transaction, so the database, not a read before the write, decides who wins; then the
 * request goes to the payment provider (docs/provider-protocol.md#provider-to-gateway-events), whose decision comes back as an event.
 */
import { type BalanceReader, payingMerchant } from '../ledger/index.js';
import { invoiceUtrClaimId, providerPaymentClaimId, utrClaimId } from '../chains/index.js';
import { decodeReceipt, type DepositConfirmationRequest, invoiceAfterDeposit, isConfirmedByUtr, type Receipt } from '../invoicing/index.js';
import { AlreadyUsed, Conflict, Decimal, Invalid, optimisticAttempts, type SealedSecret, Unavailable } from '../kernel/index.js';
import { authenticatedMerchant, type MerchantProfiles } from '../merchants/index.js';
import type { RateSource } from '../rates/index.js';
import { refusal, type Ledger, type TransactionService } from './transaction-service.js';
import { reserveWithdrawal } from './withdrawal-reserve.js';
import { depositTransaction, payoutRecipient, type Transaction, withdrawalRecipient, type WithdrawalRequest, withdrawalVariant, withdrawTransaction } from '../transactions/index.js';
import type { ProviderRequests } from './provider-requests.js';
import { ProviderUnavailable, type ProviderRegistry, type ProviderRoute } from '../providers/index.js';

export interface ReceiptStore {
  /** Stores the receipt privately and returns its reference. */
  put(key: string, receipt: Receipt): Promise<string>;
  /** The receipt a reference names, as it was given. */
  get(reference: string): Promise<Receipt>;
}

export interface CardVault {
  seal(cardNumber: string, context: string): Promise<SealedSecret>;
}

export interface FiatServiceDeps {
  transactions: TransactionService;
  ledger: Ledger;
  /** The merchant's balances: a withdrawal reserves its amount and fee from `available`. */
  balances: BalanceReader;
  merchants: MerchantProfiles;
  /** Only functions that confirm deposits store receipts: paying out needs none. */
  receipts?: ReceiptStore;
  vault: CardVault;
  providers: Pick<ProviderRegistry, 'routes'>;
  requests: Pick<ProviderRequests, 'paymentFor' | 'forwardUtr' | 'requestPayout'>;
  rates: RateSource;
  /** A request the provider did not take now is sent again by the reconciliation: worth a warning, not a failure. */
  log: { warn(message: string, details: Record<string, unknown>): void };
  clock: () => Date;
  newId: () => string;
}

/** A UTR deposit as stored: the deposit, its UTR and its receipt's reference. */
type UtrDeposit = Transaction & { utr: string; receipt?: StoredReceipt };

export interface StoredReceipt {
  reference: string;
  extension: Receipt['extension'];
  name: string | null;
  bytes: number;
}

/** A provider that does not answer before the deposit exists: nothing is written, the merchant retries. */
const unavailable = (error: unknown): never => {
  if (error instanceof ProviderUnavailable) throw new Unavailable('The payment provider did not answer; nothing was recorded, retry the request');
  throw error;
};

/** Who pays out `currency`: the first provider, by priority, that serves it. */
const payoutProvider = (providers: readonly ProviderRoute[], currency: string): ProviderRoute | undefined =>
  [...providers].sort((a, b) => a.priority - b.priority).find((provider) => provider.methods.some((method) => method.currency === currency));

const anotherUtrUnderReview = () => new Conflict('Another UTR is already under review for this invoice');

/** Whether a UTR was accepted for the invoice: from then on the customer waits for the provider's decision. */
export async function hasSubmittedUtr(claims: Pick<Ledger, 'getClaim'>, invoiceId: string): Promise<boolean> {
  return (await claims.getClaim(invoiceUtrClaimId(invoiceId))) !== undefined;
}

export class FiatService {
  constructor(private readonly deps: FiatServiceDeps) {}

  /**
   * Accepts the customer's UTR for an INR invoice: a `processing` deposit exists from then on and
   * the provider decides. The same invoice and UTR again is accepted again, whatever happened since.
   */
  async confirmDeposit(merchantId: string, request: DepositConfirmationRequest): Promise<void> {
    const { transactions, ledger, clock, newId } = this.deps;
    const receipt = decodeReceipt(request);
    const merchant = await authenticatedMerchant(this.deps.merchants, merchantId);
    const id = newId();
    let receiptReference: string | undefined;

    for await (const _attempt of optimisticAttempts()) {
      const invoice = await transactions.ownedInvoice(merchantId, request.invoiceId);
      const deposit = { id, amount: invoice.paymentAmount, currency: invoice.paymentCurrency, status: 'processing' as const };
      const outcome = isConfirmedByUtr(invoice) ? invoiceAfterDeposit(invoice, deposit, true, clock()) : undefined;
      // The claims are read first only where the write cannot be tried (the invoice refuses it) or
      // must not be (a receipt is never stored for a UTR that turns out taken); else the write finds them.
      if (!outcome || 'refused' in outcome || receipt) {
        const claims = await this.utrClaims(invoice.id, request.utr);
        if (claims === 'ours') return;
        if (!outcome) throw Invalid.of('invoiceId', 'Deposit confirmation by UTR applies to INR invoices only');
        if ('refused' in outcome) throw refusal(outcome.refused, invoice);
        if (claims === 'anotherUnderReview') throw anotherUtrUnderReview();
      }

      // The UTR belongs to the invoice's payment at its provider: made now if the customer never reached it.
      const payment = await this.deps.requests.paymentFor(invoice).catch(unavailable);
      if (receipt && !receiptReference) receiptReference = await this.receipts().put(`${merchantId}/${invoice.id}/${request.utr}.${receipt.extension}`, receipt);
      const transaction: UtrDeposit = {
        ...depositTransaction(
          invoice,
          { id, amount: new Decimal(invoice.paymentAmount), currency: invoice.paymentCurrency, status: 'processing', network: null, transactionHash: null, now: clock() },
          merchant.processingFeePercent,
        ),
        utr: request.utr,
        provider: { id: payment.providerId, reference: payment.providerReference },
        ...(receipt ? { receipt: { reference: receiptReference!, extension: receipt.extension, name: receipt.name, bytes: receipt.content.length } } : {}),
      };
      const owner = { invoiceId: invoice.id, transactionId: id, merchantId };
      const result = await ledger.insert(transaction, {
        invoice: outcome.update,
        claims: [
          { id: utrClaimId(request.utr), owner },
          { id: invoiceUtrClaimId(invoice.id), owner: { ...owner, utr: request.utr } },
          { id: providerPaymentClaimId(payment.providerId, payment.providerReference), owner },
        ],
      });
      if (result === 'committed') {
        await this.deps.requests.forwardUtr(transaction, receipt).catch(this.sentLater(id));
        return;
      }
      // Lost: a claim was taken (by this very request's twin, another invoice, another UTR), or the invoice moved on.
      const claims = await this.utrClaims(invoice.id, request.utr);
      if (claims === 'ours') return;
      if (claims === 'anotherUnderReview') throw anotherUtrUnderReview();
      // The provider reported the payment itself (a partial one leaves the invoice open): retrying cannot change that.
      const reported = await ledger.getClaim(providerPaymentClaimId(payment.providerId, payment.providerReference));
      if (reported && reported.owner.transactionId !== id) throw new Conflict(`The payment provider already reported this invoice's payment as deposit ${reported.owner.transactionId}`);
    }
    throw new Conflict('The invoice kept changing; retry the request');
  }

  /**
   * What the claims say of this UTR for this invoice: already its own (a repeat, accepted again),
   * another UTR under review for it, or free; a UTR another payment took is refused here. The
   * invoice's claim is read before the UTR's, so a concurrent twin of the request that commits in
   * between is still recognised as ours.
   */
  private async utrClaims(invoiceId: string, utr: string): Promise<'ours' | 'anotherUnderReview' | 'free'> {
    const invoiceClaim = await this.deps.ledger.getClaim(invoiceUtrClaimId(invoiceId));
    if (invoiceClaim?.owner.utr === utr) return 'ours';
    const claim = await this.deps.ledger.getClaim(utrClaimId(utr));
    if (claim?.owner.invoiceId === invoiceId) return 'ours';
    if (claim) throw new AlreadyUsed('This UTR was already used for another payment');
    return invoiceClaim ? 'anotherUnderReview' : 'free';
  }

  /**
   * Records a payout request (processing) with the reserve of its amount and fee on the merchant's
   * balance, and sends it to the first provider, by priority, that serves its currency; the card
   * number is sealed before it is stored, and goes in clear to the provider only. A merchant whose
   * payouts are held is refused whatever its balance, and more than the available balance is
   * refused; either writes nothing. The balance is written only if it is still the one the reserve
   * was decided on, so racing withdrawals never take it below zero.
   */
  async createWithdrawal(merchantId: string, request: WithdrawalRequest): Promise<Transaction> {
    const variant = withdrawalVariant(request);
    const provider = payoutProvider(this.deps.providers.routes, request.currency);
    if (!provider) throw Invalid.of('currency', `No payment provider here pays out ${request.currency}`);
    const merchant = await payingMerchant(this.deps.merchants, merchantId);
    const id = this.deps.newId();
    const recipient = withdrawalRecipient(request, variant);
    const transaction = withdrawTransaction(request, recipient, {
      id,
      merchantId,
      feePercent: merchant.processingFeePercent,
      prices: (await this.deps.rates.current()).prices,
      now: this.deps.clock(),
    });
    if (request.cardNumber) transaction.recipient.sealedCardNumber = await this.deps.vault.seal(request.cardNumber, id);
    transaction.provider = { id: provider.id };

    if ((await reserveWithdrawal(this.deps, transaction)) !== 'committed') throw new Conflict('The balance kept changing; retry the request');
    await this.deps.requests.requestPayout(transaction, payoutRecipient(transaction, request.cardNumber)).catch(this.sentLater(id));
    return transaction;
  }

  /** For a provider that did not take a request now: the reconciliation sends it again with the same `webhook-id`. */
  private sentLater(transactionId: string) {
    return (error: unknown) => {
      if (!(error instanceof ProviderUnavailable)) throw error;
      this.deps.log.warn('The provider did not take the request; the reconciliation sends it again', { transactionId, reason: error.message });
    };
  }

  private receipts(): ReceiptStore {
    if (!this.deps.receipts) throw new Error('Confirming a deposit needs the receipt store, which this service was given none of');
    return this.deps.receipts;
  }
}
