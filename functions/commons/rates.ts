/** The exchange rates of this container: the fixed demo table, or the live prices the fetch-rates schedule stores. */
import { config } from '../../shared/config.js';
import { DEMO_USD_PRICES, StaticRateSource, StoredRateSource, type RateSource } from '../../shared/domain/rates/index.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoRateStore } from '../../shared/store/rates.js';

const { rates, tables } = config();

export const rateStore = new DynamoRateStore(documentClient, tables.rates);

export const rateSource: RateSource =
  rates.kind === 'live'
    ? new StoredRateSource({ newest: (currencies) => rateStore.newest(currencies), pairs: rates.pairs, maxAgeSeconds: rates.maxAgeSeconds, clock: () => new Date() })
    : new StaticRateSource(DEMO_USD_PRICES);
