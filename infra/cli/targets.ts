/**
 * Where the admin CLI works: the local stack running from a data directory, or a deployed
 * environment found through its CloudFormation stack's outputs.
 */
import { randomUUID } from 'node:crypto';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { treasuryReaderOf } from '../../shared/chain/treasury-balances.js';
import { defaultStageConfiguration } from '../../shared/config.js';
import { CRYPTO_NETWORKS, type CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { BalanceService, DailyTotalsRecount } from '../../shared/domain/ledger/index.js';
import { TREASURY_FAMILIES, type TreasuryFamily, type TreasurySources } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { KmsTreasurySigner } from '../../shared/signers/kms-signer.js';
import { KeyFileReceiptSigner, receiptKeyDirectory } from '../../shared/signers/key-file-receipt-signer.js';
import { loadStageConfiguration, ssmParametersReader } from '../../shared/stage-configuration.js';
import type { Stage } from '../../shared/stage.js';
import { DynamoBalanceStore, type BalanceTables } from '../../shared/store/balances.js';
import { DynamoBooksCheckStore } from '../../shared/store/books-check.js';
import { ApiGatewayKeyRegistry, localKeyRegistry } from '../../shared/store/api-gateway-keys.js';
import { dynamoDashboardAccess } from '../../shared/store/dashboard-access.js';
import type { DashboardAccess } from '../../shared/domain/dashboard/index.js';
import { PayoutAddresses } from '../../shared/domain/payouts/index.js';
import { DynamoChainStore } from '../../shared/store/chain.js';
import { DynamoDailyTotalsStore } from '../../shared/store/daily-totals.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoPayoutAddressStore } from '../../shared/store/payout-addresses.js';
import { DynamoTransactionStore, type TransactionTables } from '../../shared/store/transactions.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource, KmsDataKeySource } from '../../shared/vault/key-sources.js';
import { localDynamoClient } from '../local/dynamodb.js';
import { localCredentials } from '../local/environment.js';
import { readRunningStack } from '../local/runtime-info.js';
import { chainEndpointsParameterName, gatewayStackName, pascalCase, STACK_CONCERNS, stageConfigurationParameterName } from '../aws/construct-ids.js';
import { AdminError, MerchantAdmin } from './merchant-admin.js';

export interface Target {
  /** For messages: which environment the CLI worked on. */
  description: string;
  admin: MerchantAdmin;
  /** The merchants' books: balances, entries, adjustments and the rebuild; a stack deployed before the books has none. */
  books(): BalanceService;
  /** The recount of a merchant's day totals from its transactions and invoices; a stack deployed before the totals has none. */
  dailyTotals(): DailyTotalsRecount;
  /** The books check's state (docs/operations.md#the-hourly-check), to ask it for a full pass; a stack deployed before it has none. */
  booksCheck(): DynamoBooksCheckStore;
  /** The customers' wallets, to name their addresses' owners. */
  wallets(): DynamoWalletStore;
  /** The dashboard's users and invitations (docs/merchant-guide.md#dashboard); a stack deployed before the dashboard has none. */
  dashboard(): { access: DashboardAccess<unknown>; publicBaseUrl: string };
  /** The merchants' payout addresses, each change written with its audit entry; a stack deployed before them has none. */
  payoutAddresses(): PayoutAddresses;
  /** The stage's treasury (docs/operations.md#the-treasury): its signer, a reader per network it has a node of, and the payouts waiting for it. */
  treasury(): Promise<TreasurySources>;
  /** The callback outbox's operator commands; the local gateway only (AWS redrives with SQS). */
  callbacks?: CallbackAdmin;
  /** The transaction receipts' key files; the local gateway only (AWS rotates by deploying a new KMS key). */
  receiptKeys?: KeyFileReceiptSigner;
  /** Releases the SDK clients' connections. */
  close(): void;
}

export interface CallbackAdmin {
  /** Marks every parked, undelivered callback for publishing again; resolves to how many. */
  redriveParked(): Promise<number>;
}

/** Same marshalling as the functions' client: absent optional fields are left out. */
const documentClient = (client: DynamoDBClient) => DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

/** The payout addresses over the target's tables, as the dashboard changes them. */
const payoutAddressesOver = (
  client: DynamoDBDocumentClient,
  tables: { payoutAddresses: string; dashboardUsers: string; auditLog: string },
  merchants: DynamoMerchantStore,
  stage: Stage,
): PayoutAddresses => new PayoutAddresses({ addresses: new DynamoPayoutAddressStore(client, tables), merchants, stage, clock: () => new Date(), newId: randomUUID });

/** The books over the target's tables, as the functions write them. */
const booksOver = (client: DynamoDBDocumentClient, tables: BalanceTables & TransactionTables, merchants: DynamoMerchantStore): BalanceService =>
  new BalanceService({
    balances: new DynamoBalanceStore(client, tables),
    merchants,
    transactions: new DynamoTransactionStore(client, tables),
    clock: () => new Date(),
    newId: randomUUID,
  });

/** The day totals' recount over the target's tables, from the records the functions write. */
const dailyTotalsOver = (client: DynamoDBDocumentClient, tables: BalanceTables & TransactionTables, merchants: DynamoMerchantStore): DailyTotalsRecount =>
  new DailyTotalsRecount({
    merchants,
    transactions: new DynamoTransactionStore(client, tables),
    invoices: new DynamoInvoiceStore(client, tables),
    totals: new DynamoDailyTotalsStore(client, tables.dailyTotals),
  });

export async function localTarget(dataDir: string): Promise<Target> {
  const stack = await readRunningStack(dataDir);
  if (!stack) throw new AdminError(`No local gateway is running from ${dataDir}; start it with npm start (or set GATEWAY_DATA_DIR)`);
  const client = localDynamoClient(stack.dynamodbEndpoint, await localCredentials(dataDir));
  const store = new DynamoMerchantStore(documentClient(client), stack.tables);
  const outbox = new DynamoOutboxStore(documentClient(client), stack.tables.outbox);
  return {
    description: `the local gateway at ${stack.baseUrl}`,
    books: () => booksOver(documentClient(client), stack.tables, store),
    dailyTotals: () => dailyTotalsOver(documentClient(client), stack.tables, store),
    booksCheck: () => new DynamoBooksCheckStore(documentClient(client), stack.tables.booksCheck),
    wallets: () => new DynamoWalletStore(documentClient(client), stack.tables.wallets),
    dashboard: () => ({ access: dynamoDashboardAccess(documentClient(client), stack.tables, new KeyFileDataKeySource(stack.vaultKeyFile)), publicBaseUrl: stack.baseUrl }),
    payoutAddresses: () => payoutAddressesOver(documentClient(client), stack.tables, store, stack.stage),
    treasury: async () => ({
      stage: stack.stage,
      signer: new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)),
      readers: Object.fromEntries(Object.entries(stack.chains).map(([network, chain]) => [network, treasuryReaderOf(network as CryptoNetwork, chain)])),
      payouts: new DynamoTransactionStore(documentClient(client), stack.tables),
    }),
    admin: new MerchantAdmin(store, localKeyRegistry, new CallbackSecretVault(new KeyFileDataKeySource(stack.vaultKeyFile)), new DynamoChainStore(documentClient(client), stack.tables.chain), stack.stage),
    callbacks: { redriveParked: () => outbox.requeue('parked', new Date()) },
    receiptKeys: new KeyFileReceiptSigner(receiptKeyDirectory(dataDir)),
    close: () => client.destroy(),
  };
}

