/** The merchants' day totals of this container, as the dashboard's overview reads them. */
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoDailyTotalsStore } from '../../shared/store/daily-totals.js';

export const dailyTotals = new DynamoDailyTotalsStore(documentClient, config().tables.dailyTotals);
