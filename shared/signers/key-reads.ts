/**
 * What a signer has read of its keys, for the life of its container: one read per key, shared by
 * the callers that ask at once; a read that failed is forgotten, so the next call reads again.
 */
export class KeyReads<Key, Value> {
  readonly #reads = new Map<Key, Promise<Value>>();

  get(key: Key, read: () => Promise<Value>): Promise<Value> {
    const kept = this.#reads.get(key);
    if (kept) return kept;
    const reading = read();
    reading.catch(() => {
      if (this.#reads.get(key) === reading) this.#reads.delete(key);
    });
    this.#reads.set(key, reading);
    return reading;
  }
}
