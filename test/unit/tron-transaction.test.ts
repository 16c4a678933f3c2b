/**
 * A Tron transaction's bytes read back as the treasury reads them before signing: a TRX transfer
 * as Tron's HTTP API documents one (its raw_data beside its raw_data_hex), a contract call with its
 * fee limit; and bytes carrying no contract, two, another kind, or cut short, refused.
 */
import { describe, expect, it } from 'vitest';
import { MalformedTronTransaction, readRawTransaction, tronTransactionId } from '../../shared/chain/tron-transaction.js';

// The broadcasttransaction example of the TRON HTTP API's documentation: its raw_data says amount
// 1000, owner 41608f8d…, to 41e9d79c…, expiration 1591089627000.
const DOCUMENTED =
  '0a025e4b220847c9dc89341b300d40f8fed3a2a72e5a66080112620a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412310a1541608f8da72479edc7dd921e4c30bb7e7cddbe722e121541e9d79cc47518930bc322d9bf7cddd260a0260a8d18e8077093afd0a2a72e';

describe('a Tron transaction read back', () => {
  it('reads the documented TRX transfer: owner, destination, amount and expiry, no fee limit', () => {
    expect(readRawTransaction(DOCUMENTED)).toEqual({
      contract: { type: 'TransferContract', owner: '41608f8da72479edc7dd921e4c30bb7e7cddbe722e', to: '41e9d79cc47518930bc322d9bf7cddd260a0260a8d', amount: 1000n },
      expiration: 1591089627000,
      feeLimit: 0n,
    });
    expect(tronTransactionId(DOCUMENTED)).toHaveLength(32);
  });

  it('reads a TRC-20 call with its data and fee limit', () => {
    // The documented transaction with its contract swapped for a TriggerSmartContract of 1 byte of data and a fee limit of 100 TRX (field 18).
    const call = '0a0d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e7472616374';
    const value = '0a1541608f8da72479edc7dd921e4c30bb7e7cddbe722e121541e9d79cc47518930bc322d9bf7cddd260a0260a8d2201ff';
    const any = `${call.replace(/^0a0d/, `0a${(call.length / 2 - 2).toString(16)}`)}12${(value.length / 2).toString(16)}${value}`;
    const contract = `081f12${(any.length / 2).toString(16)}${any}`;
    const raw = `0a025e4b220847c9dc89341b300d40f8fed3a2a72e5a${(contract.length / 2).toString(16)}${contract}900180c2d72f`;
    expect(readRawTransaction(raw)).toEqual({
      contract: { type: 'TriggerSmartContract', owner: '41608f8da72479edc7dd921e4c30bb7e7cddbe722e', contract: '41e9d79cc47518930bc322d9bf7cddd260a0260a8d', callValue: 0n, data: 'ff' },
      expiration: 1591089627000,
      feeLimit: 100_000_000n,
    });
  });

  it('refuses bytes that carry no contract, two, another kind, or end mid-field', () => {
    const withoutContract = '0a025e4b220847c9dc89341b300d40f8fed3a2a72e';
    expect(() => readRawTransaction(withoutContract)).toThrow(MalformedTronTransaction);
    const contract = DOCUMENTED.slice(DOCUMENTED.indexOf('5a66'), DOCUMENTED.indexOf('7093afd0'));
    expect(() => readRawTransaction(`${withoutContract}${contract}${contract}`)).toThrow(/2 contracts/);
    // Type 2: a TransferAssetContract (a TRC-10 token).
    expect(() => readRawTransaction(DOCUMENTED.replace('5a660801', '5a660802'))).toThrow(/type 2/);
    expect(() => readRawTransaction(DOCUMENTED.slice(0, -4))).toThrow(MalformedTronTransaction);
  });
});
