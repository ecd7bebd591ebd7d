import { KeyedFingerprint } from '../../crypto/keyedFingerprint.js';

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
  readonly #fingerprint: KeyedFingerprint;

  constructor(masterKey: Buffer) {
    this.#fingerprint = new KeyedFingerprint(masterKey, 'dauth/custody/share-check/v1');
  }

  of(shareUser: Buffer, userUuid: number, keyVersion: number): string {
    return this.#fingerprint.of(`${userUuid}:${keyVersion}:`, shareUser);
  }

  matches(stored: string, shareUser: Buffer, userUuid: number, keyVersion: number): boolean {
    return this.#fingerprint.matches(stored, `${userUuid}:${keyVersion}:`, shareUser);
  }
}
