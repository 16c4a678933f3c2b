/** Runtime logs for tests. */
import { consoleLog, type RuntimeLog } from '../../infra/local/log.js';

/** Failures go to stderr; the access log is left out. */
export const quietLog: RuntimeLog = { ...consoleLog, info: () => undefined };

/** For tests that cause failures on purpose. */
export const silentLog: RuntimeLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
