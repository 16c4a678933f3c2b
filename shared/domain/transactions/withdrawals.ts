/**
 * The deprecated peer-to-peer fiat withdrawal (docs/merchant-guide.md#withdrawals-deprecated): the
 * request with its three variants, card checks and masking, and the withdraw transaction. Pure.
 */
import * as z from 'zod';
import { amountRuleProblem, type Decimal, decimalsOf, decimalStringAmount, familyOf, formatAmount, formatRate, Invalid, listedAs, LOCAL_FIAT_CURRENCIES, type SealedSecret } from '../kernel/index.js';
import { processingFee, type Transaction } from './transactions.js';
import { crossRate, type UsdPrices } from '../rates/index.js';
import type { PayoutRequest } from '../providers/index.js';

/** Luhn check digit validation of a digits-only string. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** `4111111111111111` -> `411111******1111`: the first six and last four digits, as card schemes allow. */
export const maskCardNumber = (digits: string): string => `${digits.slice(0, 6)}${'*'.repeat(Math.max(digits.length - 10, 0))}${digits.slice(-4)}`;

/** The request with its card number masked, for anything kept beside the sealed number. */
export function withMaskedCard(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('cardNumber' in body)) return body;
  const { cardNumber } = body as { cardNumber: unknown };
  const digits = typeof cardNumber === 'string' ? cardNumber.replace(/\D/g, '') : '';
  return { ...body, cardNumber: `${maskCardNumber(digits)}/${digits.length}` };
}

const text = (max: number) => z.string().trim().min(1).max(max);

export const withdrawalRequestSchema = z.strictObject({
  customerId: text(128).describe('Unique id of the customer who initiated the withdrawal'),
  amount: decimalStringAmount('Amount to withdraw'),
  currency: listedAs(
    z
      .string()
      .trim()
      .toUpperCase()
      .refine((code) => familyOf(code) === 'fiat', 'must be a supported local currency (TRY, INR, PKR, AZN)'),
    LOCAL_FIAT_CURRENCIES,
  ),
  orderId: text(128).optional().describe("Unique order id in the merchant's system"),
  applicationId: text(128).optional(),
  comment: z.string().max(255).optional(),
  paymentSystem: text(64).optional().describe('Payment system that processes the withdrawal'),
  cardHolderName: text(200).optional(),
  cardNumber: z
    .string()
    .transform((value) => value.replace(/[\s-]/g, ''))
    .refine((digits) => /^\d{12,19}$/.test(digits), 'must be 12 to 19 digits')
    .refine(passesLuhn, 'fails the card number check (Luhn)')
    .optional(),
  phoneNumber: z
    .string()
    .regex(/^\+?\d{7,15}$/, 'must be a phone number of 7 to 15 digits')
    .optional(),
  bankName: text(200).optional(),
  bankAccountName: text(200).optional(),
  bankAccountNumber: z
    .string()
    .regex(/^[A-Za-z0-9]{5,34}$/, 'must be 5 to 34 letters or digits')
    .optional(),
});

export type WithdrawalRequest = z.output<typeof withdrawalRequestSchema>;

export type WithdrawalVariant = 'card' | 'phone' | 'bankAccount';

