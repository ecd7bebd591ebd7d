import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** A fresh 256-bit random token, base64url (43 characters): codes, refresh tokens, secrets, sessions. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How codes, refresh tokens and session cookies are stored: SHA-256 hex of the token text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A purpose-bound key derived from MASTER_KEY (HKDF-SHA256), so one key never serves two uses. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `dauth/${purpose}`, 32));
}

export function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}
