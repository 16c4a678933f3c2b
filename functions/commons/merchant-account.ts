/** The merchant's own account of this container: its settings and callback secret. */
import { config } from '../../shared/config.js';
import { MerchantAccount } from '../../shared/domain/merchant-account.js';
import { merchantStore } from './merchants.js';

export const merchantAccount = new MerchantAccount({ merchants: merchantStore, stage: config().stage, clock: () => new Date() });
