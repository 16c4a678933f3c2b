import { describe, expect, it } from 'vitest';
import { AddressSet, addressHash } from '../../shared/domain/chains/address-set.js';

const evm = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

describe('AddressSet', () => {
  it('finds every address added, across merges, and no stranger among 200,000', () => {
    const set = new AddressSet();
    const customers = Array.from({ length: 20_000 }, (_, i) => evm(i * 2));
    for (let start = 0; start < customers.length; start += 777) set.add(customers.slice(start, start + 777));
    expect(set.size).toBe(20_000);
    for (const address of customers) expect(set.has(address)).toBe(true);
    let strangers = 0;
    for (let i = 0; i < 200_000; i++) if (set.has(evm(i * 2 + 1))) strangers++;
    expect(strangers).toBe(0);
  });

  it('holds an address added twice once, and an address added just now is found before any merge', () => {
    const set = new AddressSet();
    set.add(['a', 'b', 'a']);
    expect(set.size).toBe(2);
    expect(set.has('b')).toBe(true);
    set.add(['b']);
    expect(set.size).toBe(2);
  });

  it('keeps 8 bytes an address once merged', () => {
    const set = new AddressSet();
    set.add(Array.from({ length: 8_192 }, (_, i) => evm(i)));
    expect(set.bytes).toBe(8_192 * 8);
  });

  it('hashes into 52 bits, differently for keys that differ in one character', () => {
    const hashes = ['tb1qa', 'tb1qb', 'TXYZ', '0014ab'].map(addressHash);
    for (const hash of hashes) expect(Number.isSafeInteger(hash) && hash >= 0 && hash < 2 ** 52).toBe(true);
    expect(new Set(hashes).size).toBe(4);
  });
});
