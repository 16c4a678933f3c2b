/**
 * A merchant's log of every callback in the outbox on DynamoDB Local (the `byMerchant` index):
 * newest first, transactions' callbacks and invoices' events together, a page at a time; only the
 * failed deliveries when asked, a page still filled from the pages of keys behind it; never another
 * merchant's, nor a cursor of another merchant's or of the other listing.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { type CallbackEntry, deliveryFailed } from '../../shared/domain/callbacks/index.js';
import { Invalid } from '../../shared/domain/kernel/index.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore, outboxPut } from '../../shared/store/outbox.js';
import { eventually } from '../support/wait.js';

const { tables } = config();
const outbox = new DynamoOutboxStore(documentClient, tables.outbox);
const everything = () => true;

/** Writes a callback entry as the writers' transactions do, created `minute` minutes into a fixed hour. */
async function written(merchantId: string, minute: number, subject: 'transaction' | 'invoice'): Promise<string> {
  const subjectId = randomUUID();
  const entry: CallbackEntry = {
    id: subject === 'transaction' ? `${subjectId}:confirmed` : `invoice:${subjectId}:invoice.paid:1`,
    merchantId,
    ...(subject === 'transaction' ? { transactionId: subjectId } : { invoiceId: subjectId }),
    payload: '{}',
    createdAt: new Date(Date.UTC(2026, 2, 1, 12, minute)).toISOString(),
  };
  await documentClient.send(new PutCommand(outboxPut(tables.outbox, entry).Put));
  return entry.id;
}

const at = (minute: number): string => new Date(Date.UTC(2026, 2, 1, 12, minute, 30)).toISOString();

describe("the outbox's log of a merchant's callbacks", () => {
  it('lists every callback of the merchant newest first, a page at a time, and only the failed ones when asked', async () => {
    const merchantId = randomUUID();
    const other = randomUUID();
    // Minute by minute: delivered, failed once and still retried, parked, not tried yet, delivered (an invoice's event), parked.
    const ids = [
      await written(merchantId, 1, 'transaction'),
      await written(merchantId, 2, 'transaction'),
      await written(merchantId, 3, 'invoice'),
      await written(merchantId, 4, 'transaction'),
      await written(merchantId, 5, 'invoice'),
      await written(merchantId, 6, 'transaction'),
    ];
    await written(other, 7, 'transaction');
    await outbox.recordAttempt(ids[0]!, { at: at(1), status: 200, latencyMs: 5 }, 'delivered');
    await outbox.recordAttempt(ids[1]!, { at: at(2), status: 500, latencyMs: 5 }, 'retry');
    await outbox.recordAttempt(ids[2]!, { at: at(3), status: null, latencyMs: 5, error: 'timeout' }, 'parked');
    await outbox.recordAttempt(ids[4]!, { at: at(5), status: 204, latencyMs: 5 }, 'delivered');
    await outbox.recordAttempt(ids[5]!, { at: at(6), status: 410, latencyMs: 5 }, 'parked');

    const newestFirst = [...ids].reverse();
    const all = await eventually(
      async () => {
        const page = await outbox.forMerchant(merchantId, everything, {}, 10);
        return page.items.length === ids.length && page;
      },
      { what: "the merchant's callbacks in the byMerchant index" },
    );
    expect(all.items.map((item) => item.id)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    expect(all.items[0]!.attempts).toEqual([{ at: at(6), status: 410, latencyMs: 5 }]);
    expect(all.items.find((item) => item.id === ids[2])).toMatchObject({ invoiceId: expect.any(String), parkedAt: at(3) });

    // Two at a time, each page going on from the last.
    const first = await outbox.forMerchant(merchantId, everything, {}, 2);
    const second = await outbox.forMerchant(merchantId, everything, {}, 2, first.nextCursor!);
    const third = await outbox.forMerchant(merchantId, everything, {}, 2, second.nextCursor!);
    expect([first, second, third].flatMap((page) => page.items.map((item) => item.id))).toEqual(newestFirst);

    // The failed: parked, or tried and waiting for the next attempt; a page of two is filled from the keys behind it.
    const failed = await outbox.forMerchant(merchantId, deliveryFailed, { failed: 'yes' }, 2);
    expect(failed.items.map((item) => item.id)).toEqual([ids[5], ids[2]]);
    const rest = await outbox.forMerchant(merchantId, deliveryFailed, { failed: 'yes' }, 2, failed.nextCursor!);
    expect(rest.items.map((item) => item.id)).toEqual([ids[1]]);
    expect(rest.nextCursor).toBeNull();
  });

  it("refuses a cursor of another merchant's log, or of the other listing, with a problem on cursor", async () => {
    const merchantId = randomUUID();
    const other = randomUUID();
    for (const minute of [1, 2, 3]) {
      await written(merchantId, minute, 'transaction');
      await written(other, minute, 'invoice');
    }
    const theirs = await eventually(async () => (await outbox.forMerchant(other, everything, {}, 1)).nextCursor, { what: "the other merchant's cursor" });
    const ours = await eventually(async () => (await outbox.forMerchant(merchantId, everything, {}, 1)).nextCursor, { what: "the merchant's cursor" });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (error instanceof Invalid ? error.problems.map((problem) => problem.field) : error),
      );
    expect(await refusal(outbox.forMerchant(merchantId, everything, {}, 1, theirs))).toEqual(['cursor']);
    expect(await refusal(outbox.forMerchant(merchantId, deliveryFailed, { failed: 'yes' }, 1, ours))).toEqual(['cursor']);
  });
});
