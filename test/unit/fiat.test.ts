import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Invalid, TooLarge } from '../../shared/domain/kernel/errors.js';
import { RECEIPT_MAX_BYTES, decodeReceipt, depositConfirmationRequestSchema } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates/rates.js';
import { maskCardNumber, passesLuhn, withMaskedCard, withdrawTransaction, withdrawalRecipient, withdrawalRequestSchema, withdrawalVariant } from '../../shared/domain/transactions/withdrawals.js';
import { open, seal } from '../../shared/vault/envelope.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { FileReceiptStore } from '../../shared/store/receipts.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PDF = Buffer.from('%PDF-1.7\n%…');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);

const scratch = await mkdtemp(join(tmpdir(), 'fiat-unit-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

const confirmation = (fields: Record<string, unknown>) => depositConfirmationRequestSchema.safeParse({ invoiceId: 'i', utr: 'ABCDEF123456', ...fields });

describe('deposit confirmation request', () => {
  it('takes a UTR of 12 to 22 letters or digits and stores it uppercase', () => {
    expect(confirmation({ utr: 'abcdef123456' }).data?.utr).toBe('ABCDEF123456');
    expect(confirmation({ utr: 'A'.repeat(22) }).success).toBe(true);
    for (const utr of ['A'.repeat(11), 'A'.repeat(23), 'ABCDEF-12345', 'ABCDEF 123456', 123456789012]) {
      expect(confirmation({ utr }).error?.issues[0]?.path).toEqual(['utr']);
    }
  });

  it('refuses unknown properties, naming them', () => {
    const issues = confirmation({ amount: 10 }).error?.issues ?? [];
    expect(issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['amount'] });
  });

  it('checks the receipt by its magic bytes and its decoded size', () => {
    const parse = (file: Buffer, extension: string) =>
      depositConfirmationRequestSchema.parse({ invoiceId: 'i', utr: 'ABCDEF123456', receipt_file: file.toString('base64'), receipt_file_extension: extension });
    expect(decodeReceipt(parse(PNG, 'png'))?.content).toEqual(PNG);
    expect(decodeReceipt(parse(PDF, 'PDF'))?.extension).toBe('pdf');
    expect(decodeReceipt(parse(JPEG, 'jpeg'))?.extension).toBe('jpeg');
    expect(decodeReceipt(parse(JPEG, 'jpg'))?.extension).toBe('jpg');
    expect(() => decodeReceipt(parse(PNG, 'pdf'))).toThrow(Invalid);
    expect(() => decodeReceipt(parse(Buffer.from('<html>'), 'png'))).toThrow(Invalid);
    const tooBig = Buffer.concat([PDF, Buffer.alloc(RECEIPT_MAX_BYTES)]);
    const error = (() => {
      try {
        decodeReceipt(parse(tooBig, 'pdf'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(TooLarge);
    expect(depositConfirmationRequestSchema.safeParse({ invoiceId: 'i', utr: 'ABCDEF123456', receipt_file_extension: 'gif' }).success).toBe(false);
  });
});

describe('withdrawal request', () => {
  const base = { customerId: 'c', amount: '1500.50', currency: 'TRY' };
  const parse = (fields: Record<string, unknown>) => withdrawalRequestSchema.safeParse({ ...base, ...fields });

  it('checks card numbers with Luhn and masks all but the first six and last four digits', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(maskCardNumber('4111111111111111')).toBe('411111******1111');
    expect(maskCardNumber('371449635398431')).toBe('371449*****8431');
    expect(parse({ cardNumber: '4111 1111 1111 1111' }).data?.cardNumber).toBe('4111111111111111');
    expect(parse({ cardNumber: '4111111111111112' }).success).toBe(false);
    expect(parse({ cardNumber: '41111111111' }).success).toBe(false);
  });

  it('masks the card number in what is kept to recognise a repeated request', () => {
    expect(withMaskedCard({ amount: '1', cardNumber: '4111 1111 1111 1111' })).toEqual({ amount: '1', cardNumber: '411111******1111/16' });
    expect(withMaskedCard({ phoneNumber: '+905551112233' })).toEqual({ phoneNumber: '+905551112233' });
  });

  it('wants every field as a string and a comment of at most 255 characters', () => {
    expect(parse({ amount: 1500, cardNumber: '4111111111111111' }).error?.issues[0]?.path).toEqual(['amount']);
    expect(parse({ customerId: 7, cardNumber: '4111111111111111' }).error?.issues[0]?.path).toEqual(['customerId']);
    expect(parse({ comment: 'x'.repeat(255), cardNumber: '4111111111111111' }).success).toBe(true);
    expect(parse({ comment: 'x'.repeat(256), cardNumber: '4111111111111111' }).error?.issues[0]?.path).toEqual(['comment']);
    expect(parse({ currency: 'USD', cardNumber: '4111111111111111' }).error?.issues[0]?.path).toEqual(['currency']);
    expect(parse({ extra: 'x', cardNumber: '4111111111111111' }).success).toBe(false);
  });

  it('picks the variant whose required field is present, and only one', () => {
    const variant = (fields: Record<string, unknown>) => withdrawalVariant(withdrawalRequestSchema.parse({ ...base, ...fields }));
    expect(variant({ cardNumber: '4111111111111111' })).toBe('card');
    expect(variant({ phoneNumber: '+905551112233' })).toBe('phone');
    expect(variant({ bankAccountNumber: 'TR330006100519786457841326', bankAccountName: 'Ada' })).toBe('bankAccount');
    expect(() => variant({})).toThrow(Invalid);
    expect(() => variant({ cardNumber: '4111111111111111', phoneNumber: '+905551112233' })).toThrow(Invalid);
    expect(() => variant({ bankAccountNumber: 'TR330006100519786457841326' })).toThrow(/bankAccountName/);
  });

  it('makes a processing withdraw transaction valued in decimal, without the card number', async () => {
    const request = withdrawalRequestSchema.parse({ ...base, orderId: 'w-1', cardNumber: '4111111111111111', cardHolderName: 'Ada' });
    const recipient = withdrawalRecipient(request, 'card');
    const tx = withdrawTransaction(request, recipient, { id: 't', merchantId: 'm', feePercent: '1', prices: (await new StaticRateSource(DEMO_USD_PRICES).current()).prices, now: new Date() });
    expect(tx).toMatchObject({ type: 'withdraw', status: 'processing', amount: '1500.50', currency: 'TRY', invoiceId: null, orderId: 'w-1', usd: '45.02', fees: { processing: '15.01' } });
    expect(JSON.stringify(tx)).not.toContain('4111111111111111');
    expect(tx.recipient.maskedCardNumber).toBe('411111******1111');
  });
});

describe('envelope encryption', () => {
  const keys = new KeyFileDataKeySource(join(scratch, 'keys', 'card.key'));

  it('seals a secret that opens only with its context', async () => {
    const sealed = await seal(keys, '4111111111111111', 'tx-1');
    expect(JSON.stringify(sealed)).not.toContain('4111111111111111');
    expect(await open(keys, sealed, 'tx-1')).toBe('4111111111111111');
    await expect(open(keys, sealed, 'tx-2')).rejects.toThrow();
    expect((await stat(join(scratch, 'keys', 'card.key'))).mode & 0o777).toBe(0o600);
  });

  it('uses a fresh data key for each secret', async () => {
    const [a, b] = await Promise.all([seal(keys, 'same', 'x'), seal(keys, 'same', 'x')]);
    expect(a.encryptedKey).not.toBe(b.encryptedKey);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('stores receipts sealed, never in the clear', async () => {
    const store = new FileReceiptStore(join(scratch, 'receipts'), keys);
    const reference = await store.put('m/i/UTR.pdf', { content: PDF, extension: 'pdf', name: 'receipt.pdf' });
    const file = await readFile(new URL(reference));
    expect(file.includes(PDF)).toBe(false);
    await expect(store.put('../../escape', { content: PDF, extension: 'pdf', name: null })).rejects.toThrow();
  });
});
