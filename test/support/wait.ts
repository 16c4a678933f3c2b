/** Waiting for something asynchronous to come true, in tests. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
}

/**
 * Calls `probe` until it returns something other than undefined, null or false, and resolves to
 * that; rejects once `timeoutMs` has passed (with the last error `probe` threw, if any).
 */
export async function eventually<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 100, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}
