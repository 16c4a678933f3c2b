/** `fn` over `items`, at most `limit` at a time, the results in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}

/** The heights `first` to `last`, in order; none when `last` is below `first`. */
export const heights = (first: number, last: number): number[] => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
