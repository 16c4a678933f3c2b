import { describe, expect, it } from 'vitest';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS, networksOf, type CryptoAssetCode } from '../../shared/domain/kernel/currencies.js';
import { defaultChains, EVM_CHAIN_IDS, isEvmNetwork, NATIVE_ASSETS, TOKEN_CONTRACTS } from '../../shared/domain/chains/networks.js';
import { paymentUri, trustWalletTronLink, walletHandoff } from '../../shared/domain/chains/payment-uri.js';
import { STAGES } from '../../shared/stage.js';

const EVM = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const TRON = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

const CHAINS = { prod: defaultChains('prod'), demo: defaultChains('demo') };

describe('payment URIs', () => {
  it('ask for a native coin by EIP-681 value, in wei, on the stage chain', () => {
    expect(paymentUri({ network: 'ethereum', asset: 'ETH', address: EVM, amount: '0.02' }, CHAINS.prod)).toBe(`ethereum:${EVM}@1?value=20000000000000000`);
    expect(paymentUri({ network: 'ethereum', asset: 'ETH', address: EVM, amount: '0.123456789012345678' }, CHAINS.demo)).toBe(`ethereum:${EVM}@11155111?value=123456789012345678`);
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

  it('name none for Tron: it has no standard URI', () => {
    expect(paymentUri({ network: 'tron', asset: 'USDT', address: 'TXYZ', amount: '5' }, CHAINS.prod)).toBeUndefined();
    expect(paymentUri({ network: 'tron', asset: 'TRX', address: 'TXYZ', amount: '25' }, CHAINS.demo)).toBeUndefined();
  });

  it('refuse an amount finer than the chain can carry', () => {
    expect(() => paymentUri({ network: 'ethereum', asset: 'USDC', address: EVM, amount: '1.0000001' }, CHAINS.prod)).toThrow('more than 6 decimal places');
  });
});

describe("Trust Wallet's Tron links", () => {
  it('name TRX as c195 and a TRC-20 by its contract, with the amount in units of the asset', () => {
    expect(trustWalletTronLink({ network: 'tron', asset: 'TRX', address: TRON, amount: '25.500000' }, CHAINS.prod.tron)).toBe(`https://link.trustwallet.com/send?asset=c195&address=${TRON}&amount=25.5`);
    expect(trustWalletTronLink({ network: 'tron', asset: 'USDT', address: TRON, amount: '5' }, CHAINS.prod.tron)).toBe(
      `https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&address=${TRON}&amount=5`,
    );
    expect(trustWalletTronLink({ network: 'tron', asset: 'USDC', address: TRON, amount: '12.25' }, CHAINS.prod.tron)).toBe(
      `https://link.trustwallet.com/send?asset=c195_tTEkxiTehnzSmSe2XqrBj4w32RUN966rdz8&address=${TRON}&amount=12.25`,
    );
  });

  it('name no token whose contract is not configured, and refuse an amount finer than the token carries', () => {
    expect(trustWalletTronLink({ network: 'tron', asset: 'USDT', address: TRON, amount: '5' }, { tokens: {} })).toBeUndefined();
    expect(() => trustWalletTronLink({ network: 'tron', asset: 'USDT', address: TRON, amount: '5.0000001' }, CHAINS.prod.tron)).toThrow('more than 6 decimal places');
  });
});

describe("what a customer's wallet is handed", () => {
  it('on Tron: the bare address as the QR code, and in production the Trust Wallet link, named as such', () => {
    expect(walletHandoff({ network: 'tron', asset: 'USDT', address: TRON, amount: '5' }, { stage: 'prod', chains: CHAINS.prod })).toEqual({
      qrCode: TRON,
      qrCodeHasAmount: false,
      walletLink: { href: `https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&address=${TRON}&amount=5`, app: 'Trust Wallet' },
    });
  });

  it("on Tron in the demo, whose Tron is the Nile test network: no link, which would ask for a payment on Tron's main network", () => {
    expect(walletHandoff({ network: 'tron', asset: 'TRX', address: TRON, amount: '25' }, { stage: 'demo', chains: CHAINS.demo })).toEqual({ qrCode: TRON, qrCodeHasAmount: false });
  });

  it('elsewhere: the payment URI, with the amount, as both the QR code and the link', () => {
    const bitcoin = 'bitcoin:bc1qexample?amount=0.0015';
    expect(walletHandoff({ network: 'bitcoin', asset: 'BTC', address: 'bc1qexample', amount: '0.0015' }, { stage: 'demo', chains: CHAINS.demo })).toEqual({
      qrCode: bitcoin,
      qrCodeHasAmount: true,
      walletLink: { href: bitcoin },
    });
    const erc20 = `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${EVM}&uint256=5000000`;
    expect(walletHandoff({ network: 'ethereum', asset: 'USDT', address: EVM, amount: '5' }, { stage: 'prod', chains: CHAINS.prod })).toEqual({
      qrCode: erc20,
      qrCodeHasAmount: true,
      walletLink: { href: erc20 },
    });
  });

  it('falls back to the bare address where a token cannot be named', () => {
    const chains = { ...CHAINS.prod, polygon: { ...CHAINS.prod.polygon, tokens: {} } };
    expect(walletHandoff({ network: 'polygon', asset: 'USDC', address: EVM, amount: '5' }, { stage: 'prod', chains })).toEqual({ qrCode: EVM, qrCodeHasAmount: false });
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
