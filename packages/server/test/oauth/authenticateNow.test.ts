import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { Authenticator, type RevocationList } from '../../src/services/tokens/authenticator.js';
import type { TokenClaims, TokenService } from '../../src/services/tokens/tokenService.js';

const access: TokenClaims = {
  use: 'access',
  userId: 'u1',
  clientId: 'c1',
  grantId: 'g1',
  jti: 'j1',
  iat: 1,
  exp: Math.floor(Date.now() / 1000) + 3600,
} as TokenClaims;
const login: TokenClaims = {
  ...access,
  use: 'login',
  clientId: undefined,
  grantId: undefined,
} as TokenClaims;

/** A TokenService whose cache holds `cached`; `verify` (the signature check) answers for any token. */
function tokensWith(cached: Record<string, TokenClaims>, all: Record<string, TokenClaims> = cached) {
  const calls = { verify: 0 };
  const tokens = {
    verifyCached: (token: string) => cached[token],
    verify: async (token: string) => {
      calls.verify++;
      const claims = all[token];
      if (!claims) throw new AppError(401, 'invalid_token', 'bad');
      return claims;
    },
  } as unknown as TokenService;
  return { tokens, calls };
}

const list = (isRevoked: RevocationList['isRevoked']): RevocationList => ({ isRevoked });

describe('Authenticator.authenticateNow (the promise-free path of GET /v1/oauth/validate)', () => {
  it('answers a cached access token at once when the revocation list answers at once', () => {
    const { tokens, calls } = tokensWith({ t: access });
    const auth = new Authenticator(
      tokens,
      list(() => false),
    );
    expect(auth.authenticateNow('t', 'access')).toBe(access);
    expect(calls.verify).toBe(0);
  });

  it('throws the revoked error synchronously, the same one authenticate rejects with', async () => {
    const { tokens } = tokensWith({ t: access });
    const auth = new Authenticator(
      tokens,
      list(() => true),
    );
    expect(() => auth.authenticateNow('t', 'access')).toThrow(
      expect.objectContaining({ status: 401, code: 'invalid_token', message: 'The token has been revoked' }),
    );
    await expect(auth.authenticate('t', 'access')).rejects.toMatchObject({
      status: 401,
      code: 'invalid_token',
      message: 'The token has been revoked',
    });
  });

  it('takes the full path (a promise) for a token not seen before', async () => {
    const { tokens, calls } = tokensWith({}, { t: access });
    const auth = new Authenticator(
      tokens,
      list(() => false),
    );
    const answer = auth.authenticateNow('t', 'access');
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBe(access);
    expect(calls.verify).toBe(1);
  });

  it('waits for a revocation list that has to ask the database (out of sync), and honours its answer', async () => {
    const { tokens } = tokensWith({ t: access });
    const revoked = new Authenticator(
      tokens,
      list(async () => true),
    );
    const answer = revoked.authenticateNow('t', 'access');
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toMatchObject({ code: 'invalid_token' });
    const live = new Authenticator(
      tokens,
      list(async () => false),
    );
    await expect(live.authenticateNow('t', 'access')).resolves.toBe(access);
  });

  it('sends login tokens through the full path, so the password-change cutoff is always read', async () => {
    const { tokens } = tokensWith({ t: login });
    const auth = new Authenticator(
      tokens,
      list(() => false),
    );
    auth.useLoginCutoff(async () => ({ validAfter: login.iat + 1 }));
    const answer = auth.authenticateNow('t', 'login');
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('authenticateSeen answers only a cached, non-login token, and undefined otherwise (the caller then parses and verifies)', () => {
    const { tokens, calls } = tokensWith({ t: access, l: login }, { t: access, l: login, n: access });
    const auth = new Authenticator(
      tokens,
      list(() => false),
    );
    expect(auth.authenticateSeen('t', 'access')).toBe(access);
    expect(auth.authenticateSeen('n', 'access')).toBeUndefined();
    expect(auth.authenticateSeen('l', 'login')).toBeUndefined();
    expect(calls.verify).toBe(0);
  });
});
