/** Runtime logs for tests. */
import { consoleLog, type RuntimeLog } from '../../infra/local/log.js';

/** Failures are logged (shown with a failing test, kept in the run's log file); the access log is left out. */
export const quietLog: RuntimeLog = { ...consoleLog, info: () => undefined };

/** For tests that cause failures on purpose. */
export const silentLog: RuntimeLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
