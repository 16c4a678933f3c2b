/**
 * The transaction receipts' signer of this container: the stage's KMS key in AWS, the key files
 * locally. A function without the right to sign is refused by KMS, whatever it holds.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../shared/config.js';
import type { ReceiptSigner } from '../../shared/domain/payments/index.js';
import { traced } from '../../shared/observability/tracer.js';
import { KeyFileReceiptSigner } from '../../shared/signers/key-file-receipt-signer.js';
import { KmsReceiptSigner } from '../../shared/signers/kms-receipt-signer.js';

/** `retired`: the KMS keys rotated out, as the stage's configuration names them (the key files' directory keeps its own). */
export function receiptSignerWith(retired: () => readonly string[]): ReceiptSigner {
  const { receiptSigner } = config();
  return receiptSigner.kind === 'aws' ? new KmsReceiptSigner(traced(new KMSClient({})), { current: receiptSigner.keyId, retired }) : new KeyFileReceiptSigner(receiptSigner.directory);
}
