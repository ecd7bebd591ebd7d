import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, PRIVATE_PROXY_RANGES } from '../../src/config.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/rateLimitSettings.js';

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

describe('TRUST_PROXY', () => {
  it.each([
    ['false', false],
    ['true', [...PRIVATE_PROXY_RANGES]],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.7 ,fd00::/8', ['10.0.0.0/8', '192.168.1.7', 'fd00::/8']],
  ])('%s', (value, expected) => {
    expect(loadConfig({ ...base, TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('never maps to "trust everyone", and refuses what it cannot parse', () => {
    expect(loadConfig(base).trustProxy).toBe(false);
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', 'example.com', '1.2.3.4/8/1', '99']) {
      expect(problemsOf({ TRUST_PROXY: bad })).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
    }
  });
});

describe('RATE_LIMITS', () => {
  it('overrides the named limits and keeps every other default', () => {
    const { rateLimits } = loadConfig({ ...base, RATE_LIMITS: 'login=5/30s, readyz=10/m,admin=100/2h' });
    expect(rateLimits.login).toEqual({ max: 5, windowMs: 30_000 });
    expect(rateLimits.readyz).toEqual({ max: 10, windowMs: 60_000 });
    expect(rateLimits.admin).toEqual({ max: 100, windowMs: 7_200_000 });
    expect(rateLimits.login_address).toEqual(RATE_LIMIT_DEFAULTS.login_address);
  });

  it('keeps the older OAUTH_RATE_LIMIT unless RATE_LIMITS names oauth_token', () => {
    expect(loadConfig({ ...base, OAUTH_RATE_LIMIT: '50' }).rateLimits.oauth_token.max).toBe(50);
    expect(
      loadConfig({ ...base, OAUTH_RATE_LIMIT: '50', RATE_LIMITS: 'oauth_token=70/1m' }).rateLimits.oauth_token
        .max,
    ).toBe(70);
  });

  it('refuses unknown names and malformed entries, naming each', () => {
    const problems = problemsOf({ RATE_LIMITS: 'logins=5/1m,login=five/1m,readyz=0/1m,admin=1/2d' });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/unknown limit "logins"/);
  });
});

describe('callback targets and redirect URIs', () => {
  it('allows private targets in the embedded default only, unless CALLBACK_ALLOW_PRIVATE says otherwise', () => {
    const production = {
      DATABASE_URL: 'postgres://db/dauth',
      MASTER_KEY: 'ab'.repeat(32),
      ADMIN_API_KEY: 'x'.repeat(20),
    };
    expect(loadConfig(base).callbackAllowPrivate).toBe(true);
    expect(loadConfig({ ...base, CALLBACK_ALLOW_PRIVATE: 'false' }).callbackAllowPrivate).toBe(false);
    expect(loadConfig({ ...base, ...production }).callbackAllowPrivate).toBe(false);
    expect(loadConfig({ ...base, ...production, CALLBACK_ALLOW_PRIVATE: 'true' }).callbackAllowPrivate).toBe(
      true,
    );
    expect(loadConfig({ ...base, ...production }).requireHttpsRedirects).toBe(true);
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://auth.example' }).requireHttpsRedirects).toBe(true);
    expect(loadConfig(base).requireHttpsRedirects).toBe(false);
  });
});
