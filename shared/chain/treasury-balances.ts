/**
 * What the treasury holds on each network, read from the network's node through the clients the
 * chain watcher reads it with, failing over across its endpoints as the watcher does
 * (failover-reader.ts): an EVM node's `eth_getBalance` and each configured token's ERC-20
 * `balanceOf` (`eth_call`), in one batch with `eth_chainId` so that a node of another chain is
 * refused; a Bitcoin node's unspent outputs of the treasury's script (`scantxoutset`); a Tron
 * node's `/wallet/getaccount` (TRX, in sun) and each TRC-20's `balanceOf`
 * (`/wallet/triggerconstantcontract`). Every answer is checked: garbage throws.
 */
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import * as z from 'zod';
import { isEvmNetwork, NATIVE_ASSETS, type NetworkChain, ownerKey, type TokenContract } from '../domain/chains/index.js';
import type { CryptoAssetCode, CryptoNetwork } from '../domain/kernel/index.js';
import { treasuryAmount, type TreasuryAmount, type TreasuryBalanceReader, type HeldOutput, type TreasuryOutputReader } from '../domain/payouts/index.js';
import { bitcoinJsonRpc, SCAN_TIMEOUT_MS, unspentOutputsOf } from './bitcoin-reader.js';
import { evmJsonRpc, quantity, WrongChainError } from './evm-reader.js';
import { EndpointFailover } from './failover-reader.js';
import type { JsonRpcHttp } from './json-rpc.js';
import { ENDPOINT_CALL_TIMEOUT_MS, ENDPOINT_COOL_DOWN_MS, rpcEndpointsOf } from './network-readers.js';
import { integer, TronApiError, TronHttpApi, tronHex20 } from './tron-reader.js';

/** The smallest units of each family's coin: wei (every EVM network's), sun, satoshis. */
const WEI_DECIMALS = 18;
const SUN_DECIMALS = 6;
const SATOSHI_DECIMALS = 8;

type Tokens = Partial<Record<CryptoAssetCode, TokenContract>>;
const tokensOf = (tokens: Tokens) => Object.entries(tokens) as Array<[CryptoAssetCode, TokenContract]>;

/** A uint256 as an ABI-encoded answer holds it: 32 bytes, hex. */
const uint256Word = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, 'must be one 32-byte word')
  .transform((hex) => BigInt(hex.startsWith('0x') ? hex : `0x${hex}`));

export class EvmTreasuryReader implements TreasuryBalanceReader {
  private readonly rpc: JsonRpcHttp;

  /** `chain.chainId`: the network's EIP-155 chain id, which the node must be on. */
  constructor(
    rpcUrl: string,
    private readonly network: CryptoNetwork,
    private readonly chain: { chainId?: number; tokens: Tokens },
  ) {
    this.rpc = evmJsonRpc(rpcUrl);
  }

  async balances(address: string): Promise<TreasuryAmount[]> {
    const tokens = tokensOf(this.chain.tokens);
    const [chainId, native, ...held] = await this.rpc.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_getBalance', params: [address, 'latest'] },
      ...tokens.map(([, token]) => ({
        method: 'eth_call',
        params: [{ to: token.address, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] }) }, 'latest'],
      })),
    ]);
    const { chainId: expected } = this.chain;
    if (expected !== undefined && quantity.parse(chainId) !== BigInt(expected)) throw new WrongChainError(`The node is on chain ${quantity.parse(chainId)}, not chain ${expected} as configured`);
    const coin = NATIVE_ASSETS[this.network];
    return [
      { network: this.network, asset: coin, amount: treasuryAmount(quantity.parse(native), WEI_DECIMALS, coin) },
      ...tokens.map(([asset, token], index) => {
        // A token address holding no contract answers `0x`: refused as any other garbage.
        const units = uint256Word.safeParse(held[index]);
        if (!units.success) throw new Error(`balanceOf at the ${asset} contract ${token.address}: the node answered ${JSON.stringify(held[index])}, no balance`);
        return { network: this.network, asset, amount: treasuryAmount(units.data, token.decimals, asset) };
      }),
    ];
  }
}

export class BitcoinTreasuryReader implements TreasuryOutputReader {
  private readonly rpc: JsonRpcHttp;

  /** `rpcUrl`: the node's URL, with its credentials (`http://user:password@host:port`) when it takes them. */
  constructor(rpcUrl: string) {
    this.rpc = bitcoinJsonRpc(rpcUrl, SCAN_TIMEOUT_MS);
  }

  async unspentOutputs(address: string): Promise<HeldOutput[]> {
    return (await this.scan(address)).map(({ amount, ...output }) => ({ ...output, amount: treasuryAmount(amount, SATOSHI_DECIMALS, 'BTC') }));
  }

  async balances(address: string): Promise<TreasuryAmount[]> {
    const satoshis = (await this.scan(address)).reduce((sum, { amount }) => sum + amount, 0n);
    return [{ network: 'bitcoin', asset: 'BTC', amount: treasuryAmount(satoshis, SATOSHI_DECIMALS, 'BTC') }];
  }

