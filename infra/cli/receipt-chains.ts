/**
 * What the receipt verifier asks a chain's own node about a receipt's chain evidence: an EVM node
 * over JSON-RPC, a Bitcoin Core-compatible node over its RPC. Each answer is checked for shape;
 * the verdicts are receipt-checks.ts's.
 */
import { decodeEventLog, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import * as z from 'zod';
import { BitcoinRpcError, BitcoinRpcReader } from '../../shared/chain/bitcoin-reader.js';
import { evmJsonRpc, quantity } from '../../shared/chain/evm-reader.js';
import { isEvmNetwork } from '../../shared/domain/chains/index.js';
import { CRYPTO_NETWORKS, type CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { type BitcoinFacts, bitcoinChecks, type ChainClaim, type Check, check, type EvmFacts, type EvmLog, evmChecks } from './receipt-checks.js';

const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const count = quantity.transform(Number);

const receiptSchema = z.object({
  status: quantity,
  blockNumber: count,
  blockHash: hash,
  logs: z.array(z.object({ address, topics: z.array(hash), data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/), logIndex: count })),
});
const transactionSchema = z.object({ to: address.nullable(), value: quantity });
const blockSchema = z.object({ hash });

/** A log decoded as an ERC-20 `Transfer`, strictly: an ERC-721 one, which indexes its value, is none. */
function decodedLog(log: z.infer<typeof receiptSchema>['logs'][number]): EvmLog {
  try {
    const { args } = decodeEventLog({ abi: erc20Abi, eventName: 'Transfer', topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex, strict: true });
    return { address: log.address, logIndex: log.logIndex, transfer: { to: args.to, value: args.value } };
  } catch {
    return { address: log.address, logIndex: log.logIndex };
  }
}

async function evmFacts(rpcUrl: string, claim: ChainClaim): Promise<EvmFacts> {
  const rpc = evmJsonRpc(rpcUrl);
  const facts: EvmFacts = { receipt: null };
  if (claim.blockNumber !== undefined) {
    const block = await rpc.call('eth_getBlockByNumber', [`0x${claim.blockNumber.toString(16)}`, false]);
    facts.canonicalHash = block === null ? null : blockSchema.parse(block).hash;
    facts.head = count.parse(await rpc.call('eth_blockNumber', []));
  }
  const receipt = await rpc.call('eth_getTransactionReceipt', [claim.transactionHash]);
  if (receipt === null) return facts;
  const mined = receiptSchema.parse(receipt);
  facts.receipt = { succeeded: mined.status === 1n, blockNumber: mined.blockNumber, blockHash: mined.blockHash, logs: mined.logs.map(decodedLog) };
  if (claim.contract) {
    facts.decimals = await rpc
      .call('eth_call', [{ to: claim.contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) }, 'latest'])
      .then((answer) => decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: z.string().parse(answer) as Hex }))
      .catch((error: unknown) => (error instanceof Error ? error.message.split('\n')[0]! : String(error)));
  } else {
    const transaction = await rpc.call('eth_getTransactionByHash', [claim.transactionHash]);
    facts.transaction = transaction === null ? null : transactionSchema.parse(transaction);
  }
  return facts;
}

/** Bitcoin Core's code for a height the chain does not reach. */
const HEIGHT_OUT_OF_RANGE = -8;

async function bitcoinFacts(rpcUrl: string, blockNumber: number): Promise<BitcoinFacts> {
  const reader = new BitcoinRpcReader(rpcUrl);
  const head = await reader.headNumber();
  try {
    return { block: await reader.block(blockNumber), head };
  } catch (error) {
    if (error instanceof BitcoinRpcError && error.code === HEIGHT_OUT_OF_RANGE) return { block: null, head };
    throw error;
  }
}

const isNetwork = (network: string): network is CryptoNetwork => (CRYPTO_NETWORKS as readonly string[]).includes(network);

/** The checks of a claim on its network's node at `rpcUrl` (undefined: none given); a node that fails or answers garbage fails the chain check. */
export async function chainChecks(claim: ChainClaim, rpcUrl: string | undefined): Promise<Check[]> {
  const { network } = claim;
  if (!isNetwork(network)) return [check('not checked', 'chain', `${network} is no network this verifier knows`)];
  if (network === 'tron') return [check('not checked', 'chain', `this verifier reads no Tron node: look ${claim.transactionHash} up on a Tron explorer`)];
  if (rpcUrl === undefined) return [check('not checked', 'chain', `no --rpc ${network}=URL given, so nothing was read from the chain`)];
  try {
    if (isEvmNetwork(network)) return evmChecks(claim, await evmFacts(rpcUrl, claim));
    if (claim.blockNumber === undefined) return [check('not checked', 'chain', 'the receipt does not establish the block to read')];
    return bitcoinChecks(claim, await bitcoinFacts(rpcUrl, claim.blockNumber));
  } catch (error) {
    return [check('FAILED', 'chain', `could not read ${network} at ${new URL(rpcUrl).host}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)];
  }
}
