import { createHmac, createSecretKey, hkdfSync, type KeyObject, timingSafeEqual } from 'node:crypto';

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
    return this.#digest(context, secret).toString('hex');
  }

  #digest(context: string, secret: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(context).update(secret).digest();
  }

  matches(stored: string, context: string, secret: Uint8Array): boolean {
    return sameFingerprint(stored, this.#digest(context, secret));
  }

  /**
   * The one of `stored` that is `secret`'s fingerprint, or undefined: one HMAC, then a constant-time
   * comparison with every stored value, whichever matches (so the time says nothing about which did).
   */
  matchOf(stored: readonly string[], context: string, secret: Uint8Array): string | undefined {
    const fingerprint = this.#digest(context, secret);
    let match: string | undefined;
    for (const value of stored) if (sameFingerprint(value, fingerprint)) match = value;
    return match;
  }
}

const FINGERPRINT_HEX_LENGTH = 64;

/**
 * A stored hex fingerprint against a computed digest, in constant time. Both are 32 bytes by construction, so
 * unlike `safeEqual` (for secrets of any length) neither side needs hashing first: a stored value of another
 * length is malformed, refused without comparing, and says nothing about the secret.
 */
function sameFingerprint(stored: string, digest: Buffer): boolean {
  if (stored.length !== FINGERPRINT_HEX_LENGTH) return false;
  const decoded = Buffer.from(stored, 'hex');
  return decoded.length === digest.length && timingSafeEqual(decoded, digest);
}
