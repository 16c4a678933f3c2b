import { describe, expect, it } from 'vitest';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS, networksOf, type CryptoAssetCode } from '../../shared/domain/currencies.js';
import { defaultChains, EVM_CHAIN_IDS, isEvmNetwork, NATIVE_ASSETS, TOKEN_CONTRACTS } from '../../shared/domain/networks.js';
import { paymentUri } from '../../shared/domain/payment-uri.js';
import { STAGES } from '../../shared/stage.js';

const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

const CHAINS = { prod: defaultChains('prod'), demo: defaultChains('demo') };

describe('payment URIs', () => {
  it('ask for a native coin by EIP-681 value, in wei, on the stage chain', () => {
    expect(paymentUri({ network: 'ethereum', asset: 'ETH', address: EVM, amount: '0.02' }, CHAINS.prod)).toBe(`ethereum:${EVM}@1?value=20000000000000000`);
    expect(paymentUri({ network: 'ethereum', asset: 'ETH', address: EVM, amount: '0.123456789012345678' }, CHAINS.demo)).toBe(
      `ethereum:${EVM}@11155111?value=123456789012345678`,
    );
    expect(paymentUri({ network: 'bsc', asset: 'BNB', address: EVM, amount: '1.5' }, CHAINS.prod)).toBe(`ethereum:${EVM}@56?value=1500000000000000000`);
    expect(paymentUri({ network: 'polygon', asset: 'POL', address: EVM, amount: '12' }, CHAINS.demo)).toBe(`ethereum:${EVM}@80002?value=12000000000000000000`);
    expect(paymentUri({ network: 'bahamut', asset: 'FTN', address: EVM, amount: '2' }, CHAINS.prod)).toBe(`ethereum:${EVM}@5165?value=2000000000000000000`);
  });

  it("ask for a token by an ERC-20 transfer, in the contract's own smallest unit", () => {
    expect(paymentUri({ network: 'ethereum', asset: 'USDT', address: EVM, amount: '25.5' }, CHAINS.prod)).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${EVM}&uint256=25500000`,
    );
    // BSC's USDT has 18 decimals, not the asset's 6.
    expect(paymentUri({ network: 'bsc', asset: 'USDT', address: EVM, amount: '25.000001' }, CHAINS.prod)).toBe(
      `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${EVM}&uint256=25000001000000000000`,
    );
    expect(paymentUri({ network: 'polygon', asset: 'USDC', address: EVM, amount: '5' }, CHAINS.prod)).toBe(
      `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${EVM}&uint256=5000000`,
    );
  });

  it('ask for bitcoin by BIP-21 in BTC, without trailing zeros', () => {
    expect(paymentUri({ network: 'bitcoin', asset: 'BTC', address: 'bc1qexample', amount: '0.00153800' }, CHAINS.prod)).toBe('bitcoin:bc1qexample?amount=0.001538');
  });

  it('leave TRON to the bare address: it has no standard URI', () => {
    expect(paymentUri({ network: 'tron', asset: 'USDT', address: 'TXYZ', amount: '5' }, CHAINS.prod)).toBeUndefined();
    expect(paymentUri({ network: 'tron', asset: 'TRX', address: 'TXYZ', amount: '25' }, CHAINS.demo)).toBeUndefined();
  });

  it('refuse an amount finer than the chain can carry', () => {
    expect(() => paymentUri({ network: 'ethereum', asset: 'USDC', address: EVM, amount: '1.0000001' }, CHAINS.prod)).toThrow('more than 6 decimal places');
  });
});

describe('the network table', () => {
  it('names a chain id for every EVM network on every stage, and a contract for every token an EVM network carries', () => {
    for (const stage of STAGES) {
      for (const network of CRYPTO_NETWORKS.filter(isEvmNetwork)) expect(EVM_CHAIN_IDS[stage][network], `${stage} ${network}`).toBeGreaterThan(0);
      for (const asset of Object.keys(CRYPTO_ASSETS) as CryptoAssetCode[]) {
        for (const network of networksOf(asset).filter(isEvmNetwork)) {
          if (NATIVE_ASSETS[network] !== asset) expect(TOKEN_CONTRACTS[stage][network]?.[asset]?.address, `${stage} ${asset} on ${network}`).toMatch(/^0x[0-9a-fA-F]{40}$/);
        }
      }
    }
  });
});
