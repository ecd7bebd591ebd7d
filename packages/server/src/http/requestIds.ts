import { randomBytes } from 'node:crypto';

/**
 * Request ids (`request.id`: log lines, the audit trail's `request_id`): unique across replicas and restarts,
 * so a support ticket's id finds one request anywhere. Each process draws a 96-bit random prefix at start and
 * counts after it (`<16 base64url characters>-<base-36 counter>`): two processes share a prefix with odds of
 * 2⁻⁹⁶. `crypto.randomUUID` per request gave the same guarantee from 16 fresh random bytes a request, and
 * built its 36 characters by sixteen concatenations (≈ 1,600 instructions of every request:
 * docs/performance-http.md, round 12). A request id is not a secret and need not be unpredictable: nothing
 * grants access by it.
 */
export function requestIdGenerator(): () => string {
  const prefix = `${randomBytes(12).toString('base64url')}-`;
  let next = 0;
  return () => prefix + (next++).toString(36);
}
