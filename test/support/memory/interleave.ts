/**
 * A race made to happen: the next call of `port[method]` answers as it would, then `competitor`
 * runs to its end before the caller goes on. The caller so decides on a state another writer has
 * changed by the time it writes, as when a concurrent request commits between its read and its write.
 */
type AsyncMethod = (...args: never[]) => Promise<unknown>;

export function interleave<Port extends Record<Method, AsyncMethod>, Method extends keyof Port>(port: Port, method: Method, competitor: () => Promise<unknown>): void {
  const own = port[method];
  port[method] = (async (...args: Parameters<Port[Method]>) => {
    port[method] = own;
    const answer = await own.apply(port, args);
    await competitor();
    return answer;
  }) as Port[Method];
}
