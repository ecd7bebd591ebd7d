import { createHash } from 'node:crypto';
import { safeEqual } from '../../crypto/constantTime.js';

/** RFC 7636 §4.1/§4.2: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export const isValidCodeChallenge = (value: string) => PKCE_VALUE.test(value);
export const isValidCodeVerifier = (value: string) => PKCE_VALUE.test(value);

/** BASE64URL(SHA256(ASCII(code_verifier))): the challenge a verifier answers. */
export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** S256: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge, compared in constant time. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!isValidCodeVerifier(verifier)) return false;
  return safeEqual(s256(verifier), challenge);
}
