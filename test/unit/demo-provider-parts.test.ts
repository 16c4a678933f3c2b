/**
 * The demo provider's parts around its core: its configuration, its page catalogues, API
 * Gateway's events as its requests, and its two schedulers (SQS's delays, the local timers).
 */
import type { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES, PLACEHOLDER } from '../../shared/checkout/language.js';
import { requestOfEvent, resultOfResponse } from '../../demo-provider/adapters/api-gateway-event.js';
import { MAX_DELAY_SECONDS, SqsScheduler } from '../../demo-provider/adapters/sqs-scheduler.js';
import { TimerScheduler } from '../../demo-provider/adapters/timer-scheduler.js';
import { parseLambdaSettings, parseLocalSettings } from '../../demo-provider/config.js';
import type { DemoLog, Job } from '../../demo-provider/core/ports.js';
import { DEMO_CATALOGUES } from '../../demo-provider/i18n/catalogues.js';
import { en } from '../../demo-provider/i18n/en.js';
import { FakeClock, newProviderSecret } from '../support/demo-provider.js';
import { eventually } from '../support/wait.js';

const ACCESS_KEY_ID = 'a'.repeat(32);
const LOCAL = { DEMO_PROVIDER_SECRET: newProviderSecret(), DEMO_PROVIDER_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID: ACCESS_KEY_ID };
const LAMBDA = {
  DEMO_PROVIDER_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:DemoProviderSecret-AbCdEf',
  DEMO_PROVIDER_PUBLIC_URL: 'https://api.example/demo/demo-provider/',
  DEMO_PROVIDER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/demo-provider',
  DEMO_PROVIDER_TABLE: 'DemoProviderTable-1A2B',
};

describe('the configuration', () => {
  it('on one machine: one default per setting, the secret and the store required', () => {
    expect(parseLocalSettings(LOCAL)).toEqual({
      utrDecisionDelaySeconds: 2,
      tableName: 'demo-provider',
      port: 0,
      secret: LOCAL.DEMO_PROVIDER_SECRET,
      publicUrl: undefined,
      dynamodbEndpoint: 'http://127.0.0.1:8000',
      dynamodbAccessKeyId: ACCESS_KEY_ID,
    });
    expect(parseLocalSettings({ ...LOCAL, PORT: '4100', GATEWAY_PROVIDER_DELAY_S: '0.5', DEMO_PROVIDER_TABLE: 'mine', DEMO_PROVIDER_PUBLIC_URL: 'http://localhost:4100/' })).toMatchObject({
      port: 4100,
      utrDecisionDelaySeconds: 0.5,
      tableName: 'mine',
      publicUrl: 'http://localhost:4100',
    });
    expect(() => parseLocalSettings({})).toThrow(/DEMO_PROVIDER_SECRET .*DEMO_PROVIDER_DYNAMODB_ENDPOINT .*DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID/);
  });

  it('refuses a secret that is not a provider secret, without repeating it', () => {
    const secret = 'whsec_tooShortToSign';
    let message = '';
    try {
      parseLocalSettings({ ...LOCAL, DEMO_PROVIDER_SECRET: secret });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid environment: DEMO_PROVIDER_SECRET/);
    expect(message).not.toContain('tooShort');
  });

  it('in AWS: the secret by its ARN, the public URL and the queue', () => {
    expect(parseLambdaSettings(LAMBDA)).toEqual({
      utrDecisionDelaySeconds: 2,
      tableName: 'DemoProviderTable-1A2B',
      secretArn: LAMBDA.DEMO_PROVIDER_SECRET_ARN,
      publicUrl: 'https://api.example/demo/demo-provider',
      queueUrl: LAMBDA.DEMO_PROVIDER_QUEUE_URL,
    });
    expect(() => parseLambdaSettings({ ...LAMBDA, DEMO_PROVIDER_SECRET_ARN: 'my-secret', DEMO_PROVIDER_PUBLIC_URL: 'ftp://x' })).toThrow(/DEMO_PROVIDER_SECRET_ARN .*DEMO_PROVIDER_PUBLIC_URL/);
  });
});

describe("the page's catalogues", () => {
  const placeholders = (text: string): string[] =>
    text
      .split(PLACEHOLDER)
      .filter((_, index) => index % 2 === 1)
      .sort();

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s has exactly the keys and placeholders English has, each translated', (code) => {
    const catalogue: Record<string, string> = DEMO_CATALOGUES[code];
    expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
    for (const [key, english] of Object.entries(en)) {
      expect(placeholders(catalogue[key]!), key).toEqual(placeholders(english));
      expect(catalogue[key], `${key} is left in English`).not.toBe(english);
    }
  });
});

