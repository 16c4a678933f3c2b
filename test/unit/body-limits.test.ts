/**
 * Every route's body limit against the synchronous Lambda invocation it must fit (6,291,456 bytes
 * for the whole event), by the assumptions of shared/platform.ts, and the receipt rule against the
 * route that carries receipts.
 */
import { describe, expect, it } from 'vitest';
import { RECEIPT_MAX_BYTES, RECEIPT_MAX_SIZE_TEXT } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { LAMBDA_SYNC_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES, eventBytesBound } from '../../shared/platform.js';
import { HTTP_ROUTES, maxBodyBytesOf, routeByName } from '../../shared/routes.js';

/** What a base64 text of `bytes` bytes takes. */
const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

describe('body limits', () => {
  it.each(HTTP_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: its largest body, escaped, with the event around it, fits a synchronous invocation', (_, route) => {
    expect(eventBytesBound(maxBodyBytesOf(route))).toBeLessThanOrEqual(LAMBDA_SYNC_PAYLOAD_BYTES);
    // And below API Gateway's own ceiling, which would refuse first otherwise.
    expect(maxBodyBytesOf(route)).toBeLessThan(MAX_PAYLOAD_BYTES);
  });

  it('lets confirm-deposit carry the largest receipt as base64, with room for the other fields', () => {
    const fields = JSON.stringify({ invoiceId: '0b6c8f3e-5d4a-4c1b-9e2f-1a2b3c4d5e6f', utr: 'A'.repeat(22), receipt_file: '', receipt_file_extension: 'jpeg', receipt_file_name: '\u00e9'.repeat(255) });
    const largest = base64Length(RECEIPT_MAX_BYTES) + Buffer.byteLength(fields);
    expect(largest).toBeLessThanOrEqual(maxBodyBytesOf(routeByName('confirm-deposit')));
    expect(RECEIPT_MAX_SIZE_TEXT).toBe('2 MiB');
  });
});
