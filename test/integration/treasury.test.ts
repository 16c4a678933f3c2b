/**
 * The treasury against real nodes, and the admin CLI's `treasury`. Its holdings read from real nodes: Hardhat (ETH to the wei, a 6-decimal token to the
 * unit, an 18-decimal token rounded down to the asset's 6) and a Bitcoin regtest node (litecoind:
 * the treasury's confirmed outputs listed exactly, unconfirmed ones not); Tron from a server
 * answering as Tron's documentation shows (no Tron node runs here). Every family's zero holdings
 * are listed, a node of another chain, a token address without a contract and a refused call are
 * refused, and a dead first endpoint is failed over. `npm run merchant -- treasury --json` prints
 * the shape docs/operations.md gives, from the key files of the local stack's data directory and the
 * nodes it is configured with, and with `--aws` a deployed stage's from its KMS keys' public keys and
 * its parameters' nodes and tokens.
 */
import { createServer, type Server } from 'node:http';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';
import type { Address } from 'viem';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNode } from '../../infra/chain/bitcoin-node.js';
import { compileTestToken, startLocalChain, type LocalChain } from '../../infra/chain/local-chain.js';
import { WrongChainError } from '../../shared/chain/evm-reader.js';
import { bitcoinTreasuryReaderOf, EvmTreasuryReader, TronTreasuryReader, treasuryReaderOf } from '../../shared/chain/treasury-balances.js';
import { TronApiError, tronHex20 } from '../../shared/chain/tron-reader.js';
import { treasuryAddress, treasuryAddresses, type TreasuryFamily } from '../../shared/domain/payouts/index.js';
import { localTableNames } from '../../infra/local/environment.js';
import { KeyFileTreasurySigner, treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { chainEndpointsParameterName, stageConfigurationParameterName } from '../../infra/aws/construct-ids.js';
import { startFakeAwsControlPlane } from '../support/fake-aws-control-plane.js';
import { testMerchantCli, type TestCli } from '../support/merchant-cli.js';
import { RpcProxy } from '../support/rpc-proxy.js';

const SEPOLIA = 11155111;

/** The P2WPKH script of a segwit v0 address: OP_0, a push of 20 bytes, the key hash. */
const scriptOf = (address: string): string => {
  const { words } = bech32.decode(address as `${string}1${string}`);
  return `0014${Buffer.from(bech32.fromWords(words.slice(1))).toString('hex')}`;
};

/** A fresh treasury address of a family, as the gateway derives it from its key. */
const freshTreasury = (family: TreasuryFamily): string => treasuryAddress(family, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'demo');

let chain: LocalChain;
let bitcoin: BitcoinNode;
let usdt: Address;
let bscUsdt: Address;

beforeAll(async () => {
  const [started, compiled, bitcoinStarted] = await Promise.allSettled([startLocalChain(), compileTestToken(), BitcoinNode.start()]);
  if (bitcoinStarted.status === 'fulfilled') bitcoin = bitcoinStarted.value;
  if (started.status === 'rejected') throw started.reason;
  chain = started.value;
  if (compiled.status === 'rejected') throw compiled.reason;
  if (bitcoinStarted.status === 'rejected') throw bitcoinStarted.reason;
  usdt = await chain.deployToken({ symbol: 'USDT', decimals: 6, supply: '1000000' });
  // As BSC's USDT: 18 decimals of its own, for an asset the gateway counts in 6.
  bscUsdt = await chain.deployToken({ symbol: 'USDT', decimals: 18, supply: '1000000' });
  await bitcoin.fund();
}, 120_000);

afterAll(async () => {
  await Promise.all([chain?.stop(), bitcoin?.stop()]);
});

describe('the EVM treasury reader', () => {
  it('reads the native coin to the wei and each configured token to its unit, zeros included', async () => {
    const treasury = freshTreasury('evm') as Address;
    const empty = freshTreasury('evm');
    await chain.sendNative({ to: treasury, amount: '1.000000000000000001' });
    await chain.sendToken({ to: treasury, token: usdt, amount: '1234.567891' });
    const reader = new EvmTreasuryReader(chain.rpcUrl, 'ethereum', { chainId: SEPOLIA, tokens: { USDT: { address: usdt, decimals: 6 }, USDC: { address: bscUsdt, decimals: 18 } } });
    expect(await reader.balances(treasury)).toEqual([
      { network: 'ethereum', asset: 'ETH', amount: '1.000000000000000001' },
      { network: 'ethereum', asset: 'USDT', amount: '1234.567891' },
      { network: 'ethereum', asset: 'USDC', amount: '0.000000' },
    ]);
    expect(await reader.balances(empty)).toEqual([
      { network: 'ethereum', asset: 'ETH', amount: '0.000000000000000000' },
      { network: 'ethereum', asset: 'USDT', amount: '0.000000' },
      { network: 'ethereum', asset: 'USDC', amount: '0.000000' },
    ]);
  });

  it("rounds a token of more decimals than its asset's down: never more than the chain holds", async () => {
    const treasury = freshTreasury('evm') as Address;
    await chain.sendToken({ to: treasury, token: bscUsdt, amount: '2.123456999999999999' });
    const reader = new EvmTreasuryReader(chain.rpcUrl, 'bsc', { tokens: { USDT: { address: bscUsdt, decimals: 18 } } });
    expect(await reader.balances(treasury)).toEqual([
      { network: 'bsc', asset: 'BNB', amount: '0.000000000000000000' },
      { network: 'bsc', asset: 'USDT', amount: '2.123456' },
    ]);
  });

  it('refuses a node of another chain, and a token address that holds no contract', async () => {
    const treasury = freshTreasury('evm');
    await expect(new EvmTreasuryReader(chain.rpcUrl, 'ethereum', { chainId: 1, tokens: {} }).balances(treasury)).rejects.toThrow(
      new WrongChainError(`The node is on chain ${SEPOLIA}, not chain 1 as configured`),
    );
    const nowhere = `0x${'00'.repeat(19)}01`;
    await expect(new EvmTreasuryReader(chain.rpcUrl, 'ethereum', { chainId: SEPOLIA, tokens: { USDT: { address: nowhere, decimals: 6 } } }).balances(treasury)).rejects.toThrow(
      `balanceOf at the USDT contract ${nowhere}: the node answered "0x", no balance`,
    );
  });

  it('fails over from an endpoint that refuses to the next, in one batch there', async () => {
    const [down, up] = await Promise.all([RpcProxy.start(chain.rpcUrl), RpcProxy.start(chain.rpcUrl)]);
    try {
      down.fault = () => 'refuse';
      const treasury = freshTreasury('evm') as Address;
      await chain.sendNative({ to: treasury, amount: '0.25' });
      const reader = treasuryReaderOf('ethereum', { rpcUrl: `${down.url},${up.url}`, chainId: SEPOLIA, tokens: { USDT: { address: usdt, decimals: 6 } } });
      expect(await reader.balances(treasury)).toEqual([
        { network: 'ethereum', asset: 'ETH', amount: '0.250000000000000000' },
        { network: 'ethereum', asset: 'USDT', amount: '0.000000' },
      ]);
      expect(down.requests).toHaveLength(1);
      expect(up.requests).toEqual([['eth_chainId', 'eth_getBalance', 'eth_call']]);
    } finally {
      await Promise.all([down.stop(), up.stop()]);
    }
  });
});

describe('the Bitcoin treasury reader', () => {
  it("lists the treasury's confirmed outputs exactly, with their scripts and heights, and holds their sum", async () => {
    const treasury = freshTreasury('bitcoin');
    const first = await bitcoin.send(treasury, '0.5');
    const second = await bitcoin.send(treasury, '0.00012345');
    const [minedHash] = await bitcoin.mine(1);
    const height = Number(String((await bitcoin.rpc('getblock', [minedHash])).height));
    // In the mempool only: not the treasury's to spend yet.
    await bitcoin.send(treasury, '7');

    const reader = bitcoinTreasuryReaderOf({ rpcUrl: bitcoin.rpcUrl });
    const script = scriptOf(treasury);
    /** The index of the output paying the treasury in a transaction, as the node lists it. */
    const voutOf = async (txid: string): Promise<number> => {
      const transaction = await bitcoin.rpc('getrawtransaction', [txid, true, minedHash]);
      return Number(String(transaction.vout.find((output: { scriptPubKey: { hex: string } }) => output.scriptPubKey.hex === script).n));
    };
    const outputs = await reader.unspentOutputs(treasury);
    expect(outputs.sort((a, b) => a.amount.localeCompare(b.amount))).toEqual([
      { txid: second, vout: await voutOf(second), amount: '0.00012345', scriptPubKey: script, height },
      { txid: first, vout: await voutOf(first), amount: '0.50000000', scriptPubKey: script, height },
    ]);
    expect(await reader.balances(treasury)).toEqual([{ network: 'bitcoin', asset: 'BTC', amount: '0.50012345' }]);
    expect(await reader.balances(freshTreasury('bitcoin'))).toEqual([{ network: 'bitcoin', asset: 'BTC', amount: '0.00000000' }]);
  });
});

describe('the Tron treasury reader', () => {
  const USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
  let server: Server;
  let url: string;
  const requests: Array<{ endpoint: string; body: Record<string, unknown>; apiKey: unknown }> = [];
  let answers: Record<string, (body: Record<string, unknown>) => unknown>;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        const endpoint = (request.url ?? '').replace(/^\/wallet\//, '');
        const body = JSON.parse(text);
        requests.push({ endpoint, body, apiKey: request.headers['tron-pro-api-key'] });
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[endpoint]?.(body) ?? {}));
      });
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));

  /** `triggerconstantcontract`'s answer to a constant call that ran, returning `units`. */
  const constantResult = (units: bigint) => ({ result: { result: true }, energy_used: 935, constant_result: [units.toString(16).padStart(64, '0')], transaction: { ret: [{}], visible: true } });

  it('reads TRX in sun and each TRC-20 by balanceOf, as the treasury itself calls it, with the API key', async () => {
    const treasury = freshTreasury('tron');
    requests.length = 0;
    answers = {
      getaccount: () => ({ address: treasury, balance: 12_345_678, create_time: 1_700_000_000_000 }),
      triggerconstantcontract: () => constantResult(25_500_001n),
    };
    const reader = new TronTreasuryReader(url, { apiKey: 'key-1', tokens: { USDT: { address: USDT, decimals: 6 } } });
    expect(await reader.balances(treasury)).toEqual([
      { network: 'tron', asset: 'TRX', amount: '12.345678' },
      { network: 'tron', asset: 'USDT', amount: '25.500001' },
    ]);
    expect(requests).toEqual(
      expect.arrayContaining([
        { endpoint: 'getaccount', body: { address: treasury, visible: true }, apiKey: 'key-1' },
        {
          endpoint: 'triggerconstantcontract',
          body: { owner_address: treasury, contract_address: USDT, function_selector: 'balanceOf(address)', parameter: tronHex20(treasury).padStart(64, '0'), visible: true },
          apiKey: 'key-1',
        },
      ]),
    );
  });

  it('reads an account the chain has never seen (`{}`) as zero', async () => {
    answers = { getaccount: () => ({}), triggerconstantcontract: () => constantResult(0n) };
    expect(await treasuryReaderOf('tron', { rpcUrl: url, tokens: { USDT: { address: USDT, decimals: 6 } } }).balances(freshTreasury('tron'))).toEqual([
      { network: 'tron', asset: 'TRX', amount: '0.000000' },
      { network: 'tron', asset: 'USDT', amount: '0.000000' },
    ]);
  });

  it('refuses a call the node did not run, with its message', async () => {
    answers = {
      getaccount: () => ({}),
      triggerconstantcontract: () => ({ result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('No contract or not a smart contract').toString('hex') } }),
    };
    await expect(new TronTreasuryReader(url, { tokens: { USDT: { address: USDT, decimals: 6 } } }).balances(freshTreasury('tron'))).rejects.toThrow(
      new TronApiError(`triggerconstantcontract balanceOf at ${USDT}: CONTRACT_VALIDATE_ERROR (No contract or not a smart contract)`),
    );
  });
});

