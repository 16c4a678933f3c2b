/**
 * The throughput baseline: a bare `node:http` server answering GET /api/v2/invoices/{id} with the
 * very DynamoDB calls the gateway makes for it (the key by its digest, then the invoice, read
 * consistently) on the same DynamoDB Local, and nothing else: no gateway emulation, no
 * authorizer invocation, no middleware. Run as a child process by bench/goals.ts; prints its port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { digestApiKey } from '../shared/domain/merchants/merchants.js';

const { BARE_DYNAMODB_ENDPOINT: endpoint, BARE_API_KEYS_TABLE: keysTable, BARE_INVOICES_TABLE: invoicesTable } = process.env;
if (!endpoint || !keysTable || !invoicesTable) throw new Error('BARE_DYNAMODB_ENDPOINT, BARE_API_KEYS_TABLE and BARE_INVOICES_TABLE are required');

// Credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, which bench/load.ts sets.
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1' }));

const answer = (status: number, body: unknown) => ({ status, text: JSON.stringify(body) });

async function respond(path: string, apiKey: string | undefined): Promise<{ status: number; text: string }> {
  const id = /^\/api\/v2\/invoices\/([^/]+)$/.exec(path)?.[1];
  if (!id) return answer(404, { success: false, errors: [{ code: 'not_found', message: 'Route not found' }] });
  const { Item: key } = apiKey ? await documents.send(new GetCommand({ TableName: keysTable, Key: { digest: digestApiKey(apiKey) } })) : { Item: undefined };
  if (key?.status !== 'active') return answer(401, { success: false, errors: [{ code: 'unauthorized', message: 'Unauthorized' }] });
  const { Item: invoice } = await documents.send(new GetCommand({ TableName: invoicesTable, Key: { id }, ConsistentRead: true }));
  if (!invoice || invoice.merchantId !== key.merchantId) return answer(404, { success: false, errors: [{ code: 'not_found', message: 'Invoice not found' }] });
  return answer(200, { success: true, data: invoice });
}

const server = createServer((request, response) => {
  const apiKey = request.headers['x-api-key'];
  respond(request.url ?? '/', typeof apiKey === 'string' ? apiKey : undefined).then(
    ({ status, text }) => response.writeHead(status, { 'content-type': 'application/json' }).end(text),
    () => response.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
