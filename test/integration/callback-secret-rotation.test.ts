/**
 * Rotations of the callback secret through the local gateway against DynamoDB Local
 * (docs/merchant-guide.md#rotating-the-callback-secret): every secret a rotation answered keeps
 * signing until its own overlap ends, whatever the timing of a burst, up to the number of replaced
 * secrets a merchant may have signing; and merchants stored with the single previous secret of
 * before are read and rotated. The functions load with an overlap of 10 minutes, which no test here
 * outlasts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { itemSize } from '../../bench/capacity-meter.js';
import { merchantStore } from '../../functions/commons/merchants.js';
import { config } from '../../shared/config.js';
import { generateCallbackSecret, MAX_PREVIOUS_CALLBACK_SECRETS } from '../../shared/domain/merchants/merchants.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { startCallbackReceiver, verifiesWith, type CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver.js';
import { invoke, type GatewayResult } from '../support/invoke.js';
import { seedMerchant, testCallbackSecrets, type SeededMerchant } from '../support/merchants.js';

// Hoisted above the imports: importing the functions' merchant store reads the config.
const OVERLAP_S = vi.hoisted(() => {
  const seconds = 600;
  vi.stubEnv('GATEWAY_SECRET_OVERLAP_S', String(seconds));
  return seconds;
});

let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await startCallbackReceiver(() => 200);
});

afterAll(async () => {
  await receiver?.close();
});

const rotate = (merchant: SeededMerchant) => invoke('rotate-callback-secret', { apiKey: merchant.apiKey });

const storedItem = async (id: string) => (await documentClient.send(new GetCommand({ TableName: config().tables.merchants, Key: { id }, ConsistentRead: true }))).Item!;

/** A test callback sent now through its route, as the receiver got it. */
async function testCallback(merchant: SeededMerchant): Promise<ReceivedCallback> {
  const sent = await invoke('send-test-callback', { apiKey: merchant.apiKey });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return receiver.byWebhookId(sent.body.data.webhookId)[0]!;
}

const expectConflict = (response: GatewayResult) => {
  expect(response.status, JSON.stringify(response.body)).toBe(409);
  expect(response.body.errors[0].code).toBe('conflict');
};

/**
 * Runs `work` under load: a worker thread keeps a core busy, and the functions' merchant store
 * answers each read 10 to 60 ms late, so that rotations read, seal and write at any distance
 * from one another, as under the route fuzz.
 */
async function underLoad<T>(work: () => Promise<T>): Promise<T> {
  const burner = new Worker('for (;;) {}', { eval: true });
  const read = merchantStore.getMerchant;
  let slowed = 0;
  merchantStore.getMerchant = async (id) => {
    const merchant = await read.call(merchantStore, id);
    slowed++;
    await sleep(10 + Math.random() * 50);
    return merchant;
  };
  try {
    const result = await work();
    if (slowed === 0) throw new Error('The functions read merchants through a store other than functions/commons/merchants.ts');
    return result;
  } finally {
    merchantStore.getMerchant = read;
    await burner.terminate();
  }
}

