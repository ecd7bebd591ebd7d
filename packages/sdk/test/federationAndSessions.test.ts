import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountLinkRequiredError,
  DauthClient,
  FederationError,
  FirstPartyRequiredError,
  GuestRequestError,
  IdTokenReplayedError,
  InvalidIdTokenError,
  LastSignInMethodError,
  OutsideSessionPolicyError,
  SessionOperationError,
} from '../src/index.js';
import { FakePlayerRoutes } from './support/fakePlayerRoutes.js';

/**
 * Federated sign-in and identities (issue 26) and session operations (issue 27) against a loopback
 * server speaking decisions §8's interface (test/support/fakePlayerRoutes.ts).
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

const lastCall = () => fake.calls.at(-1)!;

describe('federatedLogin', () => {
  it('sends provider, id_token and the app client_id; the first sign-in creates the account, the next finds it', async () => {
    const idToken = fake.issueIdToken('apple', 'apple-sub-1', 'p1@privaterelay.example');
    const first = await client.federatedLogin('apple', idToken);
    expect(lastCall()).toMatchObject({
      method: 'POST',
      path: '/v1/dev-user/federated-login',
      authorization: undefined,
    });
    expect(JSON.parse(lastCall().body)).toEqual({
      provider: 'apple',
      id_token: idToken,
      client_id: 'game-1',
    });
    expect(first).toEqual({
      token: `jwt.${first.uuid}`,
      uuid: expect.stringMatching(/^\d{19}$/),
      created: true,
    });
    const again = await client.federatedLogin('apple', fake.issueIdToken('apple', 'apple-sub-1'));
    expect(again).toEqual({ token: first.token, uuid: first.uuid, created: false });
  });

  it('a token the service refuses is InvalidIdTokenError (401), and nothing is created', async () => {
    const before = fake.identityCount();
    const refused = await client.federatedLogin('google', 'forged.id.token').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidIdTokenError);
    expect(refused).toBeInstanceOf(FederationError);
    expect(refused).toMatchObject({
      responseStatus: 401,
      errorCode: 'invalid_id_token',
      name: 'InvalidIdTokenError',
    });
    // A token of another provider is refused the same way.
    const crossed = await client
      .federatedLogin('google', fake.issueIdToken('apple', 'apple-sub-2'))
      .catch((e: unknown) => e);
    expect(crossed).toBeInstanceOf(InvalidIdTokenError);
    expect(fake.identityCount()).toBe(before);
  });

  it('an upstream e-mail of an existing account is AccountLinkRequiredError (409); linking it while signed in works', async () => {
    const login = fake.passwordAccount('taken@example.com');
    const idToken = fake.issueIdToken('google', 'g-77', 'taken@example.com');
    const refused = await client.federatedLogin('google', idToken).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AccountLinkRequiredError);
    expect(refused).toMatchObject({ responseStatus: 409, errorCode: 'account_exists_link_required' });
    expect(await client.listIdentities(login)).toEqual([]);

    const linked = await client.linkIdentity(login, 'google', idToken);
    expect(lastCall()).toMatchObject({
      method: 'POST',
      path: '/v1/dev-user/identities',
      authorization: `Bearer ${login}`,
    });
    expect(JSON.parse(lastCall().body)).toEqual({ provider: 'google', id_token: idToken });
    expect(linked).toEqual({
      id: expect.any(String),
      provider: 'google',
      providerName: 'Google',
      subject: 'g-77',
      email: 'taken@example.com',
      createdAt: '2026-11-26T12:00:00.000Z',
    });
    expect(await client.listIdentities(login)).toEqual([linked]);
    // Now the identity signs in to that account.
    const signedIn = await client.federatedLogin('google', fake.issueIdToken('google', 'g-77'));
    expect(signedIn).toMatchObject({ uuid: login.slice('console.'.length), created: false });

    const inUse = await client
      .linkIdentity(fake.passwordAccount('other@example.com'), 'google', fake.issueIdToken('google', 'g-77'))
      .catch((e: unknown) => e);
    expect(inUse).toBeInstanceOf(FederationError);
    expect(inUse).toMatchObject({ responseStatus: 409, errorCode: 'identity_in_use' });
    expect(inUse).not.toBeInstanceOf(AccountLinkRequiredError);

    await client.unlinkIdentity(login, linked.id);
    expect(lastCall()).toMatchObject({ method: 'DELETE', path: `/v1/dev-user/identities/${linked.id}` });
    expect(await client.listIdentities(login)).toEqual([]);
  });

  it('unlinking the last way in is LastSignInMethodError (409) and the identity stays', async () => {
    const created = await client.federatedLogin('discord', fake.issueIdToken('discord', 'd-1'));
    const [only] = await client.listIdentities(created.token);
    expect(only).toMatchObject({ provider: 'discord', providerName: 'Discord', email: null });
    const refused = await client
      .unlinkIdentity(fake.consoleLogin(created.uuid), only!.id)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LastSignInMethodError);
    expect(refused).toMatchObject({ responseStatus: 409, errorCode: 'last_sign_in_method' });
    expect(await client.listIdentities(created.token)).toHaveLength(1);
  });

  it("changing the ways in with the game's app-bound JWT is FirstPartyRequiredError (403), and nothing changes", async () => {
    const created = await client.federatedLogin('apple', fake.issueIdToken('apple', 'apple-fp-1'));
    const [only] = await client.listIdentities(created.token);
    const idToken = fake.issueIdToken('google', 'g-fp-1');

    const linkRefused = await client.linkIdentity(created.token, 'google', idToken).catch((e: unknown) => e);
    expect(linkRefused).toBeInstanceOf(FirstPartyRequiredError);
    expect(linkRefused).toBeInstanceOf(FederationError);
    expect(linkRefused).toMatchObject({
      responseStatus: 403,
      errorCode: 'first_party_required',
      name: 'FirstPartyRequiredError',
    });
    const unlinkRefused = await client.unlinkIdentity(created.token, only!.id).catch((e: unknown) => e);
    expect(unlinkRefused).toBeInstanceOf(FirstPartyRequiredError);
    expect(unlinkRefused).not.toBeInstanceOf(LastSignInMethodError);
    expect(await client.listIdentities(created.token)).toEqual([only]);

    // The player does it at the console; the refused id_token was not spent.
    await client.linkIdentity(fake.consoleLogin(created.uuid), 'google', idToken);
    expect(await client.listIdentities(created.token)).toHaveLength(2);
  });

  it("a guest's own app-bound JWT links its first identity (the upgrade), then no more", async () => {
    const guest = fake.guestAccount();
    await client.linkIdentity(guest, 'discord', fake.issueIdToken('discord', 'd-guest'));
    const refused = await client
      .linkIdentity(guest, 'google', fake.issueIdToken('google', 'g-guest'))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FirstPartyRequiredError);
    expect(await client.listIdentities(guest)).toHaveLength(1);
  });

  it('an id_token presented again is IdTokenReplayedError (401): sign-in and link alike', async () => {
    const idToken = fake.issueIdToken('apple', 'apple-replay');
    const first = await client.federatedLogin('apple', idToken);
    const replayed = await client.federatedLogin('apple', idToken).catch((e: unknown) => e);
    expect(replayed).toBeInstanceOf(IdTokenReplayedError);
    expect(replayed).toBeInstanceOf(FederationError);
    expect(replayed).not.toBeInstanceOf(InvalidIdTokenError);
    expect(replayed).toMatchObject({
      responseStatus: 401,
      errorCode: 'id_token_replayed',
      name: 'IdTokenReplayedError',
    });
    const linkToken = fake.issueIdToken('google', 'g-replay');
    await client.linkIdentity(fake.consoleLogin(first.uuid), 'google', linkToken);
    const relinked = await client
      .linkIdentity(fake.consoleLogin(first.uuid), 'google', linkToken)
      .catch((e: unknown) => e);
    expect(relinked).toBeInstanceOf(IdTokenReplayedError);
    // A new id_token from the platform signs in.
    const again = await client.federatedLogin('apple', fake.issueIdToken('apple', 'apple-replay'));
    expect(again).toMatchObject({ uuid: first.uuid, created: false });
  });

  it('the id of an identity is escaped into the path; a refusal without a login is a FederationError', async () => {
    const refused = await client.unlinkIdentity('jwt.nobody', '../../x').catch((e: unknown) => e);
    expect(fake.calls.at(-1)?.path).toBe('/v1/dev-user/identities/..%2F..%2Fx');
    expect(refused).toMatchObject({ responseStatus: 401, errorCode: 'invalid_token' });
    expect(refused).not.toBeInstanceOf(GuestRequestError);
  });
});

describe('sessionOperations', () => {
  const gem = '0x00000000000000000000000000000000000000a1';
  const elsewhere = '0x00000000000000000000000000000000000000b2';

  beforeAll(() => {
    fake.grantSessionKey({ accessToken: 'at-nested', allowedTargets: [gem], maxValuePerCallWei: 100n });
    fake.grantSessionKey({
      accessToken: 'at-spread',
      allowedTargets: [gem],
      maxValuePerCallWei: 100n,
      detailsStyle: 'spread',
    });
  });

  it('sends the calls with the access token, values as decimal wei strings, and reads hashes and exact results', async () => {
    const result = await client.sessionOperations('at-nested', [
      { to: gem, value: 100n, data: '0xa9059cbb' },
      { to: gem, value: '7' },
      { to: gem },
    ]);
    expect(lastCall()).toMatchObject({
      method: 'POST',
      path: '/v1/wallet/session-operations',
      authorization: 'Bearer at-nested',
    });
    expect(JSON.parse(lastCall().body)).toEqual({
      calls: [
        { to: gem, value: '100', data: '0xa9059cbb' },
        { to: gem, value: '7', data: '0x' },
        { to: gem, value: '0', data: '0x' },
      ],
    });
    expect(result.userOpHash).toMatch(/^0x[a]{63}\d$/);
    expect(result.txHash).toBe(`0x${'b'.repeat(64)}`);
    expect(result.results).toHaveLength(3);
    expect(result.results[2]).toEqual({ call_index: 2, to: gem, success: true });
  });

  it.each(['at-nested', 'at-spread'])(
    'a batch hiding one forbidden call is OutsideSessionPolicyError with its index and reason (%s details)',
    async (token) => {
      const refused = await client
        .sessionOperations(token, [
          { to: gem, value: 1n },
          { to: elsewhere, value: 0n },
        ])
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OutsideSessionPolicyError);
      expect(refused).toBeInstanceOf(SessionOperationError);
      expect(refused).toMatchObject({
        responseStatus: 403,
        errorCode: 'outside_session_policy',
        callIndex: 1,
        reason: 'call_not_allowed',
      });
      const over = await client.sessionOperations(token, [{ to: gem, value: 101n }]).catch((e: unknown) => e);
      expect(over).toMatchObject({ callIndex: 0, reason: 'value_per_call' });
    },
  );

  it('no grant for the app is SessionOperationError 404 session_key_not_found, not a policy refusal', async () => {
    const refused = await client.sessionOperations('at-unknown', [{ to: gem }]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionOperationError);
    expect(refused).not.toBeInstanceOf(OutsideSessionPolicyError);
    expect(refused).toMatchObject({ responseStatus: 404, errorCode: 'session_key_not_found' });
  });

  it('bad input is refused before anything is sent', async () => {
    const sent = fake.calls.length;
    const bad: [string, unknown][] = [
      ['', [{ to: gem }]],
      ['at-nested', []],
      ['at-nested', [{ to: '0x1234' }]],
      ['at-nested', [{ to: gem, value: -1n }]],
      ['at-nested', [{ to: gem, value: 1.5 }]],
      ['at-nested', [{ to: gem, value: '1e18' }]],
      ['at-nested', [{ to: gem, data: 'a9059cbb' }]],
      ['at-nested', [{ to: gem, data: '0xabc' }]],
    ];
    for (const [token, calls] of bad) {
      await expect(client.sessionOperations(token, calls as never)).rejects.toBeInstanceOf(TypeError);
    }
    expect(fake.calls.length).toBe(sent);
  });
});
