/**
 * The local treasuries `npm run chain -- node` funds (docs/operations.md#a-local-chain): the
 * addresses of the treasury keys in the data directory (made there on first use, as the gateway's
 * signer makes them), topped up to a fixed amount of ETH and test USDT on the EVM chain and of BTC
 * on the Bitcoin node. What a treasury holds already counts: the EVM chain starts empty every
 * time, the Bitcoin node keeps its chain, so a second start sends only what is missing, or nothing.
 */
import type { Address } from 'viem';
import { BitcoinTreasuryReader, EvmTreasuryReader } from '../../shared/chain/treasury-balances.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { type TreasuryAmount, treasuryAddresses } from '../../shared/domain/payouts/index.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { LOCAL_STAGE } from '../local/environment.js';
import type { BitcoinRpc } from './bitcoin-node.js';
import type { ChainTools } from './local-chain.js';

/** What each local treasury is topped up to: enough for many payouts, a small part of what the chains' funded accounts hold. */
export const LOCAL_TREASURY_FUNDS = { ETH: '100', USDT: '100000', BTC: '10' } as const;

export interface LocalTreasury {
  family: 'evm' | 'bitcoin';
  address: string;
  /** What it holds once topped up. */
  balances: TreasuryAmount[];
}

/** `target` less what `balances` hold of `asset`, when that is more than nothing. */
function shortOf(balances: readonly TreasuryAmount[], asset: keyof typeof LOCAL_TREASURY_FUNDS): string | undefined {
  const held = balances.find((balance) => balance.asset === asset)?.amount ?? '0';
  const short = new Decimal(LOCAL_TREASURY_FUNDS[asset]).minus(held);
  return short.greaterThan(0) ? short.toFixed() : undefined;
}

/**
 * Tops the data directory's treasuries up on the running chains: ETH and USDT (`usdt`, the test
 * token's address) on the EVM chain, BTC on the Bitcoin node when there is one, mining a block
 * there so that what was sent is the treasury's to spend. Resolves to what each holds then.
 */
export async function fundLocalTreasuries(dataDir: string, evm: { chain: ChainTools; usdt: Address; usdtDecimals: number }, bitcoin: BitcoinRpc | undefined): Promise<LocalTreasury[]> {
  const addresses = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(dataDir)), LOCAL_STAGE);
  const { chain, usdt, usdtDecimals } = evm;
  const evmReader = new EvmTreasuryReader(chain.rpcUrl, 'ethereum', { chainId: chain.chainId, tokens: { USDT: { address: usdt, decimals: usdtDecimals } } });
  const evmAddress = addresses.evm as Address;
  const evmHeld = await evmReader.balances(evmAddress);
  const eth = shortOf(evmHeld, 'ETH');
  if (eth) await chain.sendNative({ to: evmAddress, amount: eth });
  const tokens = shortOf(evmHeld, 'USDT');
  if (tokens) await chain.sendToken({ to: evmAddress, token: usdt, amount: tokens });
  const treasuries: LocalTreasury[] = [{ family: 'evm', address: evmAddress, balances: await evmReader.balances(evmAddress) }];
  if (bitcoin) {
    const bitcoinReader = new BitcoinTreasuryReader(bitcoin.rpcUrl);
    const btc = shortOf(await bitcoinReader.balances(addresses.bitcoin), 'BTC');
    if (btc) {
      await bitcoin.send(addresses.bitcoin, btc);
      // Only a mined output is the treasury's to spend, and only it is counted.
      await bitcoin.mine(1);
    }
    treasuries.push({ family: 'bitcoin', address: addresses.bitcoin, balances: await bitcoinReader.balances(addresses.bitcoin) });
  }
  return treasuries;
}
