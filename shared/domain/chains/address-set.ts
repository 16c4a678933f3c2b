/**
 * The customers' addresses of one family, as a chain watcher keeps them in memory to tell a
 * customer's transfer from a stranger's without a database read (docs/operations.md#watching-chains).
 * Each address is kept as a 52-bit hash of its key in a sorted Float64Array, 8 bytes an address,
 * with the latest additions in a small Set until they are merged in. An address added is always
 * found; a stranger's matches one of n addresses with a chance of n in 2^52, and costs a read then.
 * Addresses are only ever added. Pure.
 */

/** Additions held apart before a merge: a merge copies the whole array. */
const MERGE_AT = 4_096;

/** Two 32-bit FNV-1a hashes of the key's UTF-16 code units (other offsets), as one 52-bit integer. */
export function addressHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0) * 2 ** 20 + ((b >>> 0) >>> 12);
}

export class AddressSet {
  private sorted = new Float64Array(0);
  private readonly recent = new Set<number>();

  /** How many distinct hashes are held. */
  get size(): number {
    return this.sorted.length + this.recent.size;
  }

  /** Memory held: the array's bytes, and a Set entry's rough cost for each recent addition. */
  get bytes(): number {
    return this.sorted.byteLength + this.recent.size * 40;
  }

  add(keys: Iterable<string>): void {
    for (const key of keys) {
      const hash = addressHash(key);
      if (!this.inSorted(hash)) this.recent.add(hash);
    }
    if (this.recent.size >= MERGE_AT) this.merge();
  }

  has(key: string): boolean {
    const hash = addressHash(key);
    return this.recent.has(hash) || this.inSorted(hash);
  }

  private inSorted(hash: number): boolean {
    let low = 0;
    let high = this.sorted.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = this.sorted[middle]!;
      if (value === hash) return true;
      if (value < hash) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  private merge(): void {
    const added = Float64Array.from(this.recent).sort();
    const merged = new Float64Array(this.sorted.length + added.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.sorted.length || j < added.length) {
      merged[k++] = j >= added.length || (i < this.sorted.length && this.sorted[i]! < added[j]!) ? this.sorted[i++]! : added[j++]!;
    }
    this.sorted = merged;
    this.recent.clear();
  }
}
