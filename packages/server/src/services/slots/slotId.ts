import { randomBytes } from 'node:crypto';

/** New slot ids are exactly 19 decimal digits: 10^18 ≤ id < 10^19. */
export const NEW_SLOT_ID_MIN = 10n ** 18n;
const NEW_SLOT_ID_SPAN = 9n * 10n ** 18n;
/** The largest multiple of the span below 2^64: draws above it are redrawn, so every id is equally likely. */
const UNBIASED_LIMIT = ((1n << 64n) / NEW_SLOT_ID_SPAN) * NEW_SLOT_ID_SPAN;

/** A uniformly random 19-digit slot id, as its decimal digits (never a JavaScript number). */
export function newSlotId(): string {
  for (;;) {
    const draw = randomBytes(8).readBigUInt64BE();
    if (draw < UNBIASED_LIMIT) return (NEW_SLOT_ID_MIN + (draw % NEW_SLOT_ID_SPAN)).toString();
  }
}

/** Slot ids the interface accepts (spec Limits: up to 19 digits): a positive decimal integer without leading zeros. */
export const SLOT_ID_PATTERN = /^[1-9]\d{0,18}$/;

export const isSlotId = (text: string): boolean => SLOT_ID_PATTERN.test(text);
