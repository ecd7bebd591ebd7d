import { describe, expect, it } from 'vitest';
import { describeWalletPolicy, formatUnits } from '../../src/services/sessionKeys/policyWording.js';

const GEM = '0x00000000000000000000000000000000000000aA';
const GAME = '0x00000000000000000000000000000000000000Bb';
const base = {
  calls: [{ to: GEM, selectors: ['0xa9059cbb'] }],
  max_value_per_call_wei: '0',
  max_value_per_day_wei: '0',
  token_limits: [{ token: GEM, per_day: '100000000000000000000' }],
  valid_for_seconds: 30 * 86_400,
};
const grantedAt = Date.UTC(2026, 10, 24, 12); // 24 Nov 2026

describe('describeWalletPolicy', () => {
  const info = new Map([[GEM.toLowerCase(), { symbol: 'GEM', decimals: 18 }]]);

  it('says a token cap in token units with the end date', () => {
    expect(describeWalletPolicy(base, info, grantedAt)).toEqual([
      'may spend up to 100 GEM a day from your wallet until 24 Dec 2026',
      'You can revoke this at any time; it ends when you revoke the app.',
    ]);
  });

  it('says value caps in ether and names other calls', () => {
    const sentences = describeWalletPolicy(
      {
        ...base,
        calls: [...base.calls, { to: GAME, selectors: ['0x12345678', '0x9abcdef0'] }],
        max_value_per_call_wei: '10000000000000000',
        max_value_per_day_wei: '50000000000000000',
      },
      info,
      grantedAt,
    );
    expect(sentences).toContain(
      'may send up to 0.05 ETH a day (at most 0.01 ETH at a time) from your wallet until 24 Dec 2026',
    );
    expect(sentences).toContain('may call 2 functions of 0x0000…00Bb from your wallet until 24 Dec 2026');
  });

  it('falls back to base units when the token could not be read', () => {
    expect(describeWalletPolicy(base, new Map(), grantedAt)[0]).toBe(
      'may spend up to 100000000000000000000 tokens of 0x0000…00aA a day from your wallet until 24 Dec 2026',
    );
  });

  it('formats units without trailing zeros', () => {
    expect(formatUnits(1_500_000_000_000_000_000n, 18)).toBe('1.5');
    expect(formatUnits(7n, 0)).toBe('7');
    expect(formatUnits(300n, 18)).toBe('0.0000000000000003');
  });
});
