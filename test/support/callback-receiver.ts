/**
 * A merchant's callback endpoint for end-to-end tests: a real HTTP server on loopback that
 * records every request it gets, byte for byte, and answers each with the status `answer` picks.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { eventually } from './wait.js';

export interface ReceivedCallback {
  /** Arrival, epoch milliseconds. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (UTF-8). */
  body: string;
  /** The body parsed, or undefined when it is not JSON. */
  json: any;
  webhookId: string;
  /** How many requests with this `webhook-id` had arrived, this one included. */
  attempt: number;
  /** The status the receiver answered with. */
  status: number;
}

/** The status to answer a callback with; `attempt` counts per `webhook-id`, from 1. */
export type CallbackAnswer = (callback: Omit<ReceivedCallback, 'status'>) => number;

export interface CallbackReceiver {
  /** `http://127.0.0.1:{port}/callbacks`. */
  url: string;
  /** Every request so far, in arrival order. */
  readonly received: ReceivedCallback[];
  /** Decides each answer; 200 unless replaced. */
  answer: CallbackAnswer;
  /** Requests with this `webhook-id`. */
  byWebhookId(webhookId: string): ReceivedCallback[];
  /** Waits for a request the receiver answered with a 2xx and `predicate` accepts. */
  waitForDelivery(predicate: (callback: ReceivedCallback) => boolean, timeoutMs?: number): Promise<ReceivedCallback>;
  close(): Promise<void>;
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

export async function startCallbackReceiver(answer: CallbackAnswer = () => 200): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const receiver: CallbackReceiver = {
    url: '',
    received,
    answer,
    byWebhookId: (webhookId) => received.filter((callback) => callback.webhookId === webhookId),
    waitForDelivery: (predicate, timeoutMs = 15_000) =>
      eventually(() => received.find((callback) => callback.status >= 200 && callback.status < 300 && predicate(callback)), { timeoutMs, what: 'a delivered callback' }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const webhookId = header(request.headers, 'webhook-id');
      const arrival = {
        at: Date.now(),
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
        json,
        webhookId,
        attempt: received.filter((callback) => callback.webhookId === webhookId).length + 1,
      };
      let status: number;
      try {
        status = receiver.answer(arrival);
      } catch {
        status = 500;
      }
      received.push({ ...arrival, status });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
  return receiver;
}

/**
 * Whether a receiver holding `secret` accepts the callback: its signature checked as any Standard
 * Webhooks library checks it, which takes any one of several space-separated signatures.
 */
export function verifiesWith(secret: string, callback: ReceivedCallback): boolean {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, header(callback.headers, name)]));
  try {
    new Webhook(secret).verify(callback.body, headers);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}
