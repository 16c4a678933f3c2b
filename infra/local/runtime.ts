/**
 * The whole AWS stack on one machine (docs/operations.md#local-configuration): DynamoDB Local, a local SQS, the API
 * Gateway emulation in front of the same handlers, the schedules as timers, and the queue
 * functions fed by pollers as Lambda's event source mappings feed them.
 */
import { chmod, mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { functionsForStage, type AuthorizerFunction, type GatewayFunction, type HttpRoute, type QueueFunction, type ScheduledFunction } from '../../shared/routes.js';
import { reservedConcurrencyOf } from '../../shared/platform.js';
import { ApiGateway, gatewayServer } from './api-gateway.js';
import { reportFileServer } from './report-files.js';
import { ensureDemoMerchant, type DemoMerchant } from './demo-merchant.js';
import { ensureDemoOwner, type DemoOwner } from './demo-owner.js';
import { startLocalDemoProvider } from './demo-provider-process.js';
import { ensureTables, startDynamoDbLocal, stopLeftoverDynamoDbLocal } from './dynamodb.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';
import { type TreasuryAddresses, treasuryAddresses } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { handlerEnvironment, localCredentials, localTableNames, localVaultPaths, LOCAL_REGION, LOCAL_STAGE, type LocalSettings } from './environment.js';
import { invoker, loadHandler, type LambdaHandler } from './functions.js';
import { consoleLog, type RuntimeLog } from './log.js';
import { startQueueConsumers, type QueueSource } from './queue-consumer.js';
import { chainEndpointsOf, readRunningStack, readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from './runtime-info.js';
import { localEverySeconds, startScheduler } from './scheduler.js';
import { connectLocalSqs, localCallbackQueueUrls, localQueueArn, localQueues, localQueueUrls, localSqsClient, startLocalSqs, watchQueueRestarts } from './sqs.js';

/** How often a queue server the runtime did not start is checked for a restart. */
const QUEUE_WATCH_MS = 2_000;

/** How long requests in flight may take to finish once the runtime stops. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface LocalGatewayOptions extends LocalSettings {
  log?: RuntimeLog;
}

export interface LocalGateway {
  baseUrl: string;
  /** The demo provider's URL; undefined when GATEWAY_PROVIDERS names the providers instead. */
  demoProviderUrl?: string;
  dataDir: string;
  demoMerchant: DemoMerchant;
  /** The demo merchant's dashboard owner and its sign-in (demo only). */
  demoOwner: DemoOwner;
  /** The treasury's address per family, its keys made on the first start (docs/operations.md#the-treasury). */
  treasury: TreasuryAddresses;
  /** Stops everything it started, Java included; resolves once all of it has stopped. */
  stop(): Promise<void>;
}

/** What has been started so far, stopped in reverse order, whatever fails on the way. */
class Teardown {
  private readonly steps: Array<() => unknown> = [];

  constructor(private readonly log: RuntimeLog) {}

  add(step: () => unknown): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.log.error('A part of the local gateway did not stop cleanly', error);
      }
    }
  }
}

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(force);
}

/** Loads every function whose file exists; the others are reported and left out. */
async function loadHandlers(functions: readonly GatewayFunction[], log: RuntimeLog): Promise<Map<string, LambdaHandler>> {
  const handlers = new Map<string, LambdaHandler>();
  for (const fn of functions) {
    const handler = await loadHandler(fn.name);
    if (handler) handlers.set(fn.name, handler);
    else log.warn(`functions/${fn.name}.ts does not exist; ${fn.name} is not available`);
  }
  return handlers;
}

