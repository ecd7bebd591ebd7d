import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets without leaking, through timing, where they first differ or how long the
 * expected one is: both sides are hashed to equal-length digests first.
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}
