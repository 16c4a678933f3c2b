/** The merchants' payout addresses of this container, wired once at load: listed by the API, changed in the dashboard. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { PayoutAddresses } from '../../shared/domain/payouts/index.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoPayoutAddressStore } from '../../shared/store/payout-addresses.js';
import { merchantStore } from './merchants.js';

const { tables, stage } = config();

export const payoutAddresses = new PayoutAddresses({
  addresses: new DynamoPayoutAddressStore(documentClient, tables),
  merchants: merchantStore,
  stage,
  clock: () => new Date(),
  newId: randomUUID,
});
