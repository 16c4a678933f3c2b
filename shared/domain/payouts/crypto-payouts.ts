/**
 * A crypto payout as a merchant asks for it (`POST /api/v2/payouts`, decisions on crypto payouts):
 * the request, what it must keep before anything is reserved, its fees, and whether a person must
 * approve it. Pure: the payout address, the network fee and the prices are given.
 */
import * as z from 'zod';
import { NATIVE_ASSETS } from '../chains/index.js';
import {
  amountRuleProblem,
  CRYPTO_ASSETS,
  CRYPTO_NETWORKS,
  type CryptoAssetCode,
  type CryptoNetwork,
  Decimal,
  decimalStringAmount,
  formatAmount,
  Invalid,
  isCryptoAsset,
  listedAs,
} from '../kernel/index.js';
import { crossRate, type UsdPrices } from '../rates/index.js';

const text = (max: number) => z.string().trim().min(1).max(max);

export const cryptoPayoutRequestSchema = z.strictObject({
  amount: decimalStringAmount('Amount to pay out, in `currency`, before fees'),
  currency: listedAs(
    z
      .string()
      .trim()
      .toUpperCase()
      .refine(isCryptoAsset, `must be a crypto asset (${Object.keys(CRYPTO_ASSETS).join(', ')})`),
    Object.keys(CRYPTO_ASSETS),
  ),
  network: z.enum(CRYPTO_NETWORKS).describe('The network to pay out on; it must carry `currency`'),
  address: text(128).describe('An active payout address of the merchant on `network` (GET /api/v2/payout-addresses)'),
  orderId: text(128).optional().describe("Unique order id in the merchant's system"),
  applicationId: text(128).optional(),
});

export type CryptoPayoutRequest = z.output<typeof cryptoPayoutRequestSchema> & { currency: CryptoAssetCode };

/**
 * What the request breaks of the asset's rules on the network, as a 422 naming the field: the
 * network must carry the currency, the amount keep the asset's decimals and maximum and be at least its
 * deposit minimum there (a payout smaller than a deposit could be would cost more than it moves).
 */
export function cryptoPayoutProblem(request: CryptoPayoutRequest): Invalid | undefined {
  const asset = CRYPTO_ASSETS[request.currency];
  const minimum = (asset.networks as Partial<Record<CryptoNetwork, string>>)[request.network];
  if (minimum === undefined) {
    return Invalid.of('network', `${request.currency} is not carried on ${request.network}; it is on ${Object.keys(asset.networks).join(', ')}`);
  }
  const rule = amountRuleProblem(request.amount, request.currency);
  if (rule) return Invalid.of('amount', rule);
  if (request.amount.lessThan(minimum)) return Invalid.of('amount', `amount must be at least ${minimum} ${request.currency} on ${request.network}`);
  return undefined;
}

/**
 * The gateway's payout fee per currency, in the currency's units, unless the stage's configuration
 * sets another (docs/operations.md#stage-configuration): about a US dollar or less, beside the
 * network fee, which is charged as it is quoted.
 */
export const DEFAULT_PAYOUT_FEES: Readonly<Record<CryptoAssetCode, string>> = {
  BTC: '0.00001',
  ETH: '0.0003',
  BNB: '0.001',
  POL: '2',
  TRX: '3',
  FTN: '1',
  USDT: '1',
  USDC: '1',
};

export interface CryptoPayoutFees {
  /** The gateway's payout fee in the payout's currency (configuration, per currency). */
  processing: string;
  /** The network fee, estimated in the network's coin and charged in the payout's currency at the live rate. */
  technical: string;
}

/**
 * A network fee, counted in the network's coin, in `currency` at the live rate, rounded up to the
 * currency's decimals: the merchant pays at least what the treasury spends, never a fraction less.
 * Undefined without a rate.
 */
export function networkFeeIn(currency: CryptoAssetCode, network: CryptoNetwork, networkFee: Decimal, prices: UsdPrices): Decimal | undefined {
  const rate = crossRate(prices, NATIVE_ASSETS[network], currency);
  return rate && networkFee.mul(rate).toDecimalPlaces(CRYPTO_ASSETS[currency].decimals, Decimal.ROUND_UP);
}

/** A payout's fees in its own currency: the gateway's payout fee, and the network fee at the live rate (`networkFeeIn`). */
export function cryptoPayoutFees(request: Pick<CryptoPayoutRequest, 'currency' | 'network'>, context: { payoutFee: string; networkFee: Decimal; prices: UsdPrices }): CryptoPayoutFees {
  const { decimals } = CRYPTO_ASSETS[request.currency];
  const technical = networkFeeIn(request.currency, request.network, context.networkFee, context.prices);
  if (!technical) throw Invalid.of('currency', `No exchange rate from ${NATIVE_ASSETS[request.network]} to ${request.currency}`);
  return { processing: formatAmount(new Decimal(context.payoutFee), decimals), technical: formatAmount(technical, decimals) };
}

/** What a payout takes from the available balance: the amount and both fees, reserved together. */
export const cryptoPayoutHeld = (amount: Decimal, fees: CryptoPayoutFees): Decimal => amount.plus(fees.processing).plus(fees.technical);

/** Whether a person must approve the payout: its USD value is above the merchant's `payoutApprovalAboveUsd`, when set. */
export const needsApproval = (usd: Decimal, approvalAboveUsd: string | null): boolean => approvalAboveUsd !== null && usd.greaterThan(approvalAboveUsd);
