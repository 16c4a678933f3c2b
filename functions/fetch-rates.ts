/**
 * Once a minute where currencies are priced live: asks the ticker for every configured symbol and
 * stores each good price with its time. A run that gets no usable answer (the ticker down, slow,
 * failing or answering garbage) logs one error and stores nothing; the stored prices stay, and
 * new invoices stop converting through any that grows older than GATEWAY_RATE_MAX_AGE_S.
 */
import { config } from '../shared/config.js';
import { refreshRates, type RateRefresh } from '../shared/domain/rates.js';
import { logger } from '../shared/http/logger.js';
import { TickerClient, TickerError } from '../shared/rates/ticker.js';
import { rateStore } from './commons/rates.js';

const { rates } = config();

const ticker = rates.kind === 'live' ? new TickerClient({ url: rates.url, pairs: rates.pairs, clock: () => new Date() }) : undefined;

export type FetchRatesResult = RateRefresh | { failed: true; reason: string };

export const handler = async (): Promise<FetchRatesResult> => {
  if (!ticker) throw new Error('fetch-rates runs where currencies are priced live: GATEWAY_RATES_URL and GATEWAY_RATE_PAIRS are not set');
  try {
    const refresh = await refreshRates({ fetchQuotes: () => ticker.fetchQuotes(), save: (quote) => rateStore.save(quote) });
    if (refresh.problems.length > 0) logger.warn('The ticker left some prices out; their stored prices stay', { problems: refresh.problems });
    logger.info('Rates fetched', { stored: refresh.stored, outdated: refresh.outdated });
    return refresh;
  } catch (error) {
    if (!(error instanceof TickerError)) throw error;
    logger.error('No rates fetched; the stored prices stay and the next run tries again', { reason: error.message });
    return { failed: true, reason: error.message };
  }
};
