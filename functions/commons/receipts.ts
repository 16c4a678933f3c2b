/**
 * Where this container keeps receipts: S3 with KMS in AWS, sealed files on one machine. Only the
 * functions that confirm deposits load it (and the S3 client with it); it fails their cold start
 * when the store is not configured.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../shared/config.js';
import type { ReceiptStore } from '../../shared/domain/payments/index.js';
import { traced } from '../../shared/observability/tracer.js';
import { FileReceiptStore, S3ReceiptStore } from '../../shared/store/receipts.js';
import { requireVault } from './vault.js';

const { receipts } = config();
if (!receipts) throw new Error('Invalid environment: RECEIPTS_BUCKET (AWS) or GATEWAY_RECEIPTS_DIR is required');

export const receiptStore: ReceiptStore = receipts.kind === 'aws' ? new S3ReceiptStore(traced(new S3Client({})), receipts.bucket) : new FileReceiptStore(receipts.directory, requireVault().dataKeys);
