import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption of secrets at rest (server key shares, mnemonics, provider keys,
 * signing keys) under MASTER_KEY: AES-256-GCM, a fresh 12-byte nonce per value, and an
 * `aad` naming what the value is so a ciphertext cannot be moved to another column or row.
 * Stored form: "v1." + base64(nonce ‖ tag ‖ ciphertext).
 */
export class SecretBox {
  /**
   * A KeyObject made once (it copies the bytes): a Buffer key is imported anew by every
   * createCipheriv/createDecipheriv, 19–27 µs against 3.6–4.1 µs per open on a slow VM (docs/performance-pin.md).
   */
  readonly #key: KeyObject;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('MASTER_KEY must be 32 bytes');
    this.#key = createSecretKey(masterKey);
  }

  seal(plaintext: Buffer | string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return `v1.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Returns a fresh Buffer the caller must `fill(0)` when done. Throws if tampered. */
  open(sealed: string, aad: string): Buffer {
    if (!sealed.startsWith('v1.')) throw new Error('Unknown sealed secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  }
}