/** The outputs of the stacks that `infra/aws` deploys for `stage` (docs/operations.md#deploying-a-stage), together. */
export async function stackOutputs(client: Pick<CloudFormationClient, 'send'>, stage: Stage): Promise<Record<string, string>> {
  const outputsOf = async (stackName: string): Promise<Array<[string, string]>> => {
    try {
      const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
      return (Stacks?.[0]?.Outputs ?? []).flatMap((o) => (o.OutputKey && o.OutputValue ? [[o.OutputKey, o.OutputValue] as [string, string]] : []));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AdminError(`Could not read the stack ${stackName}: ${reason}`);
    }
  };
  return Object.fromEntries((await Promise.all(STACK_CONCERNS.map((concern) => outputsOf(gatewayStackName(stage, concern))))).flat());
}

export async function awsTarget(stage: Stage, region: string | undefined): Promise<Target> {
  const cloudFormation = new CloudFormationClient({ region });
  let outputs: Record<string, string>;
  try {
    outputs = await stackOutputs(cloudFormation, stage);
  } finally {
    cloudFormation.destroy();
  }
  const required = ['TableMerchants', 'TableApiKeys', 'TableChain', 'UsagePlanId', 'VaultKeyArn', 'Stage'] as const;
  const missing = required.filter((name) => !outputs[name]);
  if (missing.length > 0) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the outputs ${missing.join(', ')}`);
  if (outputs.Stage !== stage) throw new AdminError(`The stacks PaymentGateway-${stage}-* serve the stage ${outputs.Stage}`);

  const dynamo = new DynamoDBClient({ region });
  const apiGateway = new APIGatewayClient({ region });
  const kms = new KMSClient({ region });
  const ssm = new SSMClient({ region });
  const secrets = new CallbackSecretVault(new KmsDataKeySource(kms, outputs.VaultKeyArn!));
  const store = new DynamoMerchantStore(documentClient(dynamo), { merchants: outputs.TableMerchants!, apiKeys: outputs.TableApiKeys! });
  /** The tables of the money's records: the books and the day totals work on them. */
  const ledgerTables = (): BalanceTables & TransactionTables => {
    const tables = [
      'TableTransactions',
      'TableInvoices',
      'TableOutbox',
      'TableUniques',
      'TableBalances',
      'TableBalanceEntries',
      'TableDailyTotals',
      'TableChain',
      'TableAuditLog',
      'TableDashboardUsers',
    ] as const;
    const lacking = tables.filter((name) => !outputs[name]);
    if (lacking.length > 0) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the outputs ${lacking.join(', ')}: deploy this version first`);
    return {
      transactions: outputs.TableTransactions!,
      invoices: outputs.TableInvoices!,
      outbox: outputs.TableOutbox!,
      uniques: outputs.TableUniques!,
      balances: outputs.TableBalances!,
      balanceEntries: outputs.TableBalanceEntries!,
      dailyTotals: outputs.TableDailyTotals!,
      chain: outputs.TableChain!,
      auditLog: outputs.TableAuditLog!,
      dashboardUsers: outputs.TableDashboardUsers!,
    };
  };
  const wallets = (): DynamoWalletStore => {
    if (!outputs.TableWallets) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the output TableWallets: deploy this version first`);
    return new DynamoWalletStore(documentClient(dynamo), outputs.TableWallets);
  };
  const dashboard = () => {
    const tables = ['TableDashboardUsers', 'TableDashboardInvitations', 'TableDashboardSessions', 'TableAuditLog', 'PublicBaseUrl'] as const;
    const lacking = tables.filter((name) => !outputs[name]);
    if (lacking.length > 0) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the outputs ${lacking.join(', ')}: deploy this version first`);
    const access = dynamoDashboardAccess(
      documentClient(dynamo),
      { dashboardUsers: outputs.TableDashboardUsers!, dashboardInvitations: outputs.TableDashboardInvitations!, dashboardSessions: outputs.TableDashboardSessions!, auditLog: outputs.TableAuditLog! },
      new KmsDataKeySource(kms, outputs.VaultKeyArn!),
    );
    return { access, publicBaseUrl: outputs.PublicBaseUrl!.replace(/\/+$/, '') };
  };
  const payoutAddresses = () => {
    const tables = ['TablePayoutAddresses', 'TableDashboardUsers', 'TableAuditLog'] as const;
    const lacking = tables.filter((name) => !outputs[name]);
    if (lacking.length > 0) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the outputs ${lacking.join(', ')}: deploy this version first`);
    return payoutAddressesOver(documentClient(dynamo), { payoutAddresses: outputs.TablePayoutAddresses!, dashboardUsers: outputs.TableDashboardUsers!, auditLog: outputs.TableAuditLog! }, store, stage);
  };
  /** The data stack's treasury keys, by family: the CLI reads their public keys, never signs. */
  const treasuryKeys = (): Record<TreasuryFamily, string> => {
    const named = TREASURY_FAMILIES.map((family) => [family, `Treasury${pascalCase(family)}KeyArn`] as const);
    const lacking = named.filter(([, output]) => !outputs[output]).map(([, output]) => output);
    if (lacking.length > 0) throw new AdminError(`The stacks PaymentGateway-${stage}-* lack the outputs ${lacking.join(', ')}: deploy this version first`);
    return Object.fromEntries(named.map(([family, output]) => [family, outputs[output]!])) as Record<TreasuryFamily, string>;
  };
  return {
    description: `the ${stage} stage in AWS${outputs.RestApiId ? ` (REST API ${outputs.RestApiId})` : ''}`,
    dashboard,
    payoutAddresses,
    books: () => booksOver(documentClient(dynamo), ledgerTables(), store),
    dailyTotals: () => dailyTotalsOver(documentClient(dynamo), ledgerTables(), store),
    booksCheck: () => {
      if (!outputs.TableBooksCheck) throw new AdminError(`The stack PaymentGateway-${stage} lacks the output TableBooksCheck: deploy this version first`);
      return new DynamoBooksCheckStore(documentClient(dynamo), outputs.TableBooksCheck);
    },
    wallets,
    treasury: async () => {
      const keys = treasuryKeys();
      // The stage's networks as its functions read them: the stage's own, with the configuration's tokens and the watcher's node endpoints laid over.
      const parameterNames = { configuration: stageConfigurationParameterName(stage), chainEndpoints: chainEndpointsParameterName(stage) };
      const base = defaultStageConfiguration(stage);
      const { chains } = (await loadStageConfiguration({ kind: 'parameters', parameterNames, base }, () => ssmParametersReader(ssm))).current();
      return {
        stage,
        signer: new KmsTreasurySigner(kms, keys),
        readers: Object.fromEntries(
          CRYPTO_NETWORKS.flatMap((network) => {
            const { rpcUrl } = chains[network];
            return rpcUrl ? [[network, treasuryReaderOf(network, { ...chains[network], rpcUrl })]] : [];
          }),
        ),
        payouts: new DynamoTransactionStore(documentClient(dynamo), ledgerTables()),
      };
    },
    admin: new MerchantAdmin(store, new ApiGatewayKeyRegistry(apiGateway, outputs.UsagePlanId!), secrets, new DynamoChainStore(documentClient(dynamo), outputs.TableChain!), stage),
    close: () => {
      dynamo.destroy();
      apiGateway.destroy();
      kms.destroy();
      ssm.destroy();
    },
  };
}