  private scan(address: string) {
    return unspentOutputsOf(this.rpc, ownerKey('btc', address));
  }
}

const tronAccountSchema = z.object({
  // Absent when zero, and the whole answer is `{}` for an address the chain has never seen.
  balance: integer.optional(),
});

const constantCallSchema = z.object({
  result: z.object({ result: z.boolean().optional(), code: z.string().optional(), message: z.string().optional() }),
  constant_result: z.array(z.string()).optional(),
});

/** The hex message Tron answers a refused call with, for a person. */
const tronMessage = (message: string | undefined): string => (message && /^([0-9a-f]{2})+$/i.test(message) ? Buffer.from(message, 'hex').toString('utf8') : (message ?? 'no message'));

export class TronTreasuryReader implements TreasuryBalanceReader {
  private readonly api: TronHttpApi;

  constructor(
    url: string,
    private readonly chain: { apiKey?: string; tokens: Tokens },
  ) {
    this.api = new TronHttpApi(url, chain.apiKey);
  }

  async balances(address: string): Promise<TreasuryAmount[]> {
    const [account, ...held] = await Promise.all([this.api.call('getaccount', { address, visible: true }), ...tokensOf(this.chain.tokens).map(([, token]) => this.tokenBalance(address, token.address))]);
    const sun = tronAccountSchema.parse(account).balance ?? 0n;
    return [
      { network: 'tron', asset: 'TRX', amount: treasuryAmount(sun, SUN_DECIMALS, 'TRX') },
      ...tokensOf(this.chain.tokens).map(([asset, token], index) => ({ network: 'tron' as const, asset, amount: treasuryAmount(held[index]!, token.decimals, asset) })),
    ];
  }

  /** The TRC-20's `balanceOf(address)`, called as the address itself would, run by the node and never broadcast. */
  private async tokenBalance(address: string, contract: string): Promise<bigint> {
    const answer = constantCallSchema.parse(
      await this.api.call('triggerconstantcontract', {
        owner_address: address,
        contract_address: contract,
        function_selector: 'balanceOf(address)',
        parameter: tronHex20(address).padStart(64, '0'),
        visible: true,
      }),
    );
    const word = uint256Word.safeParse(answer.constant_result?.[0]);
    if (answer.result.result !== true || !word.success) {
      throw new TronApiError(`triggerconstantcontract balanceOf at ${contract}: ${answer.result.code ?? 'no result'} (${tronMessage(answer.result.message)})`);
    }
    return word.data;
  }
}

/** What the treasury holds on a network, through each of its endpoints in order of preference. */
class FailoverTreasuryReader<Reader extends TreasuryBalanceReader> extends EndpointFailover<Reader> implements TreasuryBalanceReader {
  balances(address: string): Promise<TreasuryAmount[]> {
    return this.call((reader) => reader.balances(address), true);
  }
}

class FailoverBitcoinTreasuryReader extends FailoverTreasuryReader<TreasuryOutputReader> implements TreasuryOutputReader {
  unspentOutputs(address: string): Promise<HeldOutput[]> {
    return this.call((reader) => reader.unspentOutputs(address), true);
  }
}

/** A network's endpoints (`GATEWAY_RPC_…`, or the stage's chain endpoints), as the watcher is given them. */
type ChainEndpoints = Pick<NetworkChain, 'tokens' | 'apiKey'> & { rpcUrl: string; chainId?: number };

/** The Bitcoin treasury's outputs and holdings, through each endpoint; a scan's own timeout ends a slow one first. */
export const bitcoinTreasuryReaderOf = (chain: Pick<ChainEndpoints, 'rpcUrl'>): TreasuryOutputReader =>
  new FailoverBitcoinTreasuryReader(
    'bitcoin',
    rpcEndpointsOf(chain.rpcUrl, (url) => new BitcoinTreasuryReader(url)),
    {
      coolDownMs: ENDPOINT_COOL_DOWN_MS,
      callTimeoutMs: SCAN_TIMEOUT_MS + ENDPOINT_CALL_TIMEOUT_MS,
    },
  );

/** What the treasury holds on `network`, read through each endpoint of its node. */
export function treasuryReaderOf(network: CryptoNetwork, chain: ChainEndpoints): TreasuryBalanceReader {
  if (network === 'bitcoin') return bitcoinTreasuryReaderOf(chain);
  const clientOf = (url: string): TreasuryBalanceReader => (isEvmNetwork(network) ? new EvmTreasuryReader(url, network, chain) : new TronTreasuryReader(url, chain));
  return new FailoverTreasuryReader(network, rpcEndpointsOf(chain.rpcUrl, clientOf), { coolDownMs: ENDPOINT_COOL_DOWN_MS, callTimeoutMs: ENDPOINT_CALL_TIMEOUT_MS });
}
