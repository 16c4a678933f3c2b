/**
 * The demo provider on one machine: an HTTP server on 127.0.0.1 in front of the same request
 * handler as in AWS, its table in DynamoDB Local (created if missing, under an access key id of
 * its own), and timers for waiting work.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, localDynamoClient } from '../../infra/local/dynamodb.js';
import { errorResponse } from '../../shared/http/envelope.js';
import { httpDeliver } from '../../shared/outbound/http-delivery.js';
import { GATEWAY_MESSAGES, MAX_PAYLOAD_BYTES } from '../../shared/platform.js';
import type { LocalSettings } from '../config.js';
import { demoRequestHandler, type DemoRequestHandler } from '../core/http.js';
import type { DemoLog, LogDetails } from '../core/ports.js';
import { EVENT_TIMEOUT_MS } from '../core/records.js';
import { DemoProvider } from '../core/service.js';
import { DEMO_PROVIDER_TABLE } from '../table.js';
import { DynamoDemoStore } from './dynamo-store.js';
import { TimerScheduler } from './timer-scheduler.js';

/** Log lines on standard error: standard output carries the one line that says it is ready. */
export const stderrLog: DemoLog = {
  info: (message, details) => writeLine('info', message, details),
  warn: (message, details) => writeLine('warning', message, details),
  error: (message, details, cause) => writeLine('error', message, details, cause),
};

function writeLine(level: string, message: string, details?: LogDetails, cause?: unknown): void {
  const shown = details === undefined ? '' : ` ${JSON.stringify(details)}`;
  const because = cause === undefined ? '' : `\n${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
  process.stderr.write(`demo-provider ${level}: ${message}${shown}${because}\n`);
}

export interface LocalDemoProvider {
  /** `http://127.0.0.1:{port}`. */
  url: string;
  /** Drops the timers and waits for the jobs running, stops taking requests, and closes the store's client. */
  stop(): Promise<void>;
}

class BodyTooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PAYLOAD_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function serve(handle: DemoRequestHandler, request: IncomingMessage, response: ServerResponse, log: DemoLog): Promise<void> {
  let body: string;
  try {
    body = await readBody(request);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    const tooLarge = errorResponse(413, [{ code: 'payload_too_large', message: GATEWAY_MESSAGES.payloadTooLarge }]);
    response.writeHead(tooLarge.statusCode, { ...tooLarge.headers, connection: 'close' }).end(tooLarge.body);
    return;
  }
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
  const answer = await handle({ method: request.method ?? 'GET', target: request.url ?? '/', headers, body });
  response.writeHead(answer.status, answer.headers).end(answer.body);
  if (answer.status >= 500) log.warn('Answered with a server error', { method: request.method, status: answer.status });
}

export async function startLocalDemoProvider(settings: LocalSettings, log: DemoLog = stderrLog): Promise<LocalDemoProvider> {
  const dynamo = localDynamoClient(settings.dynamodbEndpoint, { accessKeyId: settings.dynamodbAccessKeyId, secretAccessKey: 'unchecked' });
  const server = createServer();
  try {
    await ensureTable(dynamo, settings.tableName, DEMO_PROVIDER_TABLE);
    // Loopback only: nothing on another machine reaches it.
    server.listen(settings.port, '127.0.0.1');
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    server.close();
    dynamo.destroy();
    throw error;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const scheduler = new TimerScheduler((job) => provider.run(job), log);
  const provider: DemoProvider = new DemoProvider({
    secret: settings.secret,
    publicUrl: settings.publicUrl ?? url,
    utrDecisionDelaySeconds: settings.utrDecisionDelaySeconds,
    store: new DynamoDemoStore(DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }), settings.tableName),
    scheduler,
    // One machine: the gateway is on loopback or the local network.
    deliver: httpDeliver({ guard: { httpsOnly: false, targets: 'any' }, timeoutMs: EVENT_TIMEOUT_MS }),
    clock: () => new Date(),
    log,
  });
  const handle = demoRequestHandler(provider, log);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    serve(handle, request, response, log).catch((error: unknown) => {
      log.error('Request not served', { method: request.method }, error);
      response.destroy();
    });
  });

  return {
    url,
    async stop() {
      // Waiting work first: nothing starts once the stop has begun (the status reads recover it).
      await scheduler.stop();
      const closed = once(server, 'close');
      server.close();
      server.closeIdleConnections();
      await closed;
      dynamo.destroy();
    },
  };
}