describe('POST /api/v2/merchant/callback-secret/rotate', () => {
  it('answers 20 rotations sent over 2 s, closer together at first, under load, with secrets that all sign the next callback; any other answer is a 409 that changed nothing', async () => {
    const merchant = await seedMerchant({ callbackUrl: `${receiver.url}/burst` });
    // Close together at first, they race one another; further apart, each follows one already answered.
    const answers = await underLoad(() => Promise.all(Array.from({ length: 20 }, (_, n) => sleep(n * n * 5).then(() => rotate(merchant)))));

    const answered = answers.filter((response) => response.status === 200).map((response) => response.body.data);
    for (const response of answers.filter((r) => r.status !== 200)) expectConflict(response);

    const callback = await testCallback(merchant);
    for (const { callbackSecret } of answered) expect(verifiesWith(callbackSecret, callback), `${answered.length} answered`).toBe(true);
    expect(verifiesWith(merchant.callbackSecret, callback)).toBe(true);
    expect(verifiesWith(generateCallbackSecret(), callback)).toBe(false);
    // More than one was written, on one another's secrets; past the cap the others were refused.
    expect(answered.length).toBeGreaterThan(1);
    expect(answered.length).toBeLessThanOrEqual(MAX_PREVIOUS_CALLBACK_SECRETS);

    // Each answer replaced one secret, now in the list with the expiry it answered: no refused one wrote.
    const stored = await storedItem(merchant.merchant.id);
    expect(stored.previousCallbackSecrets.map((previous: { expiresAt: string }) => previous.expiresAt).sort()).toEqual(answered.map((answer) => answer.previousSecretExpiresAt).sort());
    // The current secret, one of those answered, signs first, then one signature per replaced secret.
    const current = await testCallbackSecrets().open(merchant.merchant.id, stored.sealedCallbackSecret);
    expect(answered.map((answer) => answer.callbackSecret)).toContain(current);
    const signatures = String(callback.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(answered.length + 1);
    expect(signatures[0]).toBe(new Webhook(current).sign(callback.webhookId, new Date(Number(callback.headers['webhook-timestamp']) * 1000), callback.body));
  });

  it(`refuses a rotation while ${MAX_PREVIOUS_CALLBACK_SECRETS} replaced secrets still sign, changing nothing, and the item stays well below DynamoDB's limits`, async () => {
    const merchant = await seedMerchant({ callbackUrl: `${receiver.url}/cap` });
    const answered: string[] = [];
    for (let n = 0; n < MAX_PREVIOUS_CALLBACK_SECRETS; n++) {
      const response = await rotate(merchant);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      answered.push(response.body.data.callbackSecret);
    }
    const before = await storedItem(merchant.merchant.id);
    expect(before.previousCallbackSecrets).toHaveLength(MAX_PREVIOUS_CALLBACK_SECRETS);

    const refused = await rotate(merchant);
    expectConflict(refused);
    expect(refused.body.errors[0].message).toMatch(/changed nothing; the next is possible from \d{4}-\d\d-\d\dT/);
    expect(await storedItem(merchant.merchant.id)).toEqual(before);
    const callback = await testCallback(merchant);
    expect(String(callback.headers['webhook-signature']).split(' ')).toHaveLength(MAX_PREVIOUS_CALLBACK_SECRETS + 1);
    for (const secret of [...answered, merchant.callbackSecret]) expect(verifiesWith(secret, callback)).toBe(true);

    // Sealed under KMS, each data key is a 184-byte blob (248 characters) where the key file's is 60 bytes:
    // even so the item is a small fraction of DynamoDB's 400 KB, two 4 KB read units.
    const kmsSized = (sealed: { encryptedKey: string }) => ({ ...sealed, encryptedKey: 'k'.repeat(248) });
    const inAws = {
      ...before,
      sealedCallbackSecret: kmsSized(before.sealedCallbackSecret),
      previousCallbackSecrets: before.previousCallbackSecrets.map((previous: { sealed: { encryptedKey: string } }) => ({ ...previous, sealed: kmsSized(previous.sealed) })),
    };
    expect(itemSize(inAws)).toBeLessThan(8 * 1024);
  });

  it('reads a merchant stored with the single previous secret of before as a list of one, and writes the list at its next rotation', async () => {
    const merchant = await seedMerchant({ callbackUrl: `${receiver.url}/legacy` });
    const older = generateCallbackSecret();
    const legacy = { sealed: await testCallbackSecrets().seal(merchant.merchant.id, older), expiresAt: new Date(Date.now() + OVERLAP_S * 1000).toISOString() };
    await documentClient.send(
      new UpdateCommand({
        TableName: config().tables.merchants,
        Key: { id: merchant.merchant.id },
        UpdateExpression: 'SET previousCallbackSecret = :previous, callbackSecretRotatedAt = :at',
        ExpressionAttributeValues: { ':previous': legacy, ':at': new Date().toISOString() },
      }),
    );
    const before = await testCallback(merchant);
    expect(String(before.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(merchant.callbackSecret, before)).toBe(true);
    expect(verifiesWith(older, before)).toBe(true);

    const response = await rotate(merchant);
    expect(response.status).toBe(200);
    const stored = await storedItem(merchant.merchant.id);
    expect(stored.previousCallbackSecrets).toEqual([{ sealed: merchant.merchant.sealedCallbackSecret, expiresAt: response.body.data.previousSecretExpiresAt }, legacy]);
    expect(stored).not.toHaveProperty('previousCallbackSecret');
    expect(stored).not.toHaveProperty('callbackSecretRotatedAt');
    const after = await testCallback(merchant);
    for (const secret of [response.body.data.callbackSecret, merchant.callbackSecret, older]) expect(verifiesWith(secret, after)).toBe(true);
  });
});
