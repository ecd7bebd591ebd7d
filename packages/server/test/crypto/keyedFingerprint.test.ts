import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyedFingerprint } from '../../src/crypto/keyedFingerprint.js';
import { OwnerKeyCheck } from '../../src/services/custody/ownerKeyCheck.js';
import { ShareCheck } from '../../src/services/custody/shareCheck.js';

const masterKey = randomBytes(32);

/** The formula stored fingerprints were written with: HMAC-SHA256(HKDF(MASTER_KEY, info), context ‖ secret). */
function stored(info: string, context: string, secret: Uint8Array): string {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  return createHmac('sha256', key).update(context).update(secret).digest('hex');
}

describe('KeyedFingerprint', () => {
  it('keeps the fingerprints already stored beside custody rows valid', () => {
    const share = randomBytes(32);
    const ownerKey = randomBytes(32);
    const owner = '0xAbCdEf0000000000000000000000000000000001';
    expect(new ShareCheck(masterKey).of(share, 7, 2)).toBe(
      stored('dauth/custody/share-check/v1', '7:2:', share),
    );
    expect(new OwnerKeyCheck(masterKey).of(ownerKey, 7, owner)).toBe(
      stored('dauth/custody/owner-key-check/v1', `7:${owner.toLowerCase()}:`, ownerKey),
    );
  });

  it('matches only the same secret, context, purpose and master key', () => {
    const secret = randomBytes(32);
    const fingerprint = new KeyedFingerprint(masterKey, 'purpose/a');
    const value = fingerprint.of('1:', secret);
    expect(fingerprint.matches(value, '1:', secret)).toBe(true);
    expect(fingerprint.matches(value, '2:', secret)).toBe(false);
    expect(fingerprint.matches(value, '1:', randomBytes(32))).toBe(false);
    expect(new KeyedFingerprint(masterKey, 'purpose/b').matches(value, '1:', secret)).toBe(false);
    expect(new KeyedFingerprint(randomBytes(32), 'purpose/a').matches(value, '1:', secret)).toBe(false);
  });

  it('finds which stored fingerprint is of a secret with matchOf, and none for another secret', () => {
    const fingerprint = new KeyedFingerprint(masterKey, 'purpose/a');
    const secrets = [randomBytes(16), randomBytes(16), randomBytes(16)];
    const values = secrets.map((secret) => fingerprint.of('1:', secret));
    expect(fingerprint.matchOf(values, '1:', secrets[1]!)).toBe(values[1]);
    expect(fingerprint.matchOf(values, '1:', secrets[2]!)).toBe(values[2]);
    expect(fingerprint.matchOf(values, '2:', secrets[1]!)).toBeUndefined();
    expect(fingerprint.matchOf(values, '1:', randomBytes(16))).toBeUndefined();
    expect(fingerprint.matchOf([], '1:', secrets[0]!)).toBeUndefined();
  });

  it('refuses a stored value that is not a 64-digit hex fingerprint, and takes either hex case', () => {
    const fingerprint = new KeyedFingerprint(masterKey, 'purpose/a');
    const secret = randomBytes(32);
    const value = fingerprint.of('1:', secret);
    expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint.matches(value.toUpperCase(), '1:', secret)).toBe(true);
    expect(fingerprint.matches(value.slice(0, 62), '1:', secret)).toBe(false);
    expect(fingerprint.matches(`${value}00`, '1:', secret)).toBe(false);
    // Not hex past the first digits: Buffer.from(…, 'hex') stops early, and the shorter decoding is refused.
    expect(fingerprint.matches(`${value.slice(0, 60)}zzzz`, '1:', secret)).toBe(false);
    expect(fingerprint.matchOf(['', value.slice(1)], '1:', secret)).toBeUndefined();
  });
});
