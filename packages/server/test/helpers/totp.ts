import { createHmac } from 'node:crypto';
import { expect } from 'vitest';

/**
 * RFC 6238 written out here, independent of the service's `otpauth`: the secret is read from the
 * `otpauth://` URI (RFC 4648 base32), HMAC-SHA1 over the big-endian step counter, dynamic truncation
 * (RFC 4226 §5.3) to 6 digits. The MFA suites (the JSON routes, the pages) share it.
 */
export function totpSecretOf(uri: string): Buffer {
  const url = new URL(uri);
  expect(url.protocol).toBe('otpauth:');
  expect(url.host).toBe('totp');
  expect(url.searchParams.get('algorithm') ?? 'SHA1').toBe('SHA1');
  expect(url.searchParams.get('digits') ?? '6').toBe('6');
  expect(url.searchParams.get('period') ?? '30').toBe('30');
  return base32Bytes(url.searchParams.get('secret')!);
}

/** RFC 4648 base32 (padding and case ignored), as enrolment answers the secret. */
export function base32Bytes(base32: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of base32.replace(/=+$/, '').toUpperCase()) {
    bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  }
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

export const stepNow = () => Math.floor(Date.now() / 1000 / 30);

export function totpCode(secret: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, '0');
}

/** A 6-digit code that is none of the account's codes around now (a wrong guess). */
export function wrongCode(secret: Buffer): string {
  const around = new Set([-1, 0, 1, 2].map((d) => totpCode(secret, stepNow() + d)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!around.has(candidate)) return candidate;
  }
}
