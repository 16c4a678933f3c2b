/**
 * Host-to-host deposit confirmation by UTR (docs/merchant-guide.md#confirming-a-deposit-by-utr): the strict
 * request, and the receipt's size and content checks. Pure.
 */
import * as z from 'zod';
import type { Invoice } from './invoice.js';
import { TooLarge, Invalid } from '../kernel/index.js';

/** The invoices a customer's UTR confirms: INR's. */
export const isConfirmedByUtr = (invoice: Pick<Invoice, 'paymentCurrency'>): boolean => invoice.paymentCurrency === 'INR';

/**
 * The largest receipt, decoded. The confirmation carries it as base64 inside one synchronous
 * Lambda invocation (6 MB for the whole event), which is what bounds it.
 */
export const RECEIPT_MAX_BYTES = 2 * 1024 * 1024;
/** `RECEIPT_MAX_BYTES` as the contract states it. */
export const RECEIPT_MAX_SIZE_TEXT = `${RECEIPT_MAX_BYTES / 1024 / 1024} MiB`;
export const RECEIPT_EXTENSIONS = ['jpg', 'jpeg', 'png', 'pdf'] as const;
export type ReceiptExtension = (typeof RECEIPT_EXTENSIONS)[number];

export const depositConfirmationRequestSchema = z.strictObject({
  invoiceId: z.string().min(1).describe('The INR invoice the customer paid'),
  utr: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9]{12,22}$/, 'must be 12 to 22 letters or digits')
    .transform((utr) => utr.toUpperCase())
    .describe('Unique transaction reference of the bank transfer; stored uppercase'),
  receipt_file: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64')
    .optional()
    .describe(`The receipt, base64; at most ${RECEIPT_MAX_SIZE_TEXT} decoded`),
  receipt_file_extension: z.string().trim().toLowerCase().pipe(z.enum(RECEIPT_EXTENSIONS)).optional().describe('jpg, jpeg, png or pdf; must match the content'),
  receipt_file_name: z.string().trim().min(1).max(255).optional(),
});

export type DepositConfirmationRequest = z.output<typeof depositConfirmationRequestSchema>;

export const CONFIRMATION_ACCEPTED = 'Deposit confirmation accepted';

const SIGNATURES: Record<ReceiptExtension, number[]> = {
  jpg: [0xff, 0xd8, 0xff],
  jpeg: [0xff, 0xd8, 0xff],
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  pdf: [0x25, 0x50, 0x44, 0x46, 0x2d], // %PDF-
};

export interface Receipt {
  content: Buffer;
  extension: ReceiptExtension;
  name: string | null;
}

/** The decoded receipt, checked by size (413) and by its magic bytes against the extension (422). */
export function decodeReceipt(request: DepositConfirmationRequest): Receipt | undefined {
  if (request.receipt_file === undefined) {
    if (request.receipt_file_extension !== undefined) throw Invalid.of('receipt_file', 'receipt_file is required with receipt_file_extension');
    return undefined;
  }
  if (request.receipt_file_extension === undefined) throw Invalid.of('receipt_file_extension', 'receipt_file_extension is required with receipt_file');
  const content = Buffer.from(request.receipt_file, 'base64');
  if (content.length > RECEIPT_MAX_BYTES) throw new TooLarge(`The receipt exceeds ${RECEIPT_MAX_BYTES} bytes`);
  const signature = SIGNATURES[request.receipt_file_extension];
  if (content.length < signature.length || !signature.every((byte, i) => content[i] === byte)) {
    throw Invalid.of('receipt_file', `receipt_file is not a ${request.receipt_file_extension.toUpperCase()} file`);
  }
  return { content, extension: request.receipt_file_extension, name: request.receipt_file_name ?? null };
}