describe('npm run merchant -- treasury', () => {
  const TRON_USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
  let tronNode: Server;
  let testCli: TestCli;
  let addresses: Record<TreasuryFamily, string>;

  beforeAll(async () => {
    // A Tron node that has seen the treasury: 3 TRX and 42 USDT.
    tronNode = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const answer = request.url === '/wallet/getaccount' ? { balance: 3_000_000 } : { result: { result: true }, constant_result: [(42_000_000).toString(16).padStart(64, '0')] };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolveListen) => tronNode.listen(0, '127.0.0.1', resolveListen));
    testCli = await testMerchantCli({
      ethereum: { rpcUrl: chain.rpcUrl, chainId: SEPOLIA, tokens: { USDT: { address: usdt, decimals: 6 } } },
      bitcoin: { rpcUrl: bitcoin.rpcUrl, tokens: {} },
      tron: { rpcUrl: `http://127.0.0.1:${(tronNode.address() as { port: number }).port}`, tokens: { USDT: { address: TRON_USDT, decimals: 6 } } },
    });
    // The stack's treasury, as its key files make it: funded before the CLI reads it.
    addresses = await treasuryAddresses(new KeyFileTreasurySigner(treasuryKeyDirectory(testCli.dataDir)), 'demo');
    await chain.sendNative({ to: addresses.evm as Address, amount: '2.5' });
    await chain.sendToken({ to: addresses.evm as Address, token: usdt, amount: '100' });
    await bitcoin.send(addresses.bitcoin, '0.3');
    await bitcoin.mine(1);
  });

  afterAll(async () => {
    await testCli?.remove();
    await new Promise<void>((resolveClose) => tronNode.close(() => resolveClose()));
  });

  it('--json prints each family with its address, its balances per network and asset, and what queued payouts need', async () => {
    const { code, out, err } = await testCli.run(['treasury', '--json']);
    expect(err).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(out);
    expect(printed).toEqual({
      families: [
        {
          family: 'evm',
          address: addresses.evm,
          balances: [
            { network: 'ethereum', asset: 'ETH', amount: '2.500000000000000000' },
            { network: 'ethereum', asset: 'USDT', amount: '100.000000' },
          ],
          needed: [],
        },
        {
          family: 'tron',
          address: addresses.tron,
          balances: [
            { network: 'tron', asset: 'TRX', amount: '3.000000' },
            { network: 'tron', asset: 'USDT', amount: '42.000000' },
          ],
          needed: [],
        },
        { family: 'bitcoin', address: addresses.bitcoin, balances: [{ network: 'bitcoin', asset: 'BTC', amount: '0.30000000' }], needed: [] },
      ],
    });
    expect(Object.keys(printed)).toEqual(['families']);
    for (const family of printed.families) {
      expect(Object.keys(family)).toEqual(['family', 'address', 'balances', 'needed']);
      for (const balance of family.balances) expect(Object.keys(balance)).toEqual(['network', 'asset', 'amount']);
    }
    expect(addresses.bitcoin).toMatch(/^tb1q/);
    // The keys the stack signs with: owner-only files in its data directory.
    for (const family of ['evm', 'tron', 'bitcoin']) expect((await stat(join(testCli.dataDir, 'treasury', `${family}.key`))).mode & 0o777).toBe(0o600);
  });

  it('prints the same for a person', async () => {
    const { code, out } = await testCli.run(['treasury']);
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'The treasury of the local gateway at http://localhost:3999:',
        `evm      ${addresses.evm}`,
        '  holds:',
        '    ethereum  ETH   2.500000000000000000',
        '    ethereum  USDT  100.000000',
        '  needed: nothing queued',
        `tron     ${addresses.tron}`,
        '  holds:',
        '    tron      TRX   3.000000',
        '    tron      USDT  42.000000',
        '  needed: nothing queued',
        `bitcoin  ${addresses.bitcoin}`,
        '  holds:',
        '    bitcoin   BTC   0.30000000',
        '  needed: nothing queued',
        '',
      ].join('\n'),
    );
  });

  it('lists no balance for a family whose networks have no node in the stack', async () => {
    const bare = await testMerchantCli();
    try {
      const { code, out } = await bare.run(['treasury', '--json']);
      expect(code).toBe(0);
      expect(JSON.parse(out).families.map(({ family, balances }: { family: string; balances: unknown[] }) => ({ family, balances }))).toEqual([
        { family: 'evm', balances: [] },
        { family: 'tron', balances: [] },
        { family: 'bitcoin', balances: [] },
      ]);
    } finally {
      await bare.remove();
    }
  });

  it("--aws reads a deployed stage's treasury: its KMS keys' public keys, its nodes and tokens from the stage's parameters", async () => {
    const aws = await startFakeAwsControlPlane('demo', localTableNames());
    try {
      const run = () => testCli.run(['treasury', '--json', '--aws', '--stage', 'demo', '--region', 'us-east-1']);
      // Before the stage's configuration exists, nothing is read.
      expect(await run()).toMatchObject({ code: 1, err: expect.stringContaining('Stage configuration parameters not found: /payment-gateway/demo/configuration') });

      aws.parameters.set(stageConfigurationParameterName('demo'), JSON.stringify({ providers: [], tokens: { ethereum: { USDT: usdt } } }));
      aws.parameters.set(chainEndpointsParameterName('demo'), JSON.stringify({ rpc: { ethereum: chain.rpcUrl, bitcoin: bitcoin.rpcUrl }, tronApiKey: '' }));
      const { evm, bitcoin: bitcoinTreasury } = aws.treasuryAddresses;
      await chain.sendNative({ to: evm as Address, amount: '1.5' });
      await chain.sendToken({ to: evm as Address, token: usdt, amount: '7' });
      await bitcoin.send(bitcoinTreasury, '0.2');
      await bitcoin.mine(1);

      const { code, out, err } = await run();
      expect(err).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(out)).toEqual({
        families: [
          {
            family: 'evm',
            address: evm,
            balances: [
              { network: 'ethereum', asset: 'ETH', amount: '1.500000000000000000' },
              { network: 'ethereum', asset: 'USDT', amount: '7.000000' },
            ],
            needed: [],
          },
          // The stage has no Tron node: its treasury's address, no balance.
          { family: 'tron', address: aws.treasuryAddresses.tron, balances: [], needed: [] },
          { family: 'bitcoin', address: bitcoinTreasury, balances: [{ network: 'bitcoin', asset: 'BTC', amount: '0.20000000' }], needed: [] },
        ],
      });
    } finally {
      await aws.close();
    }
  });
});
