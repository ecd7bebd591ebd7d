import { createHmac, hkdfSync } from 'node:crypto';
import { safeEqual } from '../../crypto/constantTime.js';

/**
 * A keyed fingerprint of the user's key share (`share_user`), stored beside the custody row, so a PIN
 * attempt with a share that is not the user's current one is recognised *before* it can count against the
 * wallet's lockout. Whoever holds only the user's login JWT (for example an app backend it was relayed to)
 * does not hold `share_user`, so its wrong "PINs" can no longer lock the wallet (docs/security.md).
 *
 * HMAC-SHA256 under a key derived from MASTER_KEY, bound to the user and key version. The share is 256
 * random-looking bits, so the fingerprint helps no offline PIN search: it cannot be checked without the
 * share itself, and the share alone reveals nothing about the PIN.
 */
export class ShareCheck {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    this.#key = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'dauth/custody/share-check/v1', 32),
    );
  }

  of(shareUser: Buffer, userUuid: number, keyVersion: number): string {
    return createHmac('sha256', this.#key)
      .update(`${userUuid}:${keyVersion}:`)
      .update(shareUser)
      .digest('hex');
  }

  matches(stored: string, shareUser: Buffer, userUuid: number, keyVersion: number): boolean {
    return safeEqual(stored, this.of(shareUser, userUuid, keyVersion));
  }
}
