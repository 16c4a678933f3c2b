/** The merchants' payout addresses over the test run's tables, as the operator's admin CLI adds them. */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { PayoutAddresses } from '../../shared/domain/payouts/index.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoPayoutAddressStore } from '../../shared/store/payout-addresses.js';
import { testMerchantStore } from './merchants.js';

export const payoutAddresses = (): PayoutAddresses =>
  new PayoutAddresses({
    addresses: new DynamoPayoutAddressStore(documentClient, config().tables),
    merchants: testMerchantStore(),
    stage: config().stage,
    clock: () => new Date(),
    newId: randomUUID,
  });
