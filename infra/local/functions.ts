/**
 * Loads the functions of the route table from `functions/{name}.ts` and gives each invocation a
 * Lambda context, as the Lambda service would.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { FUNCTION_DEFAULTS, LAMBDA_SYNC_PAYLOAD_BYTES } from '../../shared/platform.js';
import type { GatewayFunction } from '../../shared/routes.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './environment.js';
import { holdToTableGrants, runAs } from './table-grants.js';

const FUNCTIONS_DIR = fileURLToPath(new URL('../../functions/', import.meta.url));

export type LambdaHandler = (event: never, context: Context) => Promise<unknown>;

/** Invokes a function the way the Lambda service does: one event, a fresh context. */
export type Invoke = (fn: GatewayFunction, event: unknown) => Promise<unknown>;

export const functionFile = (name: string): string => `${FUNCTIONS_DIR}${name}.ts`;

/**
 * Imports a function's module; undefined when its file does not exist. The module parses its
 * configuration when loaded, so the environment must be in place first.
 */
export async function loadHandler(name: string): Promise<LambdaHandler | undefined> {
  const file = functionFile(name);
  if (!existsSync(file)) return undefined;
  const module = (await import(pathToFileURL(file).href)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`functions/${name}.ts does not export a handler function`);
  return module.handler as LambdaHandler;
}

const lambdaStyleOnly = (): never => {
  throw new Error('Callback-style completion is unavailable: return a promise from the handler');
};

export function lambdaContext(fn: GatewayFunction, startedAt = Date.now()): Context {
  const deadline = startedAt + (fn.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds) * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb ?? FUNCTION_DEFAULTS.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: lambdaStyleOnly,
    fail: lambdaStyleOnly,
    succeed: lambdaStyleOnly,
  };
}

/**
 * An `Invoke` over handlers found by `resolve`; a function whose handler is missing fails the
 * invocation, as an integration with no Lambda behind it would, and so does an event larger than
 * Lambda takes, as Lambda refuses it. While a function runs, its DynamoDB calls are held to its
 * route-table grants, as IAM holds them in AWS.
 */
export function invoker(resolve: (name: string) => Promise<LambdaHandler | undefined>): Invoke {
  // Imported on the first invocation, once the functions' environment is in place: the client is
  // the one their modules share. Once only: every dynamic import goes through the module loader.
  let functionsClient: Promise<unknown> | undefined;
  return async (fn, event) => {
    const handler = await resolve(fn.name);
    if (!handler) throw new Error(`Function ${fn.name} is not available: functions/${fn.name}.ts is missing`);
    const payloadBytes = Buffer.byteLength(JSON.stringify(event));
    if (payloadBytes > LAMBDA_SYNC_PAYLOAD_BYTES) {
      throw new Error(`The event for ${fn.name} has ${payloadBytes} bytes; Lambda refuses more than ${LAMBDA_SYNC_PAYLOAD_BYTES}`);
    }
    functionsClient ??= import('../../shared/store/dynamo.js').then(({ dynamoClient }) => holdToTableGrants(dynamoClient));
    await functionsClient;
    return runAs(fn, () => handler(event as never, lambdaContext(fn)));
  };
}
