import type { CustodyStore } from '../../stores/custodyStore.js';
import { invalidPin, pinLocked } from './custodyErrors.js';

/** Wrong PINs in a row that lock the wallet. */
export const MAX_WRONG_PINS = 5;
/** The first lock lasts 15 minutes; each further lock without a success in between doubles it. */
export const BASE_LOCK_MS = 15 * 60_000;
/** Doubling stops after 2^10 (a lock then lasts about 10.7 days). */
const MAX_DOUBLINGS = 10;

export const lockDurationMs = (lockNumber: number) =>
  BASE_LOCK_MS * 2 ** Math.min(Math.max(lockNumber - 1, 0), MAX_DOUBLINGS);

/**
 * The PIN lockout, counted per wallet (the custody row), never per client address: an attacker
 * rotating IPs still gets 5 guesses per lock period. An attempt is reserved *before* the PIN is
 * checked, so concurrent wrong guesses cannot slip past the limit.
 */
export class PinLockout {
  constructor(private readonly store: CustodyStore) {}

  /** Reserves one attempt or throws 423 `pin_locked`. */
  async reserve(userUuid: number, lockedUntil: number): Promise<void> {
    const now = Date.now();
    if (lockedUntil > now) throw pinLocked(lockedUntil);
    if (await this.store.reserveAttempt(userUuid, now, MAX_WRONG_PINS)) return;
    const current = await this.store.find(userUuid);
    // Not locked but every attempt is reserved by guesses still in flight: refuse this one too.
    throw pinLocked(current && current.lockedUntil > now ? current.lockedUntil : now + 1000);
  }

  /** The reserved attempt was wrong: 401 `invalid_pin`, or 423 `pin_locked` when it was the fifth. */
  async wrong(userUuid: number): Promise<never> {
    const now = Date.now();
    const until = await this.store.lockIfExhausted(userUuid, now, MAX_WRONG_PINS, lockDurationMs);
    if (until !== undefined && until > now) throw pinLocked(until);
    const current = await this.store.find(userUuid);
    throw invalidPin(Math.max(0, MAX_WRONG_PINS - (current?.failedAttempts ?? 0)));
  }

  /** The reserved attempt was right: the run of wrong PINs (and the doubling) ends. */
  async success(userUuid: number): Promise<void> {
    await this.store.clearFailures(userUuid, Date.now());
  }
}
