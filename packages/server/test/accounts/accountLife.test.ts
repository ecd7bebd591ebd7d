import { randomBytes } from 'node:crypto';
import { type Address, getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { postgresAvailable } from '../helpers/environment.js';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { signIdToken, startStaticIssuer, type StaticIssuer } from '../helpers/oidcUpstream.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorizeWithBearer, exchange } from '../oauth/support.js';
import { chainClient, type RegisteredPin, registerPin } from '../pin/pinHelpers.js';
import { type CreationOptions, SoftAuthenticator } from '../players/softAuthenticator.js';
import { grant, request, tokenTransferPolicy } from '../sessionKeys/support.js';
import { WebhookReceiver } from '../webhooks/receiver.js';
import { addMember, createOrg } from '../orgs/support.js';

/**
 * Decisions §9 "the account's own life": `DELETE /v1/dev-user/account` ends everything at once and erases the
 * person (the wallet stays on chain), `GET /v1/dev-user/account/export` gives everything about them without a
 * secret. A real dauth (SQLite, then PostgreSQL) with its embedded chain, a real upstream issuer for the
 * linked identity, a software passkey and a studio's webhook receiver verifying with `standardwebhooks`.
 */
const backends = postgresAvailable ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const CONSOLE = 'dauth:console';
const now = () => Math.floor(Date.now() / 1000);

describe.each(backends)('account deletion and export on %s', (backend) => {
  let server: TestServer;
  let issuer: StaticIssuer;
  let receiver: WebhookReceiver;
  let dev: TestUser;
  let app: TestClient;
  let player: TestUser;
  /** The player's fresh first-party (console) login JWT. */
  let consoleToken: string;
  let wallet: RegisteredPin;
  let tokens: { access_token: string; refresh_token: string };
  let sessionKey: string;
  let passkey: SoftAuthenticator;
  const sub = `sub-${randomBytes(6).toString('hex')}`;
  const cuid = `game-${randomBytes(5).toString('hex')}`;
  let webhookSecret: string;
  /** The studio's organization, the player a member by invitation (its audit log and invitation name the player). */
  let orgId: string;

  const del = (token: string, body: unknown) =>
    request(server, 'DELETE', '/v1/dev-user/account', token, body);
  const exportOf = (token: string) =>
    fetch(`${server.url}/v1/dev-user/account/export`, { headers: bearer(token) });
  /** The linked identity's id_token; `bare` leaves out the e-mail and name (a sign-in that names nobody). */
  const idToken = (bare = false) =>
    signIdToken(issuer.keys[0]!, {
      iss: issuer.issuer,
      aud: 'life-app',
      sub,
      exp: now() + 600,
      ...(bare ? {} : { email: player.email, email_verified: true, name: player.nickname }),
    });
  const consoleLogin = async (user: TestUser) => {
    const res = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: user.email,
      password: user.password,
      client_id: CONSOLE,
    });
    return { status: res.status, body: (await res.json()) as { token: string; uuid: string } };
  };

  /**
   * Every text column of every row of every table (the catalogue's list, not ours) holding the e-mail or the
   * nickname of the player, as `table.column: row`.
   */
  const personalData = async (): Promise<string[]> => {
    const db = server.services.database.db;
    const tables =
      backend === 'sqlite'
        ? (
            await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
          ).rows.map((r) => r.name)
        : (
            await sql<{ name: string }>`select table_name as name from information_schema.tables
              where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
          ).rows.map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining(['users', 'audit_log', 'federated_identities', 'webhook_deliveries']),
    );
    const needles = [player.email.toLowerCase(), player.nickname.toLowerCase()];
    const found: string[] = [];
    let rowsRead = 0;
    for (const table of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
      for (const row of rows) {
        rowsRead++;
        for (const [column, value] of Object.entries(row)) {
          const text = typeof value === 'string' ? value.toLowerCase() : '';
          for (const needle of needles)
            if (text.includes(needle)) found.push(`${table}.${column}: ${JSON.stringify(row)}`);
        }
      }
    }
    expect(rowsRead).toBeGreaterThan(50);
    return found;
  };

  beforeAll(async () => {
    issuer = await startStaticIssuer();
    receiver = new WebhookReceiver();
    await receiver.start();
    server = await startTestServer({
      postgres: backend === 'postgres',
      env: {
        WEBHOOK_RETRY_BASE_MS: '40',
        WEBHOOK_RETRY_MAX_MS: '120',
        WEBHOOK_WORKER_INTERVAL_MS: '25',
        CALLBACK_ALLOW_PRIVATE: 'true',
        IDENTITY_PROVIDERS: JSON.stringify([
          { id: 'life', kind: 'oidc', name: 'Life ID', client_id: 'life-app', issuer: issuer.issuer },
        ]),
      },
    });
    // The studio: an app with a wallet policy, a content provider and a webhook endpoint.
    dev = await createUser(server.url);
    app = await createClient(server.url, dev, ['http://127.0.0.1:9/cb'], { dapp: true });
    const token = server.services.chainInfo.contracts.token;
    const policy = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${app.clientId}/wallet-policy`,
      dev.loginToken,
      tokenTransferPolicy(token, '1000'),
    );
    expect(policy.status).toBe(200);
    const provider = await post(
      `${server.url}/v1/development-api/init_permission_provider`,
      {
        client_id: app.clientId,
        cuid,
        release_per: 50,
        owner_addr: getAddress(`0x${randomBytes(20).toString('hex')}`),
      },
      bearer(dev.loginToken),
    );
    expect(provider.status, await provider.clone().text()).toBe(200);
    const endpoint = await post(
      `${server.url}/v1/dev-user/clients/${app.clientId}/webhooks`,
      { url: `${receiver.url}/studio`, events: ['user.deleted', 'grant.revoked', 'session_key.revoked'] },
      bearer(dev.loginToken),
    );
    expect(endpoint.status).toBe(201);
    webhookSecret = ((await endpoint.json()) as { secret: string }).secret;
    receiver.secrets.set('/studio', webhookSecret);

    // The player: one of each record (wallet, grant with tokens, session key, slot, purchase, passkey, identity).
    player = await createUser(server.url, `nick-${randomBytes(5).toString('hex')}`);
    wallet = await registerPin(server, {
      uuid: Number(player.uuid),
      email: player.email,
      token: player.loginToken,
    });
    const funded = await post(
      `${server.url}/v1/admin/faucet`,
      { address: wallet.address, token: '1000000', native: parseEther('1').toString() },
      bearer(server.services.secrets.adminApiKey),
    );
    expect(funded.status).toBe(200);
    const { code } = await authorizeWithBearer(server.url, player, app);
    const exchanged = await exchange(server.url, app, code);
    expect(exchanged.status).toBe(200);
    tokens = (await exchanged.json()) as typeof tokens;
    const granted = await grant(
      server,
      { user: player, wallet, accessToken: tokens.access_token },
      app.clientId,
    );
    expect(granted.status, JSON.stringify(granted.body)).toBe(201);
    sessionKey = String(granted.body.session_key);
    const { slot } = await server.services.slots.ensureSlot(Number(player.uuid), app.clientId);
    const bought = await request(
      server,
      'POST',
      '/v1/development-api/user_buy_content_token',
      player.loginToken,
      {
        client_id: app.clientId,
        user_dbkey: slot.id,
        amount: '1000',
        cuid,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
      },
    );
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);

    orgId = await createOrg(server, dev, 'Life Studio');
    await addMember(server, dev, orgId, player, 'viewer');

    const fresh = await consoleLogin(player);
    expect(fresh.status).toBe(200);
    consoleToken = fresh.body.token;
    passkey = new SoftAuthenticator(new URL(server.url).hostname, new URL(server.url).origin);
    const options = await request(
      server,
      'POST',
      '/v1/dev-user/passkeys/registration-options',
      consoleToken,
      {},
    );
    expect(options.status).toBe(200);
    const registered = await request(
      server,
      'POST',
      '/v1/dev-user/passkeys',
      consoleToken,
      passkey.register(options.body as CreationOptions),
    );
    expect(registered.status).toBe(201);
    const linked = await request(server, 'POST', '/v1/dev-user/identities', consoleToken, {
      provider: 'life',
      id_token: await idToken(),
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await issuer?.close();
  });

  it('a relayed unbound or app-bound JWT exports and deletes nothing (403); a stale console JWT gets 401', async () => {
    const bound = await server.services.tokens.issueLoginToken(player.uuid, { clientId: app.clientId });
    const stale = await server.services.tokens.issueLoginToken(player.uuid, {
      authTime: now() - 3600,
      clientId: CONSOLE,
    });
    for (const token of [player.loginToken, bound.token]) {
      const exported = await exportOf(token);
      expect(exported.status).toBe(403);
      expect(await exported.json()).toMatchObject({ success: false, error: 'first_party_required' });
      const deleted = await del(token, { confirm: player.email });
      expect(deleted.status).toBe(403);
      expect(deleted.body).toMatchObject({ success: false, error: 'first_party_required' });
    }
    const exported = await exportOf(stale.token);
    expect(exported.status).toBe(401);
    expect(await exported.json()).toMatchObject({ error: 'reauthentication_required' });
    const deleted = await del(stale.token, { confirm: player.email });
    expect(deleted.status).toBe(401);
    expect(deleted.body).toMatchObject({ error: 'reauthentication_required' });
    expect((await consoleLogin(player)).status).toBe(200);
  });

  it('exports every kind of record about the person, and no secret', async () => {
    const res = await exportOf(consoleToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const doc = JSON.parse(text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(doc.profile).toMatchObject({
      user_id: player.uuid,
      email: player.email,
      nickname: player.nickname,
    });
    expect(doc.ways_in.password).toBe(true);
    expect(doc.ways_in.passkeys).toEqual([expect.objectContaining({ id: passkey.id })]);
    expect(doc.ways_in.identities).toEqual([expect.objectContaining({ provider: 'life', subject: sub })]);
    // Approved with a bearer (no login page): a live grant, which the console lists as the consent.
    expect(doc.consents).toEqual([]);
    expect(doc.grants).toEqual([
      expect.objectContaining({ client_id: app.clientId, app_name: 'Test app', revoked_at: null }),
    ]);
    expect(doc.sessions.refresh_tokens).toEqual([expect.objectContaining({ client_id: app.clientId })]);
    expect(doc.wallets).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: wallet.address, kind: 'main' })]),
    );
    expect(doc.pin).toMatchObject({ wallet_address: wallet.address });
    expect(doc.slots).toEqual([expect.objectContaining({ client_id: app.clientId, state: 'active' })]);
    expect(doc.purchases.content).toEqual([
      expect.objectContaining({ client_id: app.clientId, cuid, amount: '1000', tx_hash: expect.any(String) }),
    ]);
    expect(doc.session_keys).toEqual([
      expect.objectContaining({
        client_id: app.clientId,
        state: 'active',
        session_key: sessionKey.toLowerCase(),
      }),
    ]);
    expect(doc.organizations).toEqual([
      { org_id: orgId, name: 'Life Studio', personal: false, role: 'viewer', joined_at: expect.any(String) },
    ]);
    expect(doc.audit.map((a: { action: string }) => a.action)).toEqual(
      expect.arrayContaining(['pin.register', 'content.purchase', 'identity.link']),
    );

    // No secret: the password hash, the sealed custody and session-key material, tokens, the app's secrets.
    const db = server.services.database.db;
    const user = await db
      .selectFrom('users')
      .selectAll()
      .where('user_uuid', '=', Number(player.uuid))
      .executeTakeFirstOrThrow();
    const custody = await db
      .selectFrom('wallet_custody')
      .selectAll()
      .where('user_uuid', '=', Number(player.uuid))
      .executeTakeFirstOrThrow();
    const key = await db
      .selectFrom('session_keys')
      .selectAll()
      .where('user_uuid', '=', Number(player.uuid))
      .executeTakeFirstOrThrow();
    const pk = await db
      .selectFrom('passkeys')
      .selectAll()
      .where('id', '=', passkey.id)
      .executeTakeFirstOrThrow();
    const secrets = [
      user.password_hash,
      player.password,
      custody.server_share_sealed,
      custody.mnemonic_sealed,
      wallet.mnemonic,
      wallet.key_share_user,
      key.key_sealed,
      pk.public_key,
      tokens.access_token,
      tokens.refresh_token,
      consoleToken,
      player.loginToken,
      app.clientSecret,
      webhookSecret,
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
  });

  it('a confirm that names another account or nothing answers 400 and changes nothing', async () => {
    for (const confirm of [dev.email, dev.uuid, 'yes', `${player.email}x`]) {
      const res = await del(consoleToken, { confirm });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'confirmation_mismatch' });
    }
    expect((await del(consoleToken, {})).status).toBe(400);
    expect((await exportOf(consoleToken)).status).toBe(200);
    expect((await consoleLogin(player)).status).toBe(200);
  });

  it('deletes at once: every token refused, every way in closed, the apps told, the wallet untouched, the e-mail free', async () => {
    const chain = chainClient(server);
    const address = wallet.address as Address;
    const tokenAddress = server.services.chainInfo.contracts.token;
    const before = {
      code: await chain.getCode({ address }),
      balance: await chain.getBalance({ address }),
      tokens: await server.services.chain.gateway.tokenBalance(address),
    };
    const uuid = Number(player.uuid);

    const res = await del(consoleToken, { confirm: ` ${player.email.toUpperCase()} ` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, deleted_at: expect.any(String) });
    // Before anything below names the address again (a sign-in attempt is audited with the address it tried).
    expect(await personalData()).toEqual([]);

    // Every earlier token: the login JWTs (console and unbound), the access token, the refresh token.
    for (const token of [consoleToken, player.loginToken]) {
      const me = await fetch(`${server.url}/v1/dev-user/consents`, { headers: bearer(token) });
      expect(me.status).toBe(401);
    }
    const introspected = await fetch(`${server.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(await introspected.json()).toMatchObject({ active: false });
    const refreshed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    expect(refreshed.status).toBe(400);

    // Every way in: the password, the passkey, the identity (an unknown subject now: a new account).
    const login = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: player.email,
      password: player.password,
    });
    expect(login.status).toBe(401);
    const options = await request(server, 'POST', '/v1/dev-user/passkeys/authentication-options', '', {});
    const assertion = await request(
      server,
      'POST',
      '/v1/dev-user/passkeys/login',
      '',
      passkey.assert(String(options.body.challenge)),
    );
    expect(assertion.status).toBe(401);
    const federated = await post(`${server.url}/v1/dev-user/federated-login`, {
      provider: 'life',
      id_token: await idToken(true),
    });
    expect(((await federated.json()) as { uuid?: string }).uuid).not.toBe(player.uuid);

    // The app learns it, signed for standardwebhooks; the session key is revoked on chain in the background.
    await receiver.waitFor((all) =>
      ['user.deleted', 'session_key.revoked'].every((type) =>
        all.some((r) => r.path === '/studio' && r.event.type === type),
      ),
    );
    const deleted = receiver.unique('/studio').filter((r) => r.event.type === 'user.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.verified).toBe(true);
    expect(deleted[0]!.event.data).toEqual({ client_id: app.clientId, user_id: player.uuid });
    expect(
      receiver.unique('/studio').find((r) => r.event.type === 'grant.revoked')?.event.data,
    ).toMatchObject({ user_id: player.uuid, reason: 'account_deleted' });
    const key = await server.services.database.db
      .selectFrom('session_keys')
      .select(['state', 'revoke_reason'])
      .where('user_uuid', '=', uuid)
      .executeTakeFirstOrThrow();
    expect(key).toEqual({ state: 'revoked', revoke_reason: 'account_deleted' });

    // The wallet on chain: the same code and the same balances.
    expect({
      code: await chain.getCode({ address }),
      balance: await chain.getBalance({ address }),
      tokens: await server.services.chain.gateway.tokenBalance(address),
    }).toEqual(before);
    expect(tokenAddress).toBeDefined();
  });

  it('keeps a tombstone (uuid, wallet, audit entries) that names nobody; the e-mail signs up again', async () => {
    const db = server.services.database.db;
    const uuid = Number(player.uuid);
    // The new account of the same e-mail holds it by right: set it aside, then read every table.
    await db
      .updateTable('users')
      .set({ email: 'someone-else@example.com' })
      .where('email', '=', player.email)
      .execute();
    // The tombstone: the uuid, deleted_at, nothing that names the person; no custody material left.
    expect(
      await db
        .selectFrom('users')
        .select(['email', 'nickname', 'password_hash'])
        .where('user_uuid', '=', uuid)
        .executeTakeFirst(),
    ).toEqual({ email: null, nickname: '', password_hash: '' });
    expect(await db.selectFrom('wallet_custody').selectAll().where('user_uuid', '=', uuid).execute()).toEqual(
      [],
    );
    expect(
      (await db.selectFrom('wallets').select('address').where('user_uuid', '=', uuid).execute()).map(
        (w) => w.address,
      ),
    ).toContain(wallet.address);
    const audit = await db
      .selectFrom('audit_log')
      .select('action')
      .where('actor_user', '=', player.uuid)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['account.delete', 'pin.register']));
    // The organization keeps its log and the accepted invitation, each naming nobody.
    const orgAudit = await db
      .selectFrom('org_audit')
      .select(['action', 'details'])
      .where('org_id', '=', orgId)
      .execute();
    const invited = orgAudit.find((entry) => entry.action === 'invitation.create');
    expect(JSON.parse(invited!.details)).toMatchObject({ email: '[erased]', role: 'viewer' });
    expect(
      await db
        .selectFrom('org_invitations')
        .select(['email', 'accepted_by'])
        .where('org_id', '=', orgId)
        .execute(),
    ).toEqual([{ email: '[erased]', accepted_by: expect.anything() }]);

    // The e-mail signs up again, as a new account; the old uuid stays a tombstone.
    const again = await post(`${server.url}/v1/dev-user/register`, {
      email: player.email,
      password: player.password,
    });
    expect(again.status).toBe(201);
    const relogin = await post(`${server.url}/v1/dev-user/login_devuser`, {
      email: player.email,
      password: player.password,
    });
    expect(relogin.status).toBe(200);
    expect(((await relogin.json()) as { uuid: string }).uuid).not.toBe(player.uuid);
    const deletedAgain = await del(consoleToken, { confirm: player.uuid });
    expect(deletedAgain.status).toBe(401);
  });
});
