/**
 * The local chain tooling against a real Hardhat node: what it sends is read back with a viem
 * client of its own, as the chain watcher will read it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  isAddressEqual,
  parseEther,
  toEventSignature,
  toFunctionSignature,
  zeroAddress,
  type Abi,
  type AbiItem,
  type Address,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AmountError, compileTestToken, startLocalChain, toSmallestUnits, type LocalChain } from '../../infra/chain/local-chain.js';
import { EVM_CHAIN_IDS } from '../../shared/domain/chains/networks.js';
import { hardhatNodesOnPort, isRunning } from '../support/processes.js';
import { eventually } from '../support/wait.js';
import { startChainWithTestToken } from '../support/test-chain.js';

const transferEvent = erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!;

let chain: LocalChain;
let client: PublicClient;
let usdt: Address;
let compiledAbi: Abi;

beforeAll(async () => {
  chain = await startChainWithTestToken();
  compiledAbi = (await compileTestToken()).abi;
  client = createPublicClient({ transport: http(chain.rpcUrl) });
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
});

afterAll(async () => {
  await chain?.stop();
});

/** An address nobody has used: its balances start at zero. */
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** What a caller of a contract relies on: names, parameter and result types, mutability, indexed topics. */
function shape(item: AbiItem): string {
  if (item.type === 'function') return `${toFunctionSignature(item)} ${item.stateMutability} returns (${item.outputs.map((o) => o.type).join(',')})`;
  if (item.type === 'event') return `event ${toEventSignature(item)} indexed (${item.inputs.map((i) => i.indexed === true).join(',')})`;
  return item.type;
}

const tokenBalance = (owner: Address) => client.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

describe('the node', () => {
  it("answers on loopback with the demo stage's ethereum chain id and funded accounts", async () => {
    expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(chain.chainId).toBe(EVM_CHAIN_IDS.demo.ethereum);
    expect(await client.getChainId()).toBe(11155111);
    expect(chain.accounts).toHaveLength(20);
    expect(await client.getBalance({ address: chain.accounts[19]! })).toBe(parseEther('10000'));
  });

  it('refuses a port in use, and leaves no node behind', async () => {
    const port = Number(new URL(chain.rpcUrl).port);
    expect(hardhatNodesOnPort(0)).toContain(chain.pid);
    await expect(startLocalChain({ port })).rejects.toThrow(`Port ${port} on 127.0.0.1 is in use already`);
    expect(hardhatNodesOnPort(port)).toEqual([]);
  });
});

describe('the test token', () => {
  it('has the standard ERC-20 interface and mints the whole supply to the deployer', async () => {
    const shapes = new Set(compiledAbi.map(shape));
    for (const item of erc20Abi) expect(shapes).toContain(shape(item));

    const read = <F extends 'name' | 'symbol' | 'decimals' | 'totalSupply'>(functionName: F) => client.readContract({ address: usdt, abi: erc20Abi, functionName });
    expect(await read('name')).toBe('Test USDT');
    expect(await read('symbol')).toBe('USDT');
    expect(await read('decimals')).toBe(6);
    expect(await read('totalSupply')).toBe(1_000_000_000_000n);
    const [minted] = await client.getLogs({ address: usdt, event: transferEvent, fromBlock: 0n, args: { from: zeroAddress } });
    expect(minted?.args).toEqual({ from: zeroAddress, to: chain.accounts[0], value: 1_000_000_000_000n });
  });

  it('lets a spender move up to its allowance, and reverts past it or past a balance', async () => {
    const [owner, spender] = [chain.accounts[0]!, chain.accounts[1]!];
    const to = freshAddress();
    const wallet = createWalletClient({ transport: http(chain.rpcUrl) });
    const write = (account: Address, functionName: 'approve' | 'transferFrom' | 'transfer', args: readonly unknown[]) =>
      wallet.writeContract({ account, chain: null, address: usdt, abi: erc20Abi, functionName, args } as Parameters<typeof wallet.writeContract>[0]);

    await write(owner, 'approve', [spender, 10_000_000n]);
    expect(await client.readContract({ address: usdt, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] })).toBe(10_000_000n);
    await write(spender, 'transferFrom', [owner, to, 4_000_000n]);
    expect(await tokenBalance(to)).toBe(4_000_000n);
    expect(await client.readContract({ address: usdt, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] })).toBe(6_000_000n);

    await expect(write(spender, 'transferFrom', [owner, to, 7_000_000n])).rejects.toThrow('ERC20: insufficient allowance');
    await expect(chain.sendToken({ token: usdt, to, amount: '2000000', from: spender })).rejects.toThrow('ERC20: transfer amount exceeds balance');
    await expect(write(owner, 'transfer', [zeroAddress, 1n])).rejects.toThrow('ERC20: transfer to the zero address');
    expect(await tokenBalance(to)).toBe(4_000_000n);
  });
});

