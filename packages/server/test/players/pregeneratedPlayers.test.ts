import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { signIdToken, startStaticIssuer, type StaticIssuer } from '../helpers/oidcUpstream.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForMail } from '../helpers/outbox.js';
import { call, chainClient, registerPin } from '../pin/pinHelpers.js';

/**
 * Pre-generated players (decisions §9, docs/players.md): a studio's account made by e-mail before the first
 * sign-in is the account of the person who later PROVES that e-mail — same uuid, same wallet address — and
 * never of one who only signs up with it.
 */
describe('pre-generated players', () => {
  let server: TestServer;
  const password = 'correct horse battery';

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const pregenerate = (email: string) =>
    server.services.pregeneration.pregenerate({ orgId: 'org_test', clientId: 'app_test', email });
  const login = (email: string) =>
    call<{ success: boolean; token?: string; uuid?: string; error?: string }>(
      server,
      '/v1/dev-user/login_devuser',
      { email, password },
    );
  const newEmail = () => `pre-${randomBytes(6).toString('hex')}@example.com`;

  it('makes the account and a counterfactual wallet with no gas spent; the same e-mail answers the same', async () => {
    const email = newEmail();
    const made = await pregenerate(email);
    expect(made.created).toBe(true);
    expect(made.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(
      await chainClient(server).getCode({ address: made.walletAddress as `0x${string}` }),
    ).toBeUndefined();
    expect(await pregenerate(email.toUpperCase())).toEqual({ ...made, created: false });
  });

  it('sign-up alone does not open the account; the mailbox proof gives exactly that uuid and wallet', async () => {
    const email = newEmail();
    const made = await pregenerate(email);
    const since = Date.now();
    const reg = await call<{ uuid: string }>(server, '/v1/dev-user/register', { email, password });
    expect(reg.status).toBe(201);
    expect(reg.body.uuid).toBe(String(made.userUuid));

    // Unverified: the right password opens nothing.
    const early = await login(email);
    expect(early.status).toBe(403);
    expect(early.body).toMatchObject({ success: false, error: 'email_verification_required' });
    expect(early.body.token).toBeUndefined();

    const mail = await waitForMail(server.dataDir, email, { since, includes: 'verify-email?token=' });
    const token = /verify-email\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    const confirmed = await fetch(`${server.url}/v1/dev-user/verify-email/confirm`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        origin: new URL(server.url).origin,
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(confirmed.status).toBe(200);

    const signedIn = await login(email);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.uuid).toBe(String(made.userUuid));
    const wallet = await fetch(`${server.url}/v1/dev-user/wallet`, {
      headers: { authorization: `Bearer ${signedIn.body.token}` },
    });
    expect(await wallet.json()).toMatchObject({ success: true, address: made.walletAddress });

    // The first PIN adopts the pre-generated wallet: the same address, its key now split with the PIN.
    const pin = await registerPin(server, { uuid: made.userUuid, email, token: signedIn.body.token! });
    expect(pin.address).toBe(made.walletAddress);
    const db = server.services.database.db;
    const custody = await db
      .selectFrom('wallet_custody')
      .select('wallet_address')
      .where('user_uuid', '=', made.userUuid)
      .executeTakeFirst();
    expect(custody?.wallet_address).toBe(made.walletAddress);
    const left = await db
      .selectFrom('pregenerated_players')
      .select(['mnemonic_sealed', 'claimed_at'])
      .where('user_uuid', '=', made.userUuid)
      .executeTakeFirstOrThrow();
    expect(left.mnemonic_sealed).toBeNull();
    expect(Number(left.claimed_at)).toBeGreaterThan(0);
  });

  it('a second sign-up with the e-mail is refused as taken, and an unverified sign-up never gets the account', async () => {
    const email = newEmail();
    const made = await pregenerate(email);
    expect((await call(server, '/v1/dev-user/register', { email, password })).status).toBe(201);
    const second = await call(server, '/v1/dev-user/register', { email, password: 'another password 123' });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'email_taken' });
    for (let i = 0; i < 2; i++) {
      const attempt = await login(email);
      expect(attempt.status).toBe(403);
      expect(attempt.body.error).toBe('email_verification_required');
    }
    // Nothing else reaches it either: no sign-in of any kind, so no token names it.
    expect(await server.services.users.emailVerified(made.userUuid)).toBe(false);
  });

  it('refuses to pre-generate an e-mail an account already has', async () => {
    const email = newEmail();
    expect((await call(server, '/v1/dev-user/register', { email, password })).status).toBe(201);
    await expect(pregenerate(email)).rejects.toMatchObject({ code: 'player_exists', status: 409 });
  });
});

describe('pre-generated players by platform identity', () => {
  let server: TestServer;
  let issuer: StaticIssuer;

  beforeAll(async () => {
    issuer = await startStaticIssuer();
    server = await startTestServer({
      env: {
        IDENTITY_PROVIDERS: JSON.stringify([
          { id: 'platform', kind: 'oidc', name: 'Platform', client_id: 'game-app', issuer: issuer.issuer },
          {
            id: 'steam-game',
            kind: 'steam_ticket',
            app_id: '480',
            web_api_key: 'k'.repeat(32),
            identity: 'dauth',
          },
        ]),
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  it('the first sign-in with the identity is the pre-generated account: same uuid, same wallet', async () => {
    const subject = `7656119${Date.now()}`;
    const made = await server.services.pregeneration.pregenerate({
      orgId: 'org_test',
      clientId: 'app_test',
      platform: { provider: 'platform', subject },
    });
    expect(made.created).toBe(true);
    const idToken = await signIdToken(issuer.keys[0]!, {
      iss: issuer.issuer,
      aud: 'game-app',
      sub: subject,
      exp: Math.floor(Date.now() / 1000) + 600,
      jti: randomUUID(),
    });
    const signedIn = await call<{ token: string; uuid: string; created: boolean }>(
      server,
      '/v1/dev-user/federated-login',
      { provider: 'platform', id_token: idToken },
    );
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ uuid: String(made.userUuid), created: false });
    const wallet = await fetch(`${server.url}/v1/dev-user/wallet`, {
      headers: { authorization: `Bearer ${signedIn.body.token}` },
    });
    expect(await wallet.json()).toMatchObject({ address: made.walletAddress });
  });

  it('stores a Steam identity under the key every Steam way in shares (steam), by entry id or by that key', async () => {
    const subject = `7656119${Date.now() + 1}`;
    const byEntry = await server.services.pregeneration.pregenerate({
      orgId: 'org_test',
      clientId: 'app_test',
      platform: { provider: 'steam-game', subject },
    });
    const row = await server.services.database.db
      .selectFrom('federated_identities')
      .select(['provider', 'subject'])
      .where('user_uuid', '=', byEntry.userUuid)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ provider: 'steam', subject });
    const byKey = await server.services.pregeneration.pregenerate({
      orgId: 'org_test',
      clientId: 'app_test',
      platform: { provider: 'steam', subject },
    });
    expect(byKey).toEqual({ ...byEntry, created: false });
  });

  it('refuses a provider that is not configured', async () => {
    await expect(
      server.services.pregeneration.pregenerate({
        orgId: 'org_test',
        clientId: 'app_test',
        platform: { provider: 'nope', subject: '1' },
      }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
