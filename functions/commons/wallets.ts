/**
 * Customers' deposit addresses, for the functions that derive them (`readsWalletKeys` in the route
 * table). Loading this fails the cold start when the keys' location is not configured; the keys
 * themselves are read (SSM in AWS) and parsed on first use, once per container.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { config } from '../../shared/config.js';
import { traced } from '../../shared/observability/tracer.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { configuredWalletKeys } from '../../shared/store/wallet-keys.js';
import { DynamoWalletStore } from '../../shared/store/wallets.js';

const { tables, walletKeys, stage } = config();

export const customerWallets = new DynamoWalletStore(documentClient, tables.wallets, { keys: configuredWalletKeys(walletKeys, () => traced(new SSMClient({}))), stage });
