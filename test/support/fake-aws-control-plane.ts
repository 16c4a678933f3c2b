/**
 * The AWS services the merchant CLI's `--aws` mode reaches besides DynamoDB, answered on a local
 * port: the stage's stacks' outputs (CloudFormation DescribeStacks, a stack at a time: the data
 * stack names the tables, the vault key and the treasury's keys, the API stack the usage plan), the
 * usage plan's keys (API Gateway), data keys and the treasury keys' public keys (KMS, each a
 * secp256k1 key made here), and the stage's SSM parameters (GetParameters). The outputs name the
 * test run's tables, so the merchants land in its DynamoDB Local. While it runs, the SDK clients
 * find it through `AWS_ENDPOINT_URL_<SERVICE>`.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayStackName, pascalCase, STACK_CONCERNS } from '../../infra/aws/construct-ids.js';
import { parseSecp256k1Spki, TREASURY_FAMILIES, treasuryAddress, type TreasuryFamily } from '../../shared/domain/payouts/index.js';
import type { Stage } from '../../shared/stage.js';
import type { TableKey } from '../../shared/store/tables.js';

export interface FakeApiGatewayKey {
  id: string;
  name: string;
  customerId: string;
  usagePlanId?: string;
}

export interface FakeAwsControlPlane {
  /** The usage plan's keys as API Gateway holds them: created, added to the plan, not yet deleted. */
  readonly apiKeys: FakeApiGatewayKey[];
  /** The treasury's address of each family, as the keys made here derive it on the stage. */
  readonly treasuryAddresses: Record<TreasuryFamily, string>;
  /** The SSM parameters by name; set one for GetParameters to answer it. */
  readonly parameters: Map<string, string>;
  close(): Promise<void>;
}

const ENDPOINT_VARIABLES = ['AWS_ENDPOINT_URL_CLOUDFORMATION', 'AWS_ENDPOINT_URL_API_GATEWAY', 'AWS_ENDPOINT_URL_KMS', 'AWS_ENDPOINT_URL_SSM'] as const;

const USAGE_PLAN_ID = 'usage-plan-1';

async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

const xmlEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** DescribeStacks in the query protocol's XML: one stack, with its outputs. */
function describeStacks(stackName: string, outputs: Record<string, string>): string {
  const members = Object.entries(outputs)
    .map(([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${xmlEscape(value)}</OutputValue></member>`)
    .join('');
  return `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2025-01-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></DescribeStacksResponse>`;
}

export async function startFakeAwsControlPlane(stage: Stage, tables: Record<TableKey, string>): Promise<FakeAwsControlPlane> {
  const apiKeys: FakeApiGatewayKey[] = [];
  const parameters = new Map<string, string>();
  /** Each treasury key's ARN and its public key as KMS gives it (DER SubjectPublicKeyInfo). */
  const treasuryKeys = TREASURY_FAMILIES.map((family) => ({
    family,
    arn: `arn:aws:kms:us-east-1:111122223333:key/treasury-${family}`,
    spki: generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ type: 'spki', format: 'der' }),
  }));
  const data = {
    Stage: stage,
    ...Object.fromEntries(Object.entries(tables).map(([key, name]) => [`Table${pascalCase(key)}`, name])),
    VaultKeyArn: 'arn:aws:kms:us-east-1:111122223333:key/vault',
    ...Object.fromEntries(treasuryKeys.map(({ family, arn }) => [`Treasury${pascalCase(family)}KeyArn`, arn])),
  };
  /** Each stack of the stage with its outputs. */
  const stacks = new Map<string, Record<string, string>>(STACK_CONCERNS.map((concern) => [gatewayStackName(stage, concern), {}]));
  stacks.set(gatewayStackName(stage, 'data'), data);
  stacks.set(gatewayStackName(stage, 'api'), { UsagePlanId: USAGE_PLAN_ID });
  const json = (response: ServerResponse, status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const url = new URL(request.url ?? '/', 'http://aws');
    const target = request.headers['x-amz-target'];
    if (target === 'TrentService.GenerateDataKey') {
      return json(response, 200, { KeyId: data.VaultKeyArn, Plaintext: randomBytes(32).toString('base64'), CiphertextBlob: randomBytes(64).toString('base64') });
    }
    if (target === 'TrentService.GetPublicKey') {
      const { KeyId } = JSON.parse(body) as { KeyId: string };
      const key = treasuryKeys.find(({ arn }) => arn === KeyId);
      if (!key) return json(response, 400, { __type: 'NotFoundException', message: `Key '${KeyId}' does not exist` });
      return json(response, 200, { KeyId, PublicKey: key.spki.toString('base64'), KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['ECDSA_SHA_256'] });
    }
    if (target === 'AmazonSSM.GetParameters') {
      const { Names } = JSON.parse(body) as { Names: string[] };
      const found = Names.filter((name) => parameters.has(name));
      return json(response, 200, {
        Parameters: found.map((name) => ({ Name: name, Type: 'String', Value: parameters.get(name), Version: 1 })),
        InvalidParameters: Names.filter((name) => !parameters.has(name)),
      });
    }
    const query = new URLSearchParams(body);
    if (query.get('Action') === 'DescribeStacks') {
      const stackName = query.get('StackName') ?? '';
      const outputs = stacks.get(stackName);
      if (!outputs) {
        const error = `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${xmlEscape(stackName)} does not exist</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
        return response.writeHead(400, { 'content-type': 'text/xml' }).end(error);
      }
      return response.writeHead(200, { 'content-type': 'text/xml' }).end(describeStacks(stackName, outputs));
    }
    if (request.method === 'POST' && url.pathname === '/apikeys') {
      const { name, customerId } = JSON.parse(body) as { name: string; customerId: string };
      const key = { id: randomUUID(), name, customerId };
      apiKeys.push(key);
      return json(response, 201, { id: key.id, name, enabled: true });
    }
    const planKey = /^\/usageplans\/([^/]+)\/keys$/.exec(url.pathname);
    if (request.method === 'POST' && planKey) {
      const { keyId } = JSON.parse(body) as { keyId: string };
      const key = apiKeys.find((candidate) => candidate.id === keyId);
      if (!key) return json(response, 404, { message: `No API key ${keyId}` });
      key.usagePlanId = decodeURIComponent(planKey[1]!);
      return json(response, 201, { id: keyId, type: 'API_KEY' });
    }
    if (request.method === 'GET' && url.pathname === '/apikeys') {
      const name = url.searchParams.get('name') ?? '';
      // API Gateway's JSON names the list `item`; the SDK reads it into `items`.
      return json(response, 200, { item: apiKeys.filter((key) => key.name.startsWith(name)).map(({ id, name }) => ({ id, name })) });
    }
    const deleted = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'DELETE' && deleted) {
      const index = apiKeys.findIndex((key) => key.id === decodeURIComponent(deleted[1]!));
      if (index >= 0) apiKeys.splice(index, 1);
      return response.writeHead(202).end();
    }
    json(response, 400, { message: `Not faked: ${request.method} ${request.url} ${target ?? ''}` });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const previous = ENDPOINT_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const name of ENDPOINT_VARIABLES) process.env[name] = endpoint;
  return {
    apiKeys,
    treasuryAddresses: Object.fromEntries(treasuryKeys.map(({ family, spki }) => [family, treasuryAddress(family, parseSecp256k1Spki(spki), stage)])) as Record<TreasuryFamily, string>,
    parameters,
    close: async () => {
      for (const [name, value] of previous) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