/**
 * Starts the stack and resolves once it serves. Once per process: the function modules and the
 * shared DynamoDB client take their settings from the environment when they first load.
 */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  const log = options.log ?? consoleLog;
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // A directory made by an earlier version, or by hand, is closed too.
  await chmod(dataDir, 0o700);
  const running = await readRunningStack(dataDir);
  // Two DynamoDB Locals on one database file would corrupt it.
  if (running) throw new Error(`A local gateway (pid ${running.pid}) already serves from ${dataDir} at ${running.baseUrl}`);
  const dynamoDir = join(dataDir, 'dynamodb');
  const dynamodbCredentials = await localCredentials(dataDir);
  const leftover = (await readRuntimeInfo(dataDir))?.dynamodbPid;
  if (leftover !== undefined && options.dynamodbEndpoint === undefined && (await stopLeftoverDynamoDbLocal(leftover, dynamoDir))) {
    log.warn(`The last run did not stop cleanly; stopped the DynamoDB Local (pid ${leftover}) it left running on ${dynamoDir}`);
  }

  const teardown = new Teardown(log);
  try {
    // Requests that arrive while the functions load wait for them, as during a cold start.
    let gatewayReady!: (gateway: ApiGateway) => void;
    let gatewayFailed!: (reason: unknown) => void;
    const gateway = new Promise<ApiGateway>((resolveGateway, rejectGateway) => {
      gatewayReady = resolveGateway;
      gatewayFailed = rejectGateway;
    });
    gateway.catch(() => undefined);
    const server = gatewayServer(gateway, log, reportFileServer(localVaultPaths(dataDir)));
    // First, so that a port in use fails the start before Java is started.
    const port = await listen(server, options.port).catch((error: unknown) => {
      throw new Error(`Could not listen on port ${options.port}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const { dynamodbEndpoint, sqsEndpoint } = options;
    // What it is starting, as it goes: Java and the functions' first load take a while on a busy machine.
    log.info(dynamodbEndpoint ? `Using DynamoDB at ${dynamodbEndpoint}` : 'Starting DynamoDB Local');
    log.info(sqsEndpoint ? `Using the queue server at ${sqsEndpoint}` : 'Starting the queue server');
    const [dynamo, sqs] = await Promise.allSettled([
      dynamodbEndpoint ? Promise.resolve({ endpoint: dynamodbEndpoint, pid: undefined, stop: async () => undefined }) : startDynamoDbLocal({ dataDir: dynamoDir, credentials: dynamodbCredentials }),
      sqsEndpoint ? connectLocalSqs(sqsEndpoint) : startLocalSqs(),
    ]);
    if (dynamo.status === 'fulfilled') teardown.add(() => dynamo.value.stop());
    if (sqs.status === 'fulfilled') teardown.add(() => sqs.value.stop());
    // Added after the stores, so it closes before them: requests in flight still reach them.
    teardown.add(() => closeServer(server));
    teardown.add(() => gatewayFailed(new Error('The local gateway stopped while starting')));
    if (dynamo.status === 'rejected') throw dynamo.reason;
    if (sqs.status === 'rejected') throw sqs.reason;

    const baseUrl = `http://localhost:${port}`;
    log.info(options.providers ? 'Using the payment providers GATEWAY_PROVIDERS names' : 'Starting the demo provider');
    // The demo provider, a service of its own (docs/operations.md#payment-providers), unless the operator names the providers.
    const demoProvider = options.providers
      ? undefined
      : await startLocalDemoProvider({
          dataDir,
          dynamodbEndpoint: dynamo.value.endpoint,
          delaySeconds: options.providerDelaySeconds,
          limits: options.demoProviderLimits,
          onLine: (line) => log.info(`demo provider: ${line}`),
        });
    if (demoProvider) teardown.add(() => demoProvider.process.stop());
    const tables = localTableNames();
    const services = {
      publicBaseUrl: baseUrl,
      dynamodbEndpoint: dynamo.value.endpoint,
      dynamodbCredentials,
      sqsEndpoint: sqs.value.endpoint,
      queueEnvironment: sqs.value.queueEnvironment,
      dataDir,
      tables,
      providers: options.providers ?? demoProvider!.providers,
    };
    // Before the shared store modules load: they and the functions read it at load.
    Object.assign(process.env, handlerEnvironment(services, options));
    const [{ dynamoClient, documentClient }, { DynamoMerchantStore }, { DynamoOutboxStore }, { DynamoWalletStore }, { dynamoDashboardAccess }] = await Promise.all([
      import('../../shared/store/dynamo.js'),
      import('../../shared/store/merchants.js'),
      import('../../shared/store/outbox.js'),
      import('../../shared/store/wallets.js'),
      import('../../shared/store/dashboard-access.js'),
    ]);

    await ensureTables(dynamoClient, tables);
    // A data directory from before the chain watchers' address index: what an operator runs once in AWS (backfill-addresses).
    const wallets = new DynamoWalletStore(documentClient, tables.wallets);
    if (!(await wallets.ownersIndexed())) {
      const { customers, written } = await wallets.backfillOwners();
      log.info(`Indexed the addresses of ${customers} customer wallets for the chain watchers (${written} owner items written)`);
    }
    const vaultKeys = new KeyFileDataKeySource(localVaultPaths(dataDir).keyFile);
    const secrets = new CallbackSecretVault(vaultKeys);
    const demoMerchant = await ensureDemoMerchant(new DynamoMerchantStore(documentClient, tables), secrets, dataDir, {
      apiKey: options.demoApiKey,
      callbackUrl: options.demoCallbackUrl,
      callbackSecret: options.demoCallbackSecret,
    });
    const demoOwner = await ensureDemoOwner(dynamoDashboardAccess(documentClient, tables, vaultKeys), demoMerchant.merchantId, dataDir);
    // Reading each family's public key makes its key file on the first start (decisions: the treasury's keys locally).
    const treasury = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), LOCAL_STAGE);
    // The local queue keeps its messages in memory: the callbacks it held when the last run ended
    // are gone, so every one handed to it and not delivered since goes back to the outbox sweep.
    const outbox = new DynamoOutboxStore(documentClient, tables.outbox);
    const requeued = await outbox.requeue('inFlight', new Date());
    if (requeued > 0) log.info(`Undelivered callbacks handed to the queue again: ${requeued}`);
    // A queue server of someone else's can restart under the runtime, and lose them again.
    if (sqsEndpoint) {
      const watch = watchQueueRestarts({
        endpoint: sqs.value.endpoint,
        queueUrl: localCallbackQueueUrls(sqs.value.endpoint).callbackQueueUrl,
        everyMs: QUEUE_WATCH_MS,
        log,
        onRestart: async () => log.info(`Undelivered callbacks handed to the queue again: ${await outbox.requeue('inFlight', new Date())}`),
      });
      teardown.add(() => watch.stop());
    }

    const functions = functionsForStage(LOCAL_STAGE);
    log.info(`Loading ${functions.length} functions`);
    const handlers = await loadHandlers(functions, log);
    const invoke = invoker(async (name) => handlers.get(name));
    const authorizer = functions.find((fn): fn is AuthorizerFunction => fn.kind === 'authorizer');
    if (!authorizer) throw new Error('The route table has no authorizer');
    const routes = functions.filter((fn): fn is HttpRoute => fn.kind === 'http');
    log.info(`Starting the API: ${routes.length} routes on ${baseUrl}`);
    gatewayReady(
      new ApiGateway({
        stage: LOCAL_STAGE,
        routes,
        authorizer,
        invoke,
        log,
        authorizerCacheSeconds: options.authorizerCacheSeconds,
      }),
    );

    const scheduled = functions.filter((fn): fn is ScheduledFunction => fn.kind === 'schedule' && handlers.has(fn.name));
    // A chain watcher per network with an RPC URL (docs/operations.md#watching-chains), as the stack has a rule per network.
    // One run per tick every GATEWAY_CHAIN_POLL_S (its event without `watchForSeconds`), rather than
    // AWS's invocation polling for 55 s of each minute: the same cadence, and stopping the runtime
    // waits for one run in progress, not for most of a minute.
    const { config, parseChainsConfig } = await import('../../shared/config.js');
    const watched = config().watchedNetworks;
    if (watched.length > 0) log.info(`Watching ${watched.join(', ')} for deposits every ${options.chainPollSeconds} s`);
    // The rates schedule where currencies are priced live, as the stack has its rule only then.
    const liveRates = config().rates.kind === 'live';
    if (liveRates) log.info('Pricing currencies live from GATEWAY_RATES_URL');
    const jobs = scheduled
      .filter((fn) => liveRates || !fn.onlyWithLiveRates)
      .flatMap((fn) => {
        const everySeconds = localEverySeconds(fn, options);
        return fn.perNetwork ? watched.map((network) => ({ fn, everySeconds, input: { network } })) : [{ fn, everySeconds }];
      });
    const scheduler = startScheduler(jobs, invoke, log);
    teardown.add(() => scheduler.stop());

    // Each queue function on its own queue, as its event source mapping feeds it in AWS.
    const sourceOf = (fn: QueueFunction): QueueSource => {
      const definition = localQueues().find(([name]) => name === fn.queue)?.[1];
      if (!definition) throw new Error(`${fn.name} consumes the ${fn.queue} queue, which the ${LOCAL_STAGE} stage does not have`);
      return { url: localQueueUrls(services.sqsEndpoint, definition).queueUrl, arn: localQueueArn(definition.name) };
    };
    const consumerSqs = localSqsClient(services.sqsEndpoint);
    teardown.add(() => consumerSqs.destroy());
    const consumed = functions.filter((fn): fn is QueueFunction => fn.kind === 'queue' && handlers.has(fn.name));
    const consumers = startQueueConsumers(
      // As many batches at once as the stack's reserved concurrency lets the function take.
      consumed.map((fn) => ({ fn, source: sourceOf(fn), concurrency: reservedConcurrencyOf(fn, watched.length) })),
      { sqs: consumerSqs, invoke, log, region: LOCAL_REGION, stopGraceMs: SHUTDOWN_GRACE_MS },
    );
    // Added after the queue server, so the pollers stop before it does.
    teardown.add(() => consumers.stop());

    await writeRuntimeInfo(dataDir, {
      stage: LOCAL_STAGE,
      baseUrl,
      region: LOCAL_REGION,
      dynamodbEndpoint: services.dynamodbEndpoint,
      sqsEndpoint: services.sqsEndpoint,
      tables,
      chains: chainEndpointsOf(parseChainsConfig(LOCAL_STAGE, process.env)),
      vaultKeyFile: localVaultPaths(dataDir).keyFile,
      pid: process.pid,
      dynamodbPid: dynamo.value.pid,
    });
    teardown.add(() => removeRuntimeInfo(dataDir));

    let stopping: Promise<void> | undefined;
    return { baseUrl, demoProviderUrl: demoProvider?.process.url, dataDir, demoMerchant, demoOwner, treasury, stop: () => (stopping ??= teardown.run()) };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
