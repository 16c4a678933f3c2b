/**
 * Runs generated requests through the local API Gateway emulation over HTTP and checks each
 * answer: never a 5xx, an envelope whose first code matches the status (docs/merchant-guide.md#the-envelope) wherever
 * one is due, an `x-request-id`, and for a refused request (4xx) no item changed. Which request
 * changed what is told by the tables' contents before and after each batch, attributed through
 * the writes each request's functions made (an AsyncLocalStorage tag on the DynamoDB client).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ERROR_STATUS } from '../../../shared/errors.js';
import { TABLES, type TableDefinition, type TableKey } from '../../../shared/store/tables.js';
import { gatewayServer, type ApiGateway } from '../../../infra/local/api-gateway.js';
import type { RuntimeLog } from '../../../infra/local/log.js';
import type { WireRequest } from './requests.js';

/** The header that tells which generated request a function invocation serves. */
export const FUZZ_TAG_HEADER = 'x-fuzz-tag';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Writes made on behalf of each tagged request: `table|key` of every item it put, updated or deleted. */
export class WriteLog {
  private readonly tags = new AsyncLocalStorage<string>();
  private readonly written = new Map<string, Set<string>>();

  constructor(private readonly tableKeys: Map<string, TableKey>) {}

  /** Runs `fn` with every DynamoDB write it causes recorded under `tag`. */
  run<T>(tag: string | undefined, fn: () => T): T {
    return tag === undefined ? fn() : this.tags.run(tag, fn);
  }

  /** Records the writes of `client` (the functions' shared client) made inside `run`. */
  instrument(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const tag = this.tags.getStore();
        // Recorded before the call: a write whose answer is lost may still have been applied.
        if (tag !== undefined) for (const item of this.itemsWritten(context.commandName ?? '', args.input as Record<string, any>)) this.add(tag, item);
        return next(args);
      },
      { step: 'initialize', name: 'fuzzWriteLog' },
    );
  }

  itemsOf(tag: string): Set<string> {
    return this.written.get(tag) ?? new Set();
  }

  forget(tag: string): void {
    this.written.delete(tag);
  }

  private add(tag: string, item: string): void {
    let items = this.written.get(tag);
    if (!items) this.written.set(tag, (items = new Set()));
    items.add(item);
  }

  private itemsWritten(command: string, input: Record<string, any>): string[] {
    const one = (operation: Record<string, any> | undefined): string[] => {
      if (!operation?.TableName) return [];
      const key = operation.Item ?? operation.Key;
      return key ? [this.itemId(operation.TableName, key)] : [];
    };
    if (command.startsWith('TransactWrite')) return (input.TransactItems ?? []).flatMap((item: Record<string, any>) => [...one(item.Put), ...one(item.Update), ...one(item.Delete)]);
    if (command.startsWith('BatchWrite')) {
      return Object.entries(input.RequestItems ?? {}).flatMap(([table, requests]) =>
        (requests as Array<Record<string, any>>).flatMap((request) => one({ TableName: table, ...(request.PutRequest ?? {}), ...(request.DeleteRequest ?? {}) })),
      );
    }
    if (/^(Put|Update|Delete)/.test(command)) return one(input);
    return [];
  }

  /** `table|partition|sort` from an item or key, marshalled or not. */
  itemId(tableName: string, item: Record<string, any>): string {
    const key = this.tableKeys.get(tableName);
    const definition: TableDefinition | undefined = key ? TABLES[key] : undefined;
    const value = (attribute: { name: string } | undefined) => {
      if (!attribute) return '';
      const raw = item[attribute.name];
      return String(raw?.S ?? raw?.N ?? raw ?? '');
    };
    return `${tableName}|${value(definition?.partitionKey)}|${value(definition?.sortKey)}`;
  }
}

