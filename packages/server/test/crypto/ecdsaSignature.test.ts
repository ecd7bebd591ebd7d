import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToP1363 } from '../../src/crypto/ecdsaSignature.js';

describe('derToP1363', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it('gives exactly the r || s node:crypto gives with dsaEncoding ieee-p1363 (short r and s included)', () => {
    let shortSeen = 0;
    for (let i = 0; i < 3000; i++) {
      const data = Buffer.from(`payload ${i}`);
      const der = sign('sha256', data, privateKey);
      // Under 70 bytes: r or s is shorter than 32 bytes, the case the padding exists for.
      if (der.length < 70) shortSeen++;
      const raw = derToP1363(der, 32);
      expect(raw.length).toBe(64);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
    }
    expect(shortSeen).toBeGreaterThan(0);
  });

  it('pads short integers and strips the DER sign byte', () => {
    // r = 0x01 (one byte), s = 0x80 followed by 31 bytes (33 bytes in DER: leading zero).
    const s = Buffer.concat([Buffer.from([0x80]), Buffer.alloc(31, 0x11)]);
    const der = Buffer.concat([Buffer.from([0x30, 3 + 2 + 33, 0x02, 0x01, 0x01, 0x02, 33, 0x00]), s]);
    const raw = derToP1363(der, 32);
    expect(raw.subarray(0, 32)).toEqual(Buffer.concat([Buffer.alloc(31), Buffer.from([0x01])]));
    expect(raw.subarray(32)).toEqual(s);
  });

  it('refuses what is not a DER signature', () => {
    expect(() => derToP1363(Buffer.alloc(64, 1), 32)).toThrow();
    expect(() => derToP1363(Buffer.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x03, 0x01, 0x01]), 32)).toThrow();
  });
});
