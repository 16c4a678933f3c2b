/**
 * The callback address guard as every deployed stage runs it (docs/merchant-guide.md#callbacks), demo included: the
 * functions load with GATEWAY_CALLBACK_TARGETS unset, as the AWS stacks deploy them, so only
 * public addresses are called back, whatever spelling a URL gives a loopback or private address.
 * The functions read their environment when they load, which in this file is first after this.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.js';
import { DELIVERY_FAILURES } from '../../shared/outbound/http-delivery.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { invoke } from '../support/invoke.js';
import { seedMerchant, testMerchantStore } from '../support/merchants.js';

vi.stubEnv('GATEWAY_CALLBACK_TARGETS', undefined);

let receiver: CallbackReceiver;
let port: string;

beforeAll(async () => {
  receiver = await startCallbackReceiver(() => 200);
  port = new URL(receiver.url).port;
});

afterAll(async () => {
  await receiver?.close();
});

/** Every spelling of loopback, private and metadata addresses a review tried, each reaching the receiver if unguarded. */
const nonPublicUrls = () => [
  `http://127.0.0.1:${port}/callbacks`,
  `http://127.1:${port}/callbacks`,
  `http://0x7f.1:${port}/callbacks`,
  `http://2130706433:${port}/callbacks`,
  `http://localhost:${port}/callbacks`,
  `http://[::ffff:127.0.0.1]:${port}/callbacks`,
  `http://[0:0:0:0:0:ffff:7f00:1]:${port}/callbacks`,
  `http://[::ffff:0.0.0.0]:${port}/callbacks`,
  'http://[::ffff:a9fe:a9fe]/latest/meta-data',
  'http://[::ffff:a00:1]/',
  'http://[::ffff:c0a8:1]/',
  'http://169.254.169.254/latest/meta-data',
];

describe('a deployed demo stage', () => {
  it('runs with the guard on', () => {
    expect(config().stage).toBe('demo');
    expect(config().callbackGuard).toEqual({ httpsOnly: false, targets: 'public' });
  });

  it('sends no test callback to a loopback, private or metadata address, however the URL spells it', async () => {
    for (const url of nonPublicUrls()) {
      const merchant = await seedMerchant({ callbackUrl: url });
      const response = await invoke('send-test-callback', { apiKey: merchant.apiKey });
      expect(response.status, url).toBe(200);
      expect(response.body.data, url).toMatchObject({ status: null, error: DELIVERY_FAILURES.nonPublic });
    }
    expect(receiver.received).toEqual([]);
  });

  it('refuses such a callback URL at PATCH /api/v2/merchant, and changes nothing', async () => {
    const merchant = await seedMerchant({ callbackUrl: 'https://shop.example/hooks' });
    for (const url of nonPublicUrls()) {
      const response = await invoke('update-merchant', { apiKey: merchant.apiKey, body: { callbackUrl: url, returnUrl: 'https://shop.example/back' } });
      expect(response.status, url).toBe(422);
      expect(response.body.errors[0], url).toMatchObject({ code: 'unprocessable_content', field: 'callbackUrl', message: expect.stringContaining('non-public') });
    }
    const stored = await testMerchantStore().getMerchant(merchant.merchant.id);
    expect(stored).toMatchObject({ callbackUrl: 'https://shop.example/hooks', returnUrl: null });
  });

  it('takes a public address', async () => {
    const merchant = await seedMerchant();
    const response = await invoke('update-merchant', { apiKey: merchant.apiKey, body: { callbackUrl: 'https://93.184.216.34/hooks' } });
    expect(response.status).toBe(200);
    expect(response.body.data.callbackUrl).toBe('https://93.184.216.34/hooks');
  });
});
