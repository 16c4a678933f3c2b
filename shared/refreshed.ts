/**
 * A value kept from a store and read again once it is older than its maximum age: the providers'
 * secrets (docs/operations.md#payment-providers) and the stage's configuration
 * (docs/operations.md#stage-configuration). Concurrent reads share one call; a read that fails
 * leaves the last value in use, or fails when there is none yet, and the next use reads again.
 */

/** How long a value read from its store is used before it is read again: a change in the store reaches every running function within this. */
export const STORED_VALUE_MAX_AGE_MS = 5 * 60_000;

export interface Refreshed<T> {
  /** The value, read first when there is none yet or it is older than its maximum age. */
  get(): Promise<T>;
  /** The last value read, without waiting: one older than its maximum age is read again in the background, for a later use. */
  latest(): T | undefined;
}

export interface RefreshOptions {
  now?: () => number;
  /** Told of a read that failed while a value read before stays in use. */
  onKeptAfterFailure?: (error: unknown) => void;
}

export function refreshed<T>(read: () => Promise<T>, { now = Date.now, onKeptAfterFailure = () => undefined }: RefreshOptions = {}): Refreshed<T> {
  let kept: { value: T; at: number } | undefined;
  let reading: Promise<T> | undefined;
  const fresh = (): boolean => kept !== undefined && now() - kept.at < STORED_VALUE_MAX_AGE_MS;
  const get = async (): Promise<T> => {
    if (fresh()) return kept!.value;
    reading ??= read()
      .then((value) => {
        kept = { value, at: now() };
        return value;
      })
      .finally(() => {
        reading = undefined;
      });
    try {
      return await reading;
    } catch (error) {
      if (!kept) throw error;
      onKeptAfterFailure(error);
      return kept.value;
    }
  };
  return {
    get,
    latest() {
      // get() keeps the last value when the read fails, so the background read never rejects once there is one.
      if (kept && !fresh()) void get();
      return kept?.value;
    },
  };
}
