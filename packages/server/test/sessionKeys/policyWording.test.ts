import { describe, expect, it } from 'vitest';
import { wordPolicy } from '../../src/http/pages/consentPage.js';
import { translatorFor } from '../../src/i18n/translator.js';
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
const until = new Date(Date.UTC(2026, 11, 24, 12)); // 30 days later
/** The consent page's own date format (`{until, date, medium}`) in each locale. */
const day = (locale: string) =>
  new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' }).format(until);

describe('describeWalletPolicy', () => {
  const info = new Map([[GEM.toLowerCase(), { symbol: 'GEM', decimals: 18 }]]);

  it('gives a token cap in token units, and the end of a grant made now', () => {
    expect(describeWalletPolicy(base, info, grantedAt)).toEqual({
      terms: [{ kind: 'token_per_day', amount: '100', symbol: 'GEM' }],
      until,
    });
  });

  it('gives value caps in ether and counts the other calls per contract', () => {
    const { terms } = describeWalletPolicy(
      {
        ...base,
        calls: [...base.calls, { to: GAME, selectors: ['0x12345678', '0x9abcdef0'] }],
        max_value_per_call_wei: '10000000000000000',
        max_value_per_day_wei: '50000000000000000',
      },
      info,
      grantedAt,
    );
    expect(terms).toEqual([
      { kind: 'token_per_day', amount: '100', symbol: 'GEM' },
      { kind: 'ether_per_day', perDay: '0.05', perCall: '0.01' },
      { kind: 'calls', contracts: [{ functions: 2, contract: '0x0000…00Bb' }] },
    ]);
  });

  it('falls back to base units and the short address when the token could not be read', () => {
    expect(describeWalletPolicy(base, new Map(), grantedAt).terms).toEqual([
      { kind: 'token_per_day_base_units', amount: '100000000000000000000', token: '0x0000…00aA' },
    ]);
  });

  it('says the policy allows calls only when it names no cap and no other call', () => {
    const { terms } = describeWalletPolicy({ ...base, token_limits: [], calls: [] }, info, grantedAt);
    expect(terms).toEqual([{ kind: 'within_policy' }]);
  });

  it('formats units without trailing zeros', () => {
    expect(formatUnits(1_500_000_000_000_000_000n, 18)).toBe('1.5');
    expect(formatUnits(7n, 0)).toBe('7');
    expect(formatUnits(300n, 18)).toBe('0.0000000000000003');
  });
});

describe('the consent page words the terms in the player’s language', () => {
  const info = new Map([[GEM.toLowerCase(), { symbol: 'GEM', decimals: 18 }]]);
  const wording = describeWalletPolicy(
    {
      ...base,
      token_limits: [{ token: GEM, per_day: '1234567000000000000000300' }],
      calls: [...base.calls, { to: GAME, selectors: ['0x12345678', '0x9abcdef0'] }],
      max_value_per_call_wei: '10000000000000000',
      max_value_per_day_wei: '1500000000000000000',
    },
    info,
    grantedAt,
  );

  it('English: exact amounts with digit grouping, the date, a plural', () => {
    expect(wordPolicy(translatorFor('en'), wording)).toEqual([
      `may spend up to 1,234,567.0000000000000003 GEM a day from your wallet until ${day('en')}`,
      `may send up to 1.5 ETH a day (at most 0.01 ETH at a time) from your wallet until ${day('en')}`,
      `may call 2 functions of 0x0000…00Bb from your wallet until ${day('en')}`,
    ]);
  });

  it('German and Arabic: the locale’s separators, date and plural forms', () => {
    const de = wordPolicy(translatorFor('de'), wording);
    expect(de[0]).toBe(
      `bis zu 1.234.567,0000000000000003 GEM pro Tag aus Ihrer Wallet ausgeben, gültig bis ${day('de')}`,
    );
    expect(de[2]).toContain('2 Funktionen von 0x0000…00Bb');
    const ar = wordPolicy(translatorFor('ar'), wording);
    expect(ar[2]).toContain('دالتين من العقد 0x0000…00Bb');
    expect(ar[2]).toContain(day('ar'));
  });

  it('Russian plural forms: one, few and many', () => {
    const ru = translatorFor('ru');
    const calls = (count: number) =>
      wordPolicy(ru, {
        terms: [{ kind: 'calls', contracts: [{ functions: count, contract: '0x12…34' }] }],
        until,
      })[0];
    expect(calls(1)).toContain('1 функцию контракта');
    expect(calls(3)).toContain('3 функции контракта');
    expect(calls(5)).toContain('5 функций контракта');
  });
});
