import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { safeEqual } from './constantTime.js';

/**
 * HMAC-SHA256 fingerprints of high-entropy secrets under a key derived from MASTER_KEY for one purpose
 * (HKDF info), bound to a context string (user, version, address, ...). Stored beside a row, a
 * fingerprint lets the service recognise a secret with one HMAC; without MASTER_KEY it cannot be checked
 * at all, and over 256-bit secrets it helps no offline search.
 */
export class KeyedFingerprint {
  /**
   * A `KeyObject`, made once: `createHmac` with a Buffer key imports it anew on every call (Node's
   * `prepareSecretKey`), which cost 4–5 times the HMAC itself (≈ 11 vs 2 µs, docs/mfa.md).
   */
  readonly #key: KeyObject;

  /** `purpose`: the HKDF info, one per kind of fingerprint (changing it invalidates stored ones). */
  constructor(masterKey: Buffer, purpose: string) {
    this.#key = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, 32)));
  }

  /** Hex HMAC over `context` then `secret` (the context ends with a separator the caller chose). */
  of(context: string, secret: Uint8Array): string {
    return createHmac('sha256', this.#key).update(context).update(secret).digest('hex');
  }

  matches(stored: string, context: string, secret: Uint8Array): boolean {
    return safeEqual(stored, this.of(context, secret));
  }

  /**
   * The one of `stored` that is `secret`'s fingerprint, or undefined: one HMAC, then a constant-time
   * comparison with every stored value, whichever matches (so the time says nothing about which did).
   */
  matchOf(stored: readonly string[], context: string, secret: Uint8Array): string | undefined {
    const fingerprint = this.of(context, secret);
    let match: string | undefined;
    for (const value of stored) if (safeEqual(value, fingerprint)) match = value;
    return match;
  }
}
