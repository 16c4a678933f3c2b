/**
 * Pausing deliveries to a callback URL that keeps timing out (a circuit breaker per merchant). A
 * URL that never answers holds each attempt for the whole delivery timeout, so its callbacks would
 * take the sender's time from every other merchant's. After a few timeouts in a row no attempt goes
 * to it for a while; then one attempt probes it: an answer (of any status) or a failure other than
 * a timeout ends the pause, a timeout starts a longer one. Paused callbacks are not attempted and
 * not counted as failures; they wait for the pause to end. Until a pause opens, and for a URL that
 * answers slowly without timing out, a URL's deliveries take at most DELIVERIES_PER_URL of the
 * sender's places at once. Pure: the sender keeps the state on the merchant.
 */
import { DELIVERY_TIMEOUT_MS, RETRY_DELAYS_SECONDS, retryDelaySeconds } from './callbacks.js';
import type { CallbackPause } from '../merchants/index.js';

/**
 * Deliveries to one merchant's callback URL at once: half of what the sender runs at once
 * (`CONCURRENCY.perFunction`, 10), so that however many callbacks one merchant has queued, and
 * however slowly its URL answers, the other half is free for every other merchant's. A delivery
 * holds its place on the merchant's record (`DeliveryPlaces`) for DELIVERY_HOLD_SECONDS at most.
 */
export const DELIVERIES_PER_URL = 5;
/**
 * How long a delivery keeps its place: its one attempt (at most DELIVERY_TIMEOUT_MS) and the writes
 * around it. Real time, not scaled: should its sender die, the place frees itself.
 */
export const DELIVERY_HOLD_SECONDS = (2 * DELIVERY_TIMEOUT_MS) / 1000;

/**
 * Seconds until a callback that found every place of its merchant's URL taken is received again:
 * not an attempt and not a failure. Longer with each receive, up to a place's hold, so that a URL
 * kept busy for long (a burst to a slow receiver) spends few of the queue's receives on waiting;
 * spread over a second, so that the waiting callbacks do not all come back at once.
 */
export function busyRetrySeconds(receives: number, random: () => number = Math.random): number {
  return Math.min(receives, DELIVERY_HOLD_SECONDS) + random();
}

/** Timed-out attempts in a row after which deliveries to a URL pause. */
export const PAUSE_AFTER_TIMEOUTS = 3;
/** The first pause; each one after a timed-out probe lasts twice the one before. Scaled like the retries. */
export const FIRST_PAUSE_SECONDS = 5 * 60;
/**
 * The longest pause: the longest retry delay, so that a callback waiting out pause after pause is
 * received about as often as one being retried, within the queue's receive count over 72 hours.
 */
export const LONGEST_PAUSE_SECONDS = RETRY_DELAYS_SECONDS.at(-1)!;
/**
 * Paused callbacks come back spread over this share of the pause after it ends, not all at once.
 * Against a long pause the probe's hold is short, so few of them come back before its outcome and
 * have to wait once more.
 */
export const PAUSE_SPREAD_SHARE = 0.1;
/**
 * How long a probe keeps the URL to itself: its one delivery (at most DELIVERY_TIMEOUT_MS) and the
 * writes around it. Real time, not scaled: should the probe's sender die, the next callback probes.
 */
export const PROBE_HOLD_SECONDS = DELIVERY_HOLD_SECONDS;

/** A pause to set: the URL's pause that ends at `from` (none: not paused) becomes one that ends at `until`. */
export interface PauseChange {
  from: string | undefined;
  until: string;
  pauses: number;
}

/**
 * Before an attempt to `url`: `deliver` it; `wait` for the pause to end without attempting; or
 * `probe`, when a pause has ended and this attempt may take the probe (`hold` claims it).
 */
export type PauseDecision = { action: 'deliver' } | { action: 'wait'; until: Date; pauses: number } | { action: 'probe'; hold: PauseChange };

const pauseOf = (pause: CallbackPause | undefined, url: string): CallbackPause | undefined => (pause?.url === url ? pause : undefined);

export function pauseDecision(pause: CallbackPause | undefined, url: string, now: Date): PauseDecision {
  const current = pauseOf(pause, url);
  if (current?.pausedUntil === undefined) return { action: 'deliver' };
  const { pauses } = current;
  const until = new Date(current.pausedUntil);
  if (until > now) return { action: 'wait', until, pauses };
  return { action: 'probe', hold: { from: current.pausedUntil, until: new Date(now.getTime() + PROBE_HOLD_SECONDS * 1000).toISOString(), pauses } };
}

/** Until when deliveries to the merchant's callback URL are paused, if they are now. */
export function pausedUntil(merchant: { callbackUrl: string | null; callbackPause?: CallbackPause }, now: Date): string | null {
  if (merchant.callbackUrl === null) return null;
  const decision = pauseDecision(merchant.callbackPause, merchant.callbackUrl, now);
  return decision.action === 'wait' ? decision.until.toISOString() : null;
}

/** Seconds the `pauses`-th pause in a row lasts. */
export const pauseSeconds = (pauses: number, scale = 1): number => Math.min(FIRST_PAUSE_SECONDS * 2 ** (pauses - 1), LONGEST_PAUSE_SECONDS) * scale;

/**
 * After a timed-out attempt, with the URL's state as that timeout left it: the pause to open, if
 * any. It opens once the timeouts reach PAUSE_AFTER_TIMEOUTS, unless a pause (or another attempt's
 * probe) is already on; a probe's own timeout opens the next pause over its hold.
 */
export function pauseAfterTimeout(state: CallbackPause, now: Date, probe: PauseChange | undefined, scale = 1): PauseChange | undefined {
  if (state.timeouts < PAUSE_AFTER_TIMEOUTS) return undefined;
  const ongoing = state.pausedUntil !== undefined && new Date(state.pausedUntil) > now;
  if (ongoing && state.pausedUntil !== probe?.until) return undefined;
  const pauses = state.pauses + 1;
  return { from: state.pausedUntil, until: new Date(now.getTime() + pauseSeconds(pauses, scale) * 1000).toISOString(), pauses };
}

/**
 * Seconds until a callback waiting out the `pauses`-th pause in a row (or the probe after it) is
 * received again: a random point of the pause's spread after its end, but no later than the retry
 * schedule's delay after its `receives`. So a callback written during a long pause is received as
 * soon as a failing one would be (the queue's backlog alarm leaves out messages received three
 * times), and its receives stay about the retry schedule's, which the queue's receive count allows.
 */
export function pausedRetrySeconds(until: Date, pauses: number, receives: number, now: Date, scale = 1, random: () => number = Math.random): number {
  const afterPause = Math.max(0, (until.getTime() - now.getTime()) / 1000) + random() * PAUSE_SPREAD_SHARE * pauseSeconds(pauses, scale);
  return Math.min(afterPause, retryDelaySeconds(receives, scale));
}
