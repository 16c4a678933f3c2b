/**
 * Once a minute where currencies are priced live: asks the ticker for every configured symbol and
 * stores each good price with its time. A run that gets no usable answer (the ticker down, slow,
 * failing or answering garbage) logs one error and stores nothing; the stored prices stay, and
 * new invoices stop converting through any that grows older than GATEWAY_RATE_MAX_AGE_S. Every
 * run reports the age of the oldest price, which the stack alarms on.
 */
import { config } from '../shared/config.js';
import { isTickerPair, oldestQuoteAgeSeconds, refreshRates, type RateRefresh } from '../shared/domain/rates/index.js';
import { logger } from '../shared/observability/logger.js';
import { businessMetrics } from '../shared/observability/metrics.js';
import { observed } from '../shared/observability/tracer.js';
import { TickerClient, TickerError } from '../shared/rates/ticker.js';
import { rateStore } from './commons/rates.js';

const { rates } = config();

const ticker = rates.kind === 'live' ? new TickerClient({ url: rates.url, pairs: rates.pairs, clock: () => new Date() }) : undefined;
const quoted = rates.kind === 'live' ? Object.entries(rates.pairs).flatMap(([currency, pair]) => (pair && isTickerPair(pair) ? [currency] : [])) : [];

export type FetchRatesResult = (RateRefresh | { failed: true; reason: string }) & { oldestAgeSeconds?: number };

async function fetchRates(client: TickerClient): Promise<RateRefresh | { failed: true; reason: string }> {
  try {
    const refresh = await refreshRates({ fetchQuotes: () => client.fetchQuotes(), save: (quote) => rateStore.save(quote) });
    if (refresh.problems.length > 0) logger.warn('The ticker left some prices out; their stored prices stay', { problems: refresh.problems });
    // Storing the prices is every run's routine; what goes wrong is a warning or an error.
    logger.debug('Rates fetched', { stored: refresh.stored, outdated: refresh.outdated });
    return refresh;
  } catch (error) {
    if (!(error instanceof TickerError)) throw error;
    logger.error('No rates fetched; the stored prices stay and the next run tries again', { reason: error.message });
    return { failed: true, reason: error.message };
  }
}

export const handler = observed(async (): Promise<FetchRatesResult> => {
  if (!ticker) throw new Error('fetch-rates runs where currencies are priced live: GATEWAY_RATES_URL and GATEWAY_RATE_PAIRS are not set');
  const result = await fetchRates(ticker);
  const oldestAgeSeconds = oldestQuoteAgeSeconds(await rateStore.newest(quoted), quoted, new Date());
  if (oldestAgeSeconds === undefined) logger.warn('Some live prices were never fetched; invoices through them answer 503');
  else businessMetrics.rateAge(oldestAgeSeconds);
  return { ...result, oldestAgeSeconds };
});
