/** What sets the stages apart, which each of a stage's stacks reads. */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Stage } from '../../shared/stage.js';
import { DEFAULT_LIVE_RATES, type LiveRates } from './live-rates.js';

export interface StageSettings {
  /**
   * Tables, queues, the vault key, the buckets, the secrets and the logs outlive the stacks,
   * tables refuse deletion, and so do the stacks.
   */
  protectData: boolean;
  logRetention: RetentionDays;
  /** Derive deposit addresses from the public test mnemonic instead of keys the operator supplies. */
  testWalletKeys: boolean;
  /** Prices from a ticker; without, the fixed demo table. */
  liveRates?: LiveRates;
}

export const STAGE_SETTINGS: Record<Stage, StageSettings> = {
  prod: { protectData: true, logRetention: RetentionDays.ONE_YEAR, testWalletKeys: false, liveRates: DEFAULT_LIVE_RATES },
  demo: { protectData: false, logRetention: RetentionDays.TWO_WEEKS, testWalletKeys: true },
};

/** What stateful resources do when their stack goes: kept where the stage protects its data. */
export const removalPolicyOf = ({ protectData }: StageSettings): RemovalPolicy => (protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);
