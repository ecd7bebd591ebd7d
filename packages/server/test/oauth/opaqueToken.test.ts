import { describe, expect, it } from 'vitest';
import { newOpaqueToken } from '../../src/services/oauth/opaqueToken.js';

describe('newOpaqueToken', () => {
  it('hands out 256-bit base64url tokens, each once, across many refills of its random pool', () => {
    const seen = new Set<string>();
    // 64 tokens per pool: 10,000 tokens cross 150 refills.
    for (let i = 0; i < 10_000; i++) {
      const token = newOpaqueToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      seen.add(token);
    }
    expect(seen.size).toBe(10_000);
  });

  it('never hands out a wiped (all-zero) slice', () => {
    const zero = Buffer.alloc(32).toString('base64url');
    for (let i = 0; i < 1_000; i++) expect(newOpaqueToken()).not.toBe(zero);
  });
});
