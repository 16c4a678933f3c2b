/**
 * The networks' settings as the functions read them (docs/operations.md#watching-chains): node
 * URLs, token contracts by family, confirmations, Tron's API key, and which networks are watched.
 */
import { describe, expect, it } from 'vitest';
import { parseChainsConfig, parseConfig, rpcUrlsOf } from '../../shared/config.js';
import { explorerTransactionUrl } from '../../shared/domain/chains/explorers.js';
import { offeredNetworks, watchedNetworks } from '../../shared/domain/chains/networks.js';
import { offlineFunctionEnvironment } from '../support/function-environment.js';

describe('the networks configuration', () => {
  it('watches nothing by default, with each stage built-in tokens and depths', () => {
    const prod = parseChainsConfig('prod', {});
    expect(watchedNetworks(prod)).toEqual([]);
    expect(offeredNetworks('prod', watchedNetworks(prod))).toEqual([]);
    expect(prod.bitcoin).toEqual({ tokens: {}, confirmations: 2, watched: false, rpcUrl: undefined });
    expect(prod.tron.tokens.USDT).toEqual({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 });
    expect(prod.tron.confirmations).toBe(19);
    expect(parseChainsConfig('demo', {}).tron.tokens).toEqual({ USDT: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', decimals: 6 } });
  });

  it('watches a network given a node, with its credentials, tokens, depth and key', () => {
    const chains = parseChainsConfig('prod', {
      GATEWAY_RPC_BITCOIN: 'http://gateway:s3cret@127.0.0.1:18443',
      GATEWAY_CONFIRMATIONS_BITCOIN: '3',
      GATEWAY_RPC_TRON: 'https://api.trongrid.io',
      GATEWAY_TOKENS_TRON: '{"USDC":{"address":"TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8","decimals":6}}',
      GATEWAY_API_KEY_TRON: 'key-1',
    });
    expect(watchedNetworks(chains)).toEqual(['bitcoin', 'tron']);
    expect(chains.bitcoin).toMatchObject({ rpcUrl: 'http://gateway:s3cret@127.0.0.1:18443', confirmations: 3, watched: true });
    expect(chains.tron).toMatchObject({ rpcUrl: 'https://api.trongrid.io', apiKey: 'key-1', tokens: { USDC: { address: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6 } } });
  });

  it('takes several endpoints of a network, in order, separated by commas or whitespace, each with its own credentials', () => {
    const chains = parseChainsConfig('prod', {
      GATEWAY_RPC_BITCOIN: ' http://gateway:s3cret@10.0.0.1:8332,\n https://user:p%2Cw%20d@btc.example.com/node  ',
      GATEWAY_RPC_ETHEREUM: 'https://eth.example.com/v2/key-1 https://eth.example.org',
    });
    expect(watchedNetworks(chains)).toEqual(['bitcoin', 'ethereum']);
    expect(chains.bitcoin.rpcUrl).toBe('http://gateway:s3cret@10.0.0.1:8332,https://user:p%2Cw%20d@btc.example.com/node');
    expect(rpcUrlsOf(chains.bitcoin.rpcUrl!)).toEqual(['http://gateway:s3cret@10.0.0.1:8332', 'https://user:p%2Cw%20d@btc.example.com/node']);
    expect(rpcUrlsOf(chains.ethereum.rpcUrl!)).toEqual(['https://eth.example.com/v2/key-1', 'https://eth.example.org']);
  });

  it('refuses a list with an endpoint that is no http(s) URL, or one named twice, without repeating the URLs', () => {
    expect(() => parseChainsConfig('prod', { GATEWAY_RPC_BSC: 'https://bsc.example.com,ftp://user:secret@node' })).toThrow('Invalid environment: GATEWAY_RPC_BSC: endpoint 2 must be an http(s) URL');
    expect(() => parseChainsConfig('prod', { GATEWAY_RPC_BSC: 'https://bsc.example.com https://bsc.example.com' })).toThrow('GATEWAY_RPC_BSC: names an endpoint twice');
    expect(() => parseChainsConfig('prod', { GATEWAY_RPC_BSC: ' , ' })).toThrow('GATEWAY_RPC_BSC: must name at least one http(s) URL');
    expect(() => parseChainsConfig('prod', { GATEWAY_RPC_BSC: 'https://bsc.example.com,ftp://user:secret@node' })).not.toThrow(/secret/);
  });

  it("watches what the stack names for functions that are not given the nodes' URLs", () => {
    const chains = parseChainsConfig('prod', { GATEWAY_WATCHED_NETWORKS: 'tron,ethereum', GATEWAY_API_KEY_TRON: '' });
    expect(watchedNetworks(chains)).toEqual(['ethereum', 'tron']);
    expect(chains.tron.rpcUrl).toBeUndefined();
    expect(chains.tron.apiKey).toBeUndefined();
  });

  it('refuses what a network of that family cannot take, naming every variable', () => {
    expect(() =>
      parseChainsConfig('prod', {
        GATEWAY_TOKENS_TRON: '{"USDT":"0x1111111111111111111111111111111111111111"}',
        GATEWAY_TOKENS_ETHEREUM: '{"USDT":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}',
        GATEWAY_RPC_BITCOIN: 'ftp://node',
        GATEWAY_CONFIRMATIONS_TRON: '0',
        GATEWAY_WATCHED_NETWORKS: 'bitcoin,solana',
      }),
    ).toThrow(
      /^Invalid environment: (?=.*GATEWAY_TOKENS_TRON\.USDT: must be a base58check T… address)(?=.*GATEWAY_TOKENS_ETHEREUM\.USDT: must be a 0x address)(?=.*GATEWAY_RPC_BITCOIN)(?=.*GATEWAY_CONFIRMATIONS_TRON)(?=.*GATEWAY_WATCHED_NETWORKS)/,
    );
    // Bitcoin carries no tokens: a variable for them is not read.
    expect(parseChainsConfig('prod', { GATEWAY_TOKENS_BITCOIN: '{"USDT":"x"}' }).bitcoin.tokens).toEqual({});
  });

  it("links a transaction to its network's explorer: the stage's, or the one the deployment names for that network alone", () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const explorersOf = (env: Record<string, string>) => {
      const { stageConfiguration } = parseConfig({ ...offlineFunctionEnvironment(), ...env });
      if (stageConfiguration.kind !== 'environment') throw new Error('expected the environment to configure the stage');
      return stageConfiguration.configuration.explorers;
    };
    const explorers = explorersOf({ STAGE: 'prod', GATEWAY_EXPLORER_ETHEREUM: 'https://explorer.example/eth/tx/{hash}?view=full' });
    expect(explorerTransactionUrl(explorers, 'ethereum', hash)).toBe(`https://explorer.example/eth/tx/${hash}?view=full`);
    expect(explorerTransactionUrl(explorers, 'bsc', hash)).toBe(`https://bscscan.com/tx/${hash}`);
    expect(explorerTransactionUrl(explorersOf({ STAGE: 'demo' }), 'ethereum', hash)).toBe(`https://sepolia.etherscan.io/tx/${hash}`);
    expect(explorerTransactionUrl(explorers, 'solana', hash)).toBeUndefined();
    expect(() => parseConfig({ ...offlineFunctionEnvironment(), GATEWAY_EXPLORER_TRON: 'https://tronscan.org/#/transaction/' })).toThrow(
      /GATEWAY_EXPLORER_TRON: must be an http\(s\) URL with \{hash\} in it/,
    );
    expect(() => parseConfig({ ...offlineFunctionEnvironment(), GATEWAY_EXPLORER_TRON: 'javascript:alert({hash})' })).toThrow(/GATEWAY_EXPLORER_TRON/);
  });
});
