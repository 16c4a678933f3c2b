/** Requests of the demo simulation API (docs/merchant-guide.md#the-demo-environment-and-the-simulation-api). */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { CRYPTO_NETWORKS, type CryptoNetwork, listedAs, numberOrStringAmount, PAYMENT_CURRENCIES } from '../kernel/index.js';
import type { Invoice } from './invoice.js';

export const simulateDepositRequestSchema = z.strictObject({
  invoiceId: z.string().min(1).describe("The merchant's own invoice"),
  amount: numberOrStringAmount("Defaults to the invoice's payment amount").optional(),
  currency: listedAs(z.string().trim().toUpperCase(), PAYMENT_CURRENCIES).optional().describe("Defaults to, and must be, the invoice's payment currency"),
  network: z.enum(CRYPTO_NETWORKS).optional().describe("Crypto only; defaults to the invoice's first network"),
  status: z.enum(['confirmed', 'failed']).optional().describe('Defaults to confirmed'),
});

export const simulateWithdrawalRequestSchema = z.strictObject({
  transactionId: z.string().min(1).describe('A processing withdrawal or refund of the merchant'),
  status: z.enum(['confirmed', 'failed']),
});

/** A made-up transaction hash in the network's usual form. */
export function simulatedChainHash(network: CryptoNetwork): string {
  const hex = randomBytes(32).toString('hex');
  return network === 'bitcoin' || network === 'tron' ? hex : `0x${hex}`;
}

/** The sender a simulated bank transfer shows: the customer's IBAN, when the invoice has one. */
export const simulatedSenderDetails = (invoice: Pick<Invoice, 'customer'>): { senderIban: string } | undefined => (invoice.customer.account ? { senderIban: invoice.customer.account } : undefined);