describe('an API Gateway proxy event', () => {
  const event = (fields: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    ({
      httpMethod: 'GET',
      path: '/demo-provider/pay/pay_1',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      body: null,
      isBase64Encoded: false,
      ...fields,
    }) as APIGatewayProxyEvent;

  it('is the request below /demo-provider, with its query, lower-case headers and the body as sent', () => {
    expect(
      requestOfEvent(
        event({
          httpMethod: 'POST',
          path: '/demo-provider/payments/pay_1/utr',
          headers: { 'Webhook-Id': 'utr:1', 'Accept-Language': 'tr' },
          multiValueHeaders: { 'Webhook-Id': ['utr:1'], 'Accept-Language': ['tr'] },
          multiValueQueryStringParameters: { lang: ['ur'], x: ['1', '2'] },
          body: '{"utr":"412345678901"}',
        }),
        '/demo-provider',
      ),
    ).toEqual({ method: 'POST', target: '/payments/pay_1/utr?lang=ur&x=1&x=2', headers: { 'webhook-id': 'utr:1', 'accept-language': 'tr' }, body: '{"utr":"412345678901"}' });
  });

  it('has its base64 body decoded', () => {
    const body = 'outcome=confirmed&lang=hi';
    expect(requestOfEvent(event({ httpMethod: 'POST', body: Buffer.from(body).toString('base64'), isBase64Encoded: true }), '/demo-provider').body).toBe(body);
  });

  it('and a response as a proxy result', () => {
    expect(resultOfResponse({ status: 303, headers: { location: 'https://x' }, body: '' })).toEqual({ statusCode: 303, headers: { location: 'https://x' }, body: '' });
  });
});

describe('the SQS scheduler', () => {
  const job: Job = { kind: 'decide-utr', providerReference: 'pay_1' };
  const fakeSqs = () => {
    const sent: SendMessageCommand['input'][] = [];
    return { sent, client: { send: async (command: SendMessageCommand) => void sent.push(command.input) } as never };
  };

  it('holds a job back by its delay, 15 minutes at most', async () => {
    const clock = new FakeClock();
    const { sent, client } = fakeSqs();
    const scheduler = new SqsScheduler(client, 'https://sqs.example/q', clock.read);
    await scheduler.schedule(job, new Date(clock.read().getTime() + 2_000));
    await scheduler.schedule(job, new Date(clock.read().getTime() + 3 * 3600_000));
    await scheduler.schedule(job, new Date(clock.read().getTime() - 5_000));
    expect(sent.map((input) => input.DelaySeconds)).toEqual([2, MAX_DELAY_SECONDS, 0]);
    expect(JSON.parse(sent[0]!.MessageBody!)).toEqual({ job, dueAt: new Date(clock.read().getTime() + 2_000).toISOString() });
  });

  it('runs a job that arrives due, and sends on one that arrives early for its next hop', async () => {
    const clock = new FakeClock();
    const { sent, client } = fakeSqs();
    const scheduler = new SqsScheduler(client, 'https://sqs.example/q', clock.read);
    const ran: Job[] = [];
    const later = new Date(clock.read().getTime() + 3600_000);
    await scheduler.receive(JSON.stringify({ job, dueAt: later.toISOString() }), async (j) => void ran.push(j));
    expect(ran).toEqual([]);
    expect(sent.map((input) => [JSON.parse(input.MessageBody!).dueAt, input.DelaySeconds])).toEqual([[later.toISOString(), MAX_DELAY_SECONDS]]);
    clock.advance(3600);
    await scheduler.receive(sent[0]!.MessageBody!, async (j) => void ran.push(j));
    expect(ran).toEqual([job]);
  });

  it("carries each of the core's jobs: a UTR's or a refund's decision, an event's next attempt", async () => {
    const clock = new FakeClock();
    const { sent, client } = fakeSqs();
    const scheduler = new SqsScheduler(client, 'https://sqs.example/q', clock.read);
    const jobs: Job[] = [job, { kind: 'decide-refund', providerReference: 'rf_1' }, { kind: 'deliver-event', providerReference: 'rf_1', attempt: 2, firstAttemptAt: clock.read().toISOString() }];
    for (const each of jobs) await scheduler.schedule(each, clock.read());
    const ran: Job[] = [];
    for (const { MessageBody } of sent) await scheduler.receive(MessageBody!, async (j) => void ran.push(j));
    expect(ran).toEqual(jobs);
  });

  it('refuses a message that is not one of its jobs, so that it ends in the dead-letter queue', async () => {
    const { client } = fakeSqs();
    const scheduler = new SqsScheduler(client, 'https://sqs.example/q', () => new Date());
    await expect(scheduler.receive('{"job":{"kind":"pay-everyone"},"dueAt":"2026-01-01T00:00:00.000Z"}', async () => undefined)).rejects.toThrow();
  });
});

describe('the timer scheduler', () => {
  const quietLog: DemoLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

  it('runs each job when due, and on stop drops those not yet due and waits for those running', async () => {
    const ran: string[] = [];
    let finishRunning: () => void = () => undefined;
    const scheduler = new TimerScheduler(async (job) => {
      ran.push(job.providerReference);
      if (job.providerReference === 'slow') await new Promise<void>((resolve) => (finishRunning = resolve));
    }, quietLog);
    await scheduler.schedule({ kind: 'decide-utr', providerReference: 'slow' }, new Date());
    await scheduler.schedule({ kind: 'decide-utr', providerReference: 'later' }, new Date(Date.now() + 60_000));
    await eventually(() => ran.includes('slow'));
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    finishRunning();
    await stopping;
    expect(ran).toEqual(['slow']);
  });
});
