/**
 * The wallets' extended public keys, for the functions that derive addresses: read once per
 * container (from SSM Parameter Store in AWS, from the environment on one machine) and parsed on
 * first use rather than when the container loads, so that functions serving returning customers,
 * and every other function, never pay for the key material.
 */
import { GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { WalletKeysConfig } from '../config.js';
import { parseWalletXpubs, type AddressFamily, type WalletKeys, type WalletXpubs } from '../domain/chains/index.js';

/** The parsed keys; the first call reads and parses them, later calls share that result. */
export type WalletKeySource = () => Promise<WalletKeys>;

/** A failed read is not kept: the next call reads again (an SSM hiccup must not poison the container). */
export function walletKeySource(read: () => Promise<WalletXpubs>): WalletKeySource {
  let keys: Promise<WalletKeys> | undefined;
  return () => {
    keys ??= read()
      .then(parseWalletXpubs)
      .catch((error: unknown) => {
        keys = undefined;
        throw error;
      });
    return keys;
  };
}

/** The three parameters in one call; a missing one names itself. */
export async function readXpubParameters(ssm: Pick<SSMClient, 'send'>, parameterNames: Record<AddressFamily, string>): Promise<WalletXpubs> {
  const { Parameters = [], InvalidParameters = [] } = await ssm.send(new GetParametersCommand({ Names: Object.values(parameterNames) }));
  if (InvalidParameters.length > 0) throw new Error(`Wallet key parameters not found: ${InvalidParameters.join(', ')}`);
  const value = (family: AddressFamily): string => {
    const found = Parameters.find((parameter) => parameter.Name === parameterNames[family])?.Value;
    if (!found) throw new Error(`Wallet key parameter ${parameterNames[family]} has no value`);
    return found;
  };
  return { evm: value('evm'), btc: value('btc'), tron: value('tron') };
}

/** The source the configuration names; `ssm` is only called when the keys live there. */
export function configuredWalletKeys(config: WalletKeysConfig | undefined, ssm: () => Pick<SSMClient, 'send'>): WalletKeySource {
  if (!config) {
    throw new Error(
      'Invalid environment: WALLET_EVM_XPUB, WALLET_BTC_XPUB and WALLET_TRON_XPUB (one machine), or ' +
        'WALLET_EVM_XPUB_PARAMETER, WALLET_BTC_XPUB_PARAMETER and WALLET_TRON_XPUB_PARAMETER (AWS), are required',
    );
  }
  if (config.kind === 'inline') return walletKeySource(async () => config.xpubs);
  const client = ssm();
  return walletKeySource(() => readXpubParameters(client, config.parameterNames));
}
