/** The merchant store of this container, wired once at load. */
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';

export const merchantStore = new DynamoMerchantStore(documentClient, config().tables);