describe('transfers', () => {
  it('sends ETH in a block of its own, to the wei', async () => {
    const to = freshAddress();
    const head = await chain.headNumber();
    const sent = await chain.sendNative({ to, amount: '0.123456789012345678' });

    expect(sent.blockNumber).toBe(head + 1n);
    const block = await client.getBlock({ blockNumber: sent.blockNumber, includeTransactions: true });
    expect(block.hash).toBe(sent.blockHash);
    expect(block.transactions).toHaveLength(1);
    const [tx] = block.transactions;
    expect(tx).toMatchObject({ hash: sent.hash, value: 123_456_789_012_345_678n, transactionIndex: 0 });
    expect(isAddressEqual(tx!.to!, to)).toBe(true);
    expect(isAddressEqual(tx!.from, chain.accounts[0]!)).toBe(true);
    expect(await client.getBalance({ address: to })).toBe(123_456_789_012_345_678n);
  });

  it('sends tokens: one Transfer log naming the recipient, the value in the smallest unit and its log index', async () => {
    const [sender, to] = [chain.accounts[2]!, freshAddress()];
    await chain.sendToken({ token: usdt, to: sender, amount: '100' });
    const sent = await chain.sendToken({ token: usdt, to, amount: '25.5', from: sender });

    const logs = await client.getLogs({ address: usdt, event: transferEvent, args: { to }, fromBlock: sent.blockNumber, toBlock: sent.blockNumber });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ transactionHash: sent.hash, blockHash: sent.blockHash, logIndex: sent.logIndex, args: { from: sender, to, value: 25_500_000n } });
    expect(await tokenBalance(to)).toBe(25_500_000n);
  });

  it('sends from funded accounts only', async () => {
    await expect(chain.sendNative({ to: freshAddress(), amount: '1', from: freshAddress() })).rejects.toThrow("is not one of the node's funded accounts");
  });

  it('puts 20 transfers, ETH and tokens from two senders, in one block, then mines each transaction at once again', async () => {
    const head = await chain.headNumber();
    const recipients = Array.from({ length: 20 }, freshAddress);
    const transfers = recipients.map((to, i) => (i % 2 === 0 ? { to, amount: `0.00${i + 1}`, from: chain.accounts[i % 4 === 0 ? 0 : 1] } : { token: usdt, to, amount: `${i}.25` }));
    const batch = await chain.sendMany(transfers);

    expect(batch.blockNumber).toBe(head + 1n);
    expect(await chain.headNumber()).toBe(head + 1n);
    const block = await client.getBlock({ blockNumber: batch.blockNumber, includeTransactions: true });
    expect(block.hash).toBe(batch.blockHash);
    expect(block.transactions.map((tx) => tx.hash)).toEqual(batch.sent.map((sent) => sent.hash));
    const logs = await client.getLogs({ address: usdt, event: transferEvent, blockHash: batch.blockHash });
    expect(logs.map((log) => [log.transactionHash, log.logIndex, log.args.value])).toEqual(
      batch.sent.flatMap((sent, i) => ('logIndex' in sent ? [[sent.hash, sent.logIndex, toSmallestUnits(`${i}.25`, 6)]] : [])),
    );
    expect(logs.map((log) => log.logIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await client.getBalance({ address: recipients[18]! })).toBe(parseEther('0.0019'));

    const next = await chain.sendNative({ to: freshAddress(), amount: '1' });
    expect(next.blockNumber).toBe(head + 2n);
  });

  it('sends nothing of a batch with a bad amount', async () => {
    const head = await chain.headNumber();
    const to = freshAddress();
    await expect(
      chain.sendMany([
        { to, amount: '1' },
        { token: usdt, to, amount: '1.0000001' },
      ]),
    ).rejects.toThrow(AmountError);
    expect(await chain.headNumber()).toBe(head);
    expect(await client.getBalance({ address: to })).toBe(0n);
    // Automining was never turned off.
    expect((await chain.sendNative({ to, amount: '1' })).blockNumber).toBe(head + 1n);
  });

  it('sets balances in wei', async () => {
    const address = freshAddress();
    await chain.setBalance(address, 5n * 10n ** 18n + 1n);
    expect(await client.getBalance({ address })).toBe(5_000_000_000_000_000_001n);
  });
});

