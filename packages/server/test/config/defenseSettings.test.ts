import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { DATA_DIR: '/tmp/dauth-config-test' };
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ ...base, ...env });
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

/** BOT_CHALLENGE and PASSWORD_MIN_SCORE (decisions §9 "Launch-day defenses", README). */
describe('launch-day defense settings', () => {
  it.each([
    [undefined, []],
    ['off', []],
    ['guest', ['guest']],
    [' Login , signup,guest,login ', ['login', 'signup', 'guest']],
  ])('BOT_CHALLENGE=%s', (value, expected) => {
    const env = value === undefined ? base : { ...base, BOT_CHALLENGE: value };
    expect(loadConfig(env).botChallenge).toEqual(expected);
  });

  it('refuses what BOT_CHALLENGE cannot cover, and a PASSWORD_MIN_SCORE outside 0–4', () => {
    expect(problemsOf({ BOT_CHALLENGE: 'guest,captcha' })).toEqual([expect.stringMatching(/^BOT_CHALLENGE/)]);
    expect(loadConfig(base).passwordMinScore).toBe(2);
    expect(loadConfig({ ...base, PASSWORD_MIN_SCORE: '0' }).passwordMinScore).toBe(0);
    for (const bad of ['5', '-1', '2.5', 'strong']) {
      expect(problemsOf({ PASSWORD_MIN_SCORE: bad })).toEqual([expect.stringMatching(/^PASSWORD_MIN_SCORE/)]);
    }
  });
});
