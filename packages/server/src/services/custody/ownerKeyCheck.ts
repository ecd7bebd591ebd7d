import { KeyedFingerprint } from '../../crypto/keyedFingerprint.js';

/**
 * A keyed fingerprint of the wallet's owner key, stored beside the custody row (`owner_key_check`), so
 * a PIN attempt is checked with one HMAC instead of deriving the recombined key's secp256k1 public key
 * and Keccak address on the event loop (≈ 0.3 ms; docs/performance-pin.md).
 *
 * HMAC-SHA256 under a key derived from MASTER_KEY, over the user, the owner address and the key. It is
 * only ever stored after the key was proven to yield that owner address (at registration, or by the
 * address check of a correct PIN), so a match means the key is the owner's; a missing or non-matching
 * fingerprint falls back to the address check, which stays authoritative. The key is 256 random bits,
 * so the fingerprint helps no offline search, and without MASTER_KEY it cannot be checked at all.
 */
export class OwnerKeyCheck {
  readonly #fingerprint: KeyedFingerprint;

  constructor(masterKey: Buffer) {
    this.#fingerprint = new KeyedFingerprint(masterKey, 'dauth/custody/owner-key-check/v1');
  }

  of(ownerKey: Uint8Array, userUuid: number, owner: string): string {
    return this.#fingerprint.of(`${userUuid}:${owner.toLowerCase()}:`, ownerKey);
  }

  matches(stored: string, ownerKey: Uint8Array, userUuid: number, owner: string): boolean {
    return this.#fingerprint.matches(stored, `${userUuid}:${owner.toLowerCase()}:`, ownerKey);
  }
}
