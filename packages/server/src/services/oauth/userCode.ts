import { randomInt } from 'node:crypto';

/**
 * The user code a player types on their phone (RFC 8628 §6.1): eight letters of the base-20
 * consonant alphabet, which has no vowels (no words) and none of 0/O, 1/I, shown as `XXXX-XXXX`.
 * 20^8 ≈ 2.6·10^10 codes; wrong guesses are rate-limited per address, per account and in total
 * (`device_user_code*`, docs/security.md "Device user codes").
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A fresh user code, normalized (no dash); `randomInt` draws each letter uniformly from the CSPRNG. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `BCDFGHJK` → `BCDF-GHJK`, as the device and the page show it. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What the player typed, normalized: case-insensitive, dashes and spaces ignored. Undefined when it
 * cannot be a user code (wrong length or a letter outside the alphabet), so it is refused unread.
 */
export function normalizeUserCode(input: string): string | undefined {
  if (input.length > 32) return undefined;
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const letter of code) if (!USER_CODE_ALPHABET.includes(letter)) return undefined;
  return code;
}
