import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DauthClient,
  InvalidMfaCodeError,
  InvalidMfaTokenError,
  LoginMfaError,
  MfaRequiredError,
  registerContentProvider,
} from '../src/index.js';
import { FakePlayerRoutes } from './support/fakePlayerRoutes.js';

/**
 * Sign-ins of an account with a second factor (docs/mfa.md) against the loopback fake of the service's
 * routes: the first step is `MfaRequiredError`, never a session, and `loginMfa` is the second.
 */
let fake: FakePlayerRoutes;
let client: DauthClient;

beforeAll(async () => {
  fake = await FakePlayerRoutes.start();
  client = new DauthClient({
    clientId: 'game-1',
    clientSecret: 'secret-1',
    redirectUri: 'http://127.0.0.1:1/cb',
    authServerUrl: fake.url,
  });
});
afterAll(async () => {
  await client.shutdown();
  await fake.close();
});

/** A federated account with a second factor accepting `codes`: its uuid. */
async function federatedMfaAccount(subject: string, codes: string[]): Promise<string> {
  const { uuid } = await client.federatedLogin('google', fake.issueIdToken('google', subject));
  fake.enableMfa(uuid, codes);
  return uuid;
}

async function mfaRequired(promise: Promise<unknown>): Promise<MfaRequiredError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MfaRequiredError);
  return error as MfaRequiredError;
}

describe('federatedLogin of an account with a second factor', () => {
  it('is MfaRequiredError with the mfaToken, methods and created; loginMfa with a code gives the session', async () => {
    const uuid = await federatedMfaAccount('mfa-sub-1', ['123456']);
    const error = await mfaRequired(
      client.federatedLogin('google', fake.issueIdToken('google', 'mfa-sub-1')),
    );
    expect(error.mfaToken).toMatch(/^mfa\./);
    expect(error.methods).toEqual(['totp', 'recovery_code']);
    expect(error.expiresIn).toBe(300);
    expect(error.created).toBe(false);
    // The mfa_token is a capability: logging the error must not print it.
    expect(error.message).not.toContain(error.mfaToken);
    expect(inspect(error)).not.toContain(error.mfaToken);
    expect(JSON.stringify(error)).not.toContain(error.mfaToken);

    const session = await client.loginMfa(error.mfaToken, '123456');
    expect(fake.calls.at(-1)).toMatchObject({ method: 'POST', path: '/v1/dev-user/login/mfa' });
    expect(JSON.parse(fake.calls.at(-1)!.body)).toEqual({ mfa_token: error.mfaToken, code: '123456' });
    expect(session).toEqual({ token: `jwt.${uuid}`, uuid });
    // A working session: the account's own routes accept it.
    await expect(client.listIdentities(session.token)).resolves.toHaveLength(1);
  });

  it('a wrong code is InvalidMfaCodeError (ask again); a used token is InvalidMfaTokenError (sign in again)', async () => {
    await federatedMfaAccount('mfa-sub-2', ['222222']);
    const { mfaToken } = await mfaRequired(
      client.federatedLogin('google', fake.issueIdToken('google', 'mfa-sub-2')),
    );
    const wrong = await client.loginMfa(mfaToken, '000000').catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(InvalidMfaCodeError);
    expect(wrong).toBeInstanceOf(LoginMfaError);
    expect(wrong).toMatchObject({ responseStatus: 401, errorCode: 'invalid_mfa_code' });
    await client.loginMfa(mfaToken, '222222');
    const used = await client.loginMfa(mfaToken, '222222').catch((e: unknown) => e);
    expect(used).toBeInstanceOf(InvalidMfaTokenError);
    expect(used).toMatchObject({ responseStatus: 401, errorCode: 'invalid_mfa_token' });
  });

  it('after 5 codes the token is dead, the right code included', async () => {
    await federatedMfaAccount('mfa-sub-3', ['333333']);
    const { mfaToken } = await mfaRequired(
      client.federatedLogin('google', fake.issueIdToken('google', 'mfa-sub-3')),
    );
    for (let i = 0; i < 5; i++) {
      await expect(client.loginMfa(mfaToken, `00000${i}`)).rejects.toBeInstanceOf(InvalidMfaCodeError);
    }
    await expect(client.loginMfa(mfaToken, '333333')).rejects.toBeInstanceOf(InvalidMfaTokenError);
  });

  it('bad input is refused before anything is sent', async () => {
    const before = fake.calls.length;
    await expect(client.loginMfa('', '123456')).rejects.toBeInstanceOf(TypeError);
    await expect(client.loginMfa('mfa.1', '')).rejects.toBeInstanceOf(TypeError);
    expect(fake.calls.length).toBe(before);
  });
});

describe("registerContentProvider with the owner's password", () => {
  it('an owner with a second factor is MfaRequiredError and nothing is registered; loginMfa gives the loginToken', async () => {
    const uuid = fake.passwordLogin('owner@example.com', 'owner-password-1');
    fake.enableMfa(uuid, ['444444']);
    const before = fake.calls.length;
    const error = await mfaRequired(
      registerContentProvider({
        clientId: 'game-1',
        cuid: 'cuid-1',
        releasePer: 10,
        ownerAddr: `0x${'1'.repeat(40)}`,
        owner: { email: 'owner@example.com', password: 'owner-password-1' },
        authServerUrl: fake.url,
      }),
    );
    expect(fake.calls.slice(before).map((c) => c.path)).toEqual(['/v1/dev-user/login_devuser']);
    expect(error.created).toBeUndefined();
    await expect(client.loginMfa(error.mfaToken, '444444')).resolves.toEqual({ token: `jwt.${uuid}`, uuid });
  });
});
