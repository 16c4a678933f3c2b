/**
 * Where the wallets' extended public keys come from: named in the environment and checked at load,
 * read (from SSM in AWS) and parsed only on first use, once per container. SSM itself is the one
 * part stood in for: a client that answers GetParameters from a map.
 */
import type { GetParametersCommand, GetParametersCommandOutput, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { parseConfig, type WalletKeysConfig } from '../../shared/config.js';
import { TEST_WALLET_XPUBS } from '../../shared/domain/chains/test-wallet-keys.js';
import { deriveCustomerAddresses, parseWalletXpubs } from '../../shared/domain/chains/wallets.js';
import { configuredWalletKeys, readXpubParameters } from '../../shared/store/wallet-keys.js';
import { offlineFunctionEnvironment } from '../support/function-environment.js';

const PARAMETER_NAMES = { evm: '/payment-gateway/prod/wallet-xpub/evm', btc: '/payment-gateway/prod/wallet-xpub/btc', tron: '/payment-gateway/prod/wallet-xpub/tron' };
const SSM_CONFIG: WalletKeysConfig = { kind: 'ssm', parameterNames: PARAMETER_NAMES };
const EXPECTED_ADDRESSES = deriveCustomerAddresses(parseWalletXpubs(TEST_WALLET_XPUBS), 7, 'prod');

/** An SSM stand-in holding `values` by name; `failures` calls fail first, as a throttled or unreachable SSM would. */
function fakeSsm(values: Record<string, string>, failures = 0) {
  const requests: string[][] = [];
  let failuresLeft = failures;
  const client = {
    send: async (command: GetParametersCommand): Promise<Partial<GetParametersCommandOutput>> => {
      const names = command.input.Names ?? [];
      requests.push(names);
      if (failuresLeft-- > 0) throw new Error('Rate exceeded');
      return {
        Parameters: names.filter((name) => name in values).map((name) => ({ Name: name, Type: 'String', Value: values[name] })),
        InvalidParameters: names.filter((name) => !(name in values)),
      };
    },
  } as unknown as Pick<SSMClient, 'send'>;
  return { client, requests };
}

const storedKeys = () => Object.fromEntries(Object.entries(PARAMETER_NAMES).map(([family, name]) => [name, TEST_WALLET_XPUBS[family as keyof typeof TEST_WALLET_XPUBS]]));

describe('the wallet keys in the configuration', () => {
  const base = offlineFunctionEnvironment();
  const without = (env: NodeJS.ProcessEnv, ...names: string[]) => Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
  const inlineVariables = ['WALLET_EVM_XPUB', 'WALLET_BTC_XPUB', 'WALLET_TRON_XPUB'];

  it('are named, not parsed, when the configuration loads: a function that never derives addresses never pays for them', () => {
    const config = parseConfig({ ...base, WALLET_EVM_XPUB: 'not-a-key' });
    expect(config.walletKeys).toEqual({ kind: 'inline', xpubs: { ...TEST_WALLET_XPUBS, evm: 'not-a-key' } });
  });

  it('are the parameter names in AWS, where the keys themselves are not in the environment', () => {
    const env = {
      ...without(base, ...inlineVariables),
      WALLET_EVM_XPUB_PARAMETER: PARAMETER_NAMES.evm,
      WALLET_BTC_XPUB_PARAMETER: PARAMETER_NAMES.btc,
      WALLET_TRON_XPUB_PARAMETER: PARAMETER_NAMES.tron,
    };
    expect(parseConfig(env).walletKeys).toEqual(SSM_CONFIG);
  });

  it('fail the load of a function that derives addresses when neither is configured, naming the variables', () => {
    const config = parseConfig(without(base, ...inlineVariables));
    expect(config.walletKeys).toBeUndefined();
    expect(() => configuredWalletKeys(config.walletKeys, () => fakeSsm({}).client)).toThrow(/Invalid environment: WALLET_EVM_XPUB.*WALLET_EVM_XPUB_PARAMETER/);
  });

  it('fail on first use when a key is not an account-level extended public key', async () => {
    const keys = configuredWalletKeys({ kind: 'inline', xpubs: { ...TEST_WALLET_XPUBS, evm: 'not-a-key' } }, () => fakeSsm({}).client);
    await expect(keys()).rejects.toThrow(/Wallet evm key: not a base58check extended key/);
  });
});

describe('wallet keys from SSM', () => {
  it('are read in one request on first use and shared by every later use', async () => {
    const ssm = fakeSsm(storedKeys());
    const keys = configuredWalletKeys(SSM_CONFIG, () => ssm.client);
    expect(ssm.requests).toEqual([]);
    const [first, second] = await Promise.all([keys(), keys()]);
    expect(await keys()).toBe(first);
    expect(second).toBe(first);
    expect(ssm.requests).toEqual([Object.values(PARAMETER_NAMES)]);
    expect(deriveCustomerAddresses(first, 7, 'prod')).toEqual(EXPECTED_ADDRESSES);
  });

  it('are read again after a failed read, so one SSM hiccup does not break the container', async () => {
    const ssm = fakeSsm(storedKeys(), 1);
    const keys = configuredWalletKeys(SSM_CONFIG, () => ssm.client);
    await expect(keys()).rejects.toThrow('Rate exceeded');
    expect(deriveCustomerAddresses(await keys(), 7, 'prod')).toEqual(EXPECTED_ADDRESSES);
    expect(ssm.requests).toHaveLength(2);
  });

  it('name a parameter that does not exist', async () => {
    const { [PARAMETER_NAMES.btc]: _missing, ...withoutBtc } = storedKeys();
    await expect(readXpubParameters(fakeSsm(withoutBtc).client, PARAMETER_NAMES)).rejects.toThrow(`Wallet key parameters not found: ${PARAMETER_NAMES.btc}`);
  });

  it('are validated like any other: a private key in a parameter is refused', async () => {
    const xprv = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
    const ssm = fakeSsm({ ...storedKeys(), [PARAMETER_NAMES.tron]: xprv });
    await expect(configuredWalletKeys(SSM_CONFIG, () => ssm.client)()).rejects.toThrow(/Wallet tron key: is an extended PRIVATE key/);
  });

  it('leave SSM alone when the keys are in the environment', async () => {
    let clientsMade = 0;
    const keys = configuredWalletKeys({ kind: 'inline', xpubs: TEST_WALLET_XPUBS }, () => {
      clientsMade += 1;
      return fakeSsm({}).client;
    });
    expect(deriveCustomerAddresses(await keys(), 7, 'prod')).toEqual(EXPECTED_ADDRESSES);
    expect(clientsMade).toBe(0);
  });
});