/** Every item of every table, by `table|key`, as JSON. */
export async function readTables(documentClient: DynamoDBDocumentClient, tableNames: string[], log: WriteLog): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  await Promise.all(
    tableNames.map(async (TableName) => {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(new ScanCommand({ TableName, ConsistentRead: true, ExclusiveStartKey }));
        for (const item of page.Items ?? []) items.set(log.itemId(TableName, item), JSON.stringify(item, Object.keys(item).sort()));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
  return items;
}

/** Items added, removed or changed between two reads. */
export function changedItems(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed = [...after].filter(([id, item]) => before.get(id) !== item).map(([id]) => id);
  return [...changed, ...[...before.keys()].filter((id) => !after.has(id))];
}

/** The local runtime's HTTP server in front of `gateway`, on a free loopback port. */
export async function startFuzzServer(gateway: ApiGateway, log: RuntimeLog): Promise<{ url: URL; close(): Promise<void> }> {
  const server = gatewayServer(gateway, log);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolveClose) => server.close(resolveClose));
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/**
 * Sends one request as given: every header pair (repeats included), the body as bytes. A kept-alive
 * socket the server closed for idleness just as the request went out fails with ECONNRESET before
 * the server read anything; the request is then sent once more on a new socket, as Node's
 * documentation of `request.reusedSocket` advises.
 */
export async function send(url: URL, request: WireRequest, tag: string): Promise<Answer> {
  try {
    return await sendOnce(url, request, tag);
  } catch (error) {
    if ((error as { staleSocket?: boolean }).staleSocket) return sendOnce(url, request, tag);
    throw error;
  }
}

function sendOnce(url: URL, request: WireRequest, tag: string): Promise<Answer> {
  return new Promise((resolveAnswer, rejectAnswer) => {
    // Repeated names go out as repeated headers; as an object, so that Node frames the body by its length.
    const headers: Record<string, string[]> = { [FUZZ_TAG_HEADER]: [tag], 'content-length': [String(request.body.length)] };
    for (const [name, value] of request.headers) (headers[name.toLowerCase()] ??= []).push(value);
    const outgoing = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', rejectAnswer);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => rejectAnswer(outgoing.reusedSocket && error.code === 'ECONNRESET' ? Object.assign(error, { staleSocket: true }) : error));
    outgoing.end(request.body);
  });
}

const isEnvelopeError = (item: unknown): item is { code: keyof typeof ERROR_STATUS; message: string; field?: string } => {
  if (typeof item !== 'object' || item === null) return false;
  const { code, message, field, ...rest } = item as Record<string, unknown>;
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code) && typeof message === 'string' && (field === undefined || typeof field === 'string') && Object.keys(rest).length === 0;
};

/**
 * What is wrong with an answer; undefined when nothing is. Errors of `/api/v2` are always the
 * envelope, and so is success where `successIsEnvelope`; any other JSON answer must be one too.
 */
export function answerProblem(target: string, answer: Answer, successIsEnvelope: boolean): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId === '') return 'no x-request-id header';
  const isJson = /^application\/json\b/i.test(String(answer.headers['content-type'] ?? ''));
  if (answer.status < 400 && !successIsEnvelope) return undefined;
  if (!target.startsWith('/api/v2') && !isJson) return undefined;
  if (!isJson) return `content-type ${String(answer.headers['content-type'])} is not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `the body is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`;
  }
  const envelope = body as Record<string, unknown>;
  const keys = Object.keys(envelope ?? {})
    .sort()
    .join(',');
  if (answer.status < 400) {
    return envelope?.success === true && keys === 'data,success' ? undefined : `a ${answer.status} that is not the success envelope: ${JSON.stringify(body).slice(0, 300)}`;
  }
  const errors = envelope?.errors;
  if (envelope?.success !== false || keys !== 'errors,success' || !Array.isArray(errors) || errors.length === 0 || !errors.every(isEnvelopeError)) {
    return `a ${answer.status} that is not the error envelope: ${JSON.stringify(body).slice(0, 300)}`;
  }
  const first = errors[0] as { code: keyof typeof ERROR_STATUS };
  if (ERROR_STATUS[first.code] !== answer.status) return `status ${answer.status} with code ${first.code} (${ERROR_STATUS[first.code]})`;
  return undefined;
}