describe('blocks and reorgs', () => {
  it('mines empty blocks one second apart, each the child of the one before', async () => {
    const head = await chain.headNumber();
    expect(await chain.mine(40)).toBe(head + 40n);
    const blocks = await Promise.all(Array.from({ length: 41 }, (_, i) => client.getBlock({ blockNumber: head + BigInt(i) })));
    for (const [i, block] of blocks.entries()) {
      if (i === 0) continue;
      expect(block.transactions).toEqual([]);
      expect(block.parentHash).toBe(blocks[i - 1]!.hash);
      expect(block.timestamp - blocks[i - 1]!.timestamp).toBe(1n);
    }
  });

  it('replaces every block after the snapshot, and the reverted transfers are gone', async () => {
    const snapshot = await chain.snapshot();
    const fork = await chain.headNumber();
    const to = freshAddress();
    const token = await chain.sendToken({ token: usdt, to, amount: '7' });
    const native = await chain.sendNative({ to, amount: '0.5' });
    await chain.mine(2);
    const oldBlocks = await Promise.all([1n, 2n, 3n, 4n].map((n) => client.getBlock({ blockNumber: fork + n })));

    const other = freshAddress();
    const reorg = await chain.reorg({ snapshot, onNewBranch: async () => void (await chain.sendNative({ to: other, amount: '2' })) });

    expect(reorg).toEqual({ forkBlockNumber: fork, depth: 4, oldHead: fork + 4n, newHead: fork + 5n });
    expect(await chain.headNumber()).toBe(fork + 5n);
    const newBlocks = await Promise.all([1n, 2n, 3n, 4n].map((n) => client.getBlock({ blockNumber: fork + n })));
    for (const [i, block] of newBlocks.entries()) expect(block.hash).not.toBe(oldBlocks[i]!.hash);
    expect(newBlocks[0]!.parentHash).toBe(oldBlocks[0]!.parentHash);

    for (const hash of [token.hash, native.hash]) {
      await expect(client.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
      await expect(client.getTransaction({ hash })).rejects.toThrow(/could not be found/);
    }
    expect(await client.getLogs({ address: usdt, event: transferEvent, args: { to }, fromBlock: fork })).toEqual([]);
    expect(await tokenBalance(to)).toBe(0n);
    expect(await client.getBalance({ address: to })).toBe(0n);
    expect(await client.getBalance({ address: other })).toBe(parseEther('2'));
  });

  it('changes the block hash even when the new branch holds the very same transaction', async () => {
    const snapshot = await chain.snapshot();
    const to = freshAddress();
    const first = await chain.sendNative({ to, amount: '1' });

    await chain.reorg({ snapshot, onNewBranch: async () => void (await chain.sendNative({ to, amount: '1' })), length: 1 });

    // Same sender, nonce and fields: the same transaction, in a different block at the same height.
    const receipt = await client.getTransactionReceipt({ hash: first.hash });
    expect(receipt.blockNumber).toBe(first.blockNumber);
    expect(receipt.blockHash).not.toBe(first.blockHash);
  });

  it('uses a snapshot once, and refuses a reorg with nothing to replace', async () => {
    const snapshot = await chain.snapshot();
    await chain.mine();
    await chain.revert(snapshot);
    await expect(chain.revert(snapshot)).rejects.toThrow(`No snapshot ${snapshot}`);
    await expect(chain.reorg({ snapshot: await chain.snapshot() })).rejects.toThrow('Nothing was mined since the snapshot');
  });
});

describe('amounts', () => {
  it('convert decimal strings to the smallest unit exactly', () => {
    expect(toSmallestUnits('0.1', 18)).toBe(10n ** 17n);
    expect(toSmallestUnits('25', 6)).toBe(25_000_000n);
    expect(toSmallestUnits('1.500000', 6)).toBe(1_500_000n);
    expect(toSmallestUnits('123456789012345678901234567890.123456789012345678', 18)).toBe(123456789012345678901234567890123456789012345678n);
    expect(toSmallestUnits('0', 6)).toBe(0n);
  });

  it.each(['1.0000001', '1e3', '-1', '.5', '1.', '', ' 1', '0x10', '1,5'])('refuse %j for 6 decimals', (amount) => {
    expect(() => toSmallestUnits(amount, 6)).toThrow(AmountError);
  });
});

describe('stopping', () => {
  it('stop() ends the node and its process group', async () => {
    const lines: string[] = [];
    const second = await startLocalChain({ log: (line) => lines.push(line) });
    expect(lines).toContain(`Started HTTP and WebSocket JSON-RPC server at ${second.rpcUrl}/`);
    expect(isRunning(second.pid)).toBe(true);
    await second.stop();
    expect(isRunning(second.pid)).toBe(false);
    expect(() => process.kill(-second.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    await expect(fetch(second.rpcUrl)).rejects.toThrow();
  });

  it('a node whose owner is killed outright exits by itself', async () => {
    const localChain = fileURLToPath(new URL('../../infra/chain/local-chain.ts', import.meta.url));
    const owner = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `const { startLocalChain } = await import(${JSON.stringify(localChain)}); console.log((await startLocalChain()).pid);`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [chunk] = (await once(owner.stdout, 'data')) as [Buffer];
    const pid = Number.parseInt(chunk.toString('utf8'), 10);
    expect(isRunning(pid)).toBe(true);

    owner.kill('SIGKILL');
    await once(owner, 'exit');
    await eventually(() => !isRunning(pid), { what: `the orphaned node ${pid} to exit` });
  });
});
