import { createHash, createHmac, type KeyObject, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;
/** Random bytes drawn 64 tokens at a time: one CSPRNG call per 64 tokens instead of one each (as
 * node:crypto's own randomUUID buffers). Each slice is handed out once and wiped as it goes. */
const POOL_BYTES = TOKEN_BYTES * 64;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** A fresh 256-bit random token, base64url (43 characters): codes, refresh tokens, secrets, sessions. */
export function newOpaqueToken(): string {
  if (poolOffset + TOKEN_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const end = poolOffset + TOKEN_BYTES;
  const token = pool.toString('base64url', poolOffset, end);
  pool.fill(0, poolOffset, end);
  poolOffset = end;
  return token;
}

/** How codes, refresh tokens and session cookies are stored: SHA-256 hex of the token text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function hmacHex(key: KeyObject, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}