/** The variant is the one whose required field is present; none or several is a 422. */
export function withdrawalVariant(request: WithdrawalRequest): WithdrawalVariant {
  const present = (
    [
      ['card', request.cardNumber],
      ['phone', request.phoneNumber],
      ['bankAccount', request.bankAccountNumber],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (present.length !== 1) {
    throw Invalid.of(
      present.length === 0 ? 'cardNumber' : present[1]![0] === 'phone' ? 'phoneNumber' : 'bankAccountNumber',
      present.length === 0 ? 'One of cardNumber, phoneNumber or bankAccountNumber is required' : 'Only one of cardNumber, phoneNumber and bankAccountNumber may be given',
    );
  }
  const variant = present[0]![0];
  if (variant === 'bankAccount' && !request.bankAccountName) throw Invalid.of('bankAccountName', 'bankAccountName is required with bankAccountNumber');
  return variant;
}

/** Where the money goes, as stored: the card number only in its encrypted form, elsewhere masked. */
export interface WithdrawalRecipient {
  variant: WithdrawalVariant;
  cardHolderName?: string;
  maskedCardNumber?: string;
  phoneNumber?: string;
  bankName?: string;
  bankAccountName?: string;
  bankAccountNumber?: string;
  /** The full card number, encrypted; never leaves the store in any other form. */
  sealedCardNumber?: SealedSecret;
}

export function withdrawalRecipient(request: WithdrawalRequest, variant: WithdrawalVariant): WithdrawalRecipient {
  return {
    variant,
    cardHolderName: request.cardHolderName,
    maskedCardNumber: request.cardNumber ? maskCardNumber(request.cardNumber) : undefined,
    phoneNumber: request.phoneNumber,
    bankName: request.bankName,
    bankAccountName: request.bankAccountName,
    bankAccountNumber: request.bankAccountNumber,
  };
}

export interface WithdrawTransaction extends Transaction {
  recipient: WithdrawalRecipient;
  comment: string | null;
  paymentSystem: string | null;
}

/**
 * What every new withdrawal records, fiat or crypto: `processing`, in its own currency at rate 1,
 * valued in USD and EUR at the current rates (a 422 on `currency` without them), its reserve to be
 * written with it.
 */
export function newWithdrawal(fields: {
  id: string;
  merchantId: string;
  amount: Decimal;
  currency: string;
  customerId: string;
  orderId?: string;
  applicationId?: string;
  fees: Transaction['fees'];
  prices: UsdPrices;
  now: Date;
}): Transaction {
  const { amount, currency } = fields;
  const usdRate = crossRate(fields.prices, currency, 'USD');
  const eurRate = crossRate(fields.prices, currency, 'EUR');
  if (!usdRate || !eurRate) throw Invalid.of('currency', `No exchange rate for ${currency}`);
  const at = fields.now.toISOString();
  const written = formatAmount(amount, decimalsOf(currency));
  return {
    id: fields.id,
    merchantId: fields.merchantId,
    invoiceId: null,
    type: 'withdraw',
    status: 'processing',
    amount: written,
    currency,
    network: null,
    transactionHash: null,
    customerId: fields.customerId,
    orderId: fields.orderId ?? null,
    applicationId: fields.applicationId ?? null,
    createdAt: at,
    updatedAt: at,
    info: { exchangeRate: '1', referenceAmount: written, referenceCurrency: currency, referenceExchangeRate: '1', transactionAmount: written, transactionCurrency: currency },
    fees: fields.fees,
    usd: formatAmount(amount.mul(formatRate(usdRate)), 2),
    eur: formatAmount(amount.mul(formatRate(eurRate)), 2),
    senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
    booked: true,
  };
}

/** A new withdraw transaction, processing, valued at the current rates. */
export function withdrawTransaction(
  request: WithdrawalRequest,
  recipient: WithdrawalRecipient,
  context: { id: string; merchantId: string; feePercent: string; prices: UsdPrices; now: Date },
): WithdrawTransaction {
  const amountRule = amountRuleProblem(request.amount, request.currency);
  if (amountRule) throw Invalid.of('amount', amountRule);
  return {
    ...newWithdrawal({ ...context, ...request, fees: { processing: processingFee(request.amount, request.currency, context.feePercent), technical: null } }),
    recipient,
    comment: request.comment ?? null,
    paymentSystem: request.paymentSystem ?? null,
  };
}

const PROVIDER_VARIANTS = { card: 'card', phone: 'phone', bankAccount: 'bank' } as const satisfies Record<WithdrawalVariant, PayoutRequest['recipient']['variant']>;

/**
 * A payout's recipient as a provider takes it (docs/provider-protocol.md): the variant, its fields, and the card
 * number in clear, which this request alone carries.
 */
export function payoutRecipient(withdrawal: WithdrawTransaction, cardNumber?: string): PayoutRequest['recipient'] {
  const { recipient } = withdrawal;
  const fields = {
    cardNumber,
    cardHolderName: recipient.cardHolderName,
    phoneNumber: recipient.phoneNumber,
    bankName: recipient.bankName,
    bankAccountName: recipient.bankAccountName,
    bankAccountNumber: recipient.bankAccountNumber,
    customerId: withdrawal.customerId,
    comment: withdrawal.comment,
    paymentSystem: withdrawal.paymentSystem,
  };
  return { variant: PROVIDER_VARIANTS[recipient.variant], ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) };
}
