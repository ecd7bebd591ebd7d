import { getAddress } from 'viem';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, pinOf, registerPin, type RegisteredPin, type TestUser } from '../pin/pinHelpers.js';

interface Entry {
  action: string;
  outcome: string;
  status: number;
  error_code?: string;
  actor_kind: string;
  actor_user?: string;
  address: string;
  request_id: string;
  details: Record<string, unknown>;
}

describe.each([{ postgres: false }, { postgres: true }])('audit trail (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let user: TestUser;
  let wallet: RegisteredPin;
  let adminKey: string;
  const password = 'correct horse battery';
  const recipient = getAddress(`0x${'cd'.repeat(20)}`);
  const secrets: string[] = [];
  const changedPassword = 'changed password 2';
  const resetPassword = 'reset password 3';
  const pagePassword = 'page sign-up password 4';
  let pageUser: { email: string; uuid: string };

  const send = (method: string, route: string, token: string) =>
    fetch(`${server.url}${route}`, { method, headers: { authorization: `Bearer ${token}` } });

  /** The 8-digit code of the newest reset mail to `email` (the embedded mailer's outbox). */
  async function resetCodeMailedTo(email: string): Promise<string> {
    const outbox = path.join(server.dataDir, 'outbox');
    for (let i = 0; i < 100; i++) {
      const files = fs.existsSync(outbox) ? fs.readdirSync(outbox) : [];
      for (const file of files) {
        const text = fs.readFileSync(path.join(outbox, file), 'utf8');
        const code = /reset code is (\d{8})/.exec(text)?.[1];
        if (text.includes(email) && code) return code;
      }
      await new Promise((r) => setTimeout(r, 50)); // the mail is sent in the background
    }
    throw new Error(`no reset mail to ${email}`);
  }

  /** GET the page's sign-up form, then POST it with the cookie and CSRF token it set. */
  async function signUpOnAuthorizePage(clientId: string): Promise<{ email: string; uuid: string }> {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:9/cb',
      state: 'page',
    });
    const form = await fetch(`${server.url}/oauth/authorize/signup?${params}`);
    expect(form.status).toBe(200);
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())![1]!;
    const email = `page-${Date.now()}@example.com`;
    params.set('csrf_token', csrf);
    params.set('email', email);
    params.set('password', pagePassword);
    const posted = await fetch(`${server.url}/oauth/authorize/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: params.toString(),
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    const login = await call<{ uuid: string }>(server, '/v1/dev-user/login_devuser', {
      email,
      password: pagePassword,
    });
    expect(login.status).toBe(200);
    return { email, uuid: login.body.uuid };
  }

  const audit = async (query = '') => {
    const res = await fetch(`${server.url}/v1/admin/audit${query}`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { success: boolean; entries: Entry[]; next_cursor?: string };
  };

  beforeAll(async () => {
    if (opts.postgres && !postgresAvailable) return;
    server = await startTestServer(opts);
    adminKey = server.services.secrets.adminApiKey;
    // One user's whole journey through the audited routes, failures included.
    user = await newUser(server, 'audit');
    const badLogin = await call(server, '/v1/dev-user/login_devuser', {
      email: user.email,
      password: 'wrong password',
    });
    expect(badLogin.status).toBe(401);
    const app = await call<{ client_id: string; client_secret: string }>(
      server,
      '/v1/dev-user/clients',
      { name: 'Audited app', redirect_uris: ['http://127.0.0.1:9/cb'] },
      user.token,
    );
    expect(app.status).toBe(201);
    wallet = await registerPin(server, user, '424242');
    const funded = await call(
      server,
      '/v1/admin/faucet',
      { address: wallet.address, token: '5000' },
      adminKey,
    );
    expect(funded.status).toBe(200);
    const verify = await call(
      server,
      '/v1/pin/verify',
      {
        user_uuid: user.uuid,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
        calls: [{ to: recipient, value: '0', data: '0xdeadbeef' + '00'.repeat(32) }],
      },
      user.token,
    );
    expect(verify.status).toBe(200);
    const wrongPin = await call(
      server,
      '/v1/pin/verify',
      {
        user_uuid: user.uuid,
        ...pinOf('000000', wallet.pin.pin_salt),
        key_share_user: wallet.key_share_user,
      },
      user.token,
    );
    expect(wrongPin.status).toBe(401);
    const transfer = await call(
      server,
      '/v1/token/transfer',
      {
        from_address: wallet.address,
        to_address: recipient,
        amount: '1200',
        contract_address: server.services.chain.info.contracts.token,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
      },
      user.token,
    );
    expect(transfer.status).toBe(200);
    // The account lifecycle: consent revoke, logout, password change, reset by mail.
    const consentCode = await fetch(
      `${server.url}/oauth/authorize?response_type=code&client_id=${app.body.client_id}&redirect_uri=http://127.0.0.1:9/cb&state=s`,
      { headers: { authorization: `Bearer ${user.token}` }, redirect: 'manual' },
    );
    const code = new URL(consentCode.headers.get('location')!).searchParams.get('code')!;
    const tokens = await call<{ access_token: string; refresh_token: string }>(server, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
    });
    expect(tokens.status).toBe(200);
    const revoked = await send('DELETE', `/v1/dev-user/consents/${app.body.client_id}`, user.token);
    expect(revoked.status).toBe(200);
    const second = await call<{ token: string }>(server, '/v1/dev-user/login_devuser', {
      email: user.email,
      password,
    });
    expect((await send('POST', '/v1/dev-user/logout', second.body.token)).status).toBe(200);
    const changed = await call(
      server,
      '/v1/dev-user/password',
      { current_password: password, new_password: changedPassword },
      user.token,
    );
    expect(changed.status).toBe(200);
    expect((await call(server, '/v1/dev-user/password/reset-request', { email: user.email })).status).toBe(
      200,
    );
    const resetCode = await resetCodeMailedTo(user.email);
    const wrongReset = await call(server, '/v1/dev-user/password/reset', {
      email: user.email,
      code: '00000000',
      new_password: resetPassword,
    });
    expect(wrongReset.status).toBe(400);
    const reset = await call(server, '/v1/dev-user/password/reset', {
      email: user.email,
      code: resetCode,
      new_password: resetPassword,
    });
    expect(reset.status).toBe(200);
    // A player signs up on the authorize page (the HTML form, with its CSRF cookie and token).
    pageUser = await signUpOnAuthorizePage(app.body.client_id);

    secrets.push(
      changedPassword,
      resetPassword,
      resetCode,
      second.body.token,
      tokens.body.access_token,
      tokens.body.refresh_token,
      pagePassword,
      password,
      user.token,
      wallet.pin.pin_hash,
      wallet.key_share_user,
      wallet.mnemonic,
      app.body.client_secret,
      adminKey,
    );
  });
  afterAll(() => server?.close());

  it('records every action of the journey with actor, address, request id and outcome', async (ctx) => {
    if (!server) return ctx.skip();
    const { entries } = await audit(`?user_id=${user.uuid}&limit=500`);
    const actions = entries.map((e) => `${e.action}:${e.outcome}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'account.register:success',
        'account.login:success',
        'client.create:success',
        'pin.register:success',
        'pin.verify:success',
        'pin.verify:denied',
        'token.transfer:success',
      ]),
    );
    const verify = entries.find((e) => e.action === 'pin.verify' && e.outcome === 'success')!;
    expect(verify).toMatchObject({
      status: 200,
      actor_kind: 'user',
      actor_user: String(user.uuid),
      address: '127.0.0.1',
      request_id: expect.stringMatching(/^[A-Za-z0-9_-]{16}-[0-9a-z]+$/),
    });
    expect(verify.details).toEqual({
      calls: [{ to: recipient, value: '0', selector: '0xdeadbeef' }],
      user_op_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    // PIN set-up keeps the wallet's address (nested in its answer's data), never the mnemonic or share.
    expect(entries.find((e) => e.action === 'pin.register')!.details).toEqual({ address: wallet.address });
    const denied = entries.find((e) => e.action === 'pin.verify' && e.outcome === 'denied')!;
    expect(denied).toMatchObject({ status: 401, error_code: 'invalid_pin' });
    const transfer = entries.find((e) => e.action === 'token.transfer')!;
    expect(transfer.details).toMatchObject({
      from_address: wallet.address,
      to_address: recipient,
      amount: '1200',
    });
    // Newest first.
    expect(entries.findIndex((e) => e.action === 'token.transfer')).toBeLessThan(
      entries.findIndex((e) => e.action === 'pin.register'),
    );

    // A failed login names no account; the e-mail it tried is kept.
    const { entries: logins } = await audit('?action=account.login&outcome=denied');
    expect(logins[0]).toMatchObject({ actor_kind: 'anonymous', status: 401, details: { email: user.email } });

    // The account lifecycle: each action recorded, with no code or password in its details.
    const byAction = (action: string) => entries.filter((e) => e.action === action);
    expect(byAction('consent.revoke')).toEqual([
      expect.objectContaining({
        outcome: 'success',
        actor_kind: 'user',
        details: { client_id: expect.stringMatching(/^[0-9a-f]{32}$/), revoked_grants: 1 },
      }),
    ]);
    expect(byAction('account.logout')).toEqual([
      expect.objectContaining({ outcome: 'success', actor_kind: 'user', details: {} }),
    ]);
    expect(byAction('account.password_change')).toEqual([
      expect.objectContaining({ outcome: 'success', status: 200, actor_kind: 'user', details: {} }),
    ]);
    // Reset request and confirm carry no bearer: found by action, with the e-mail they named.
    const { entries: requests } = await audit('?action=account.password_reset_request');
    expect(requests.find((e) => e.details.email === user.email)).toMatchObject({
      outcome: 'success',
      actor_kind: 'anonymous',
      details: { email: user.email },
    });
    const { entries: resets } = await audit('?action=account.password_reset');
    const mine = resets.filter((e) => e.details.email === user.email);
    expect(mine.map((e) => `${e.outcome}:${e.status}:${e.error_code ?? ''}`)).toEqual([
      'success:200:',
      'failure:400:invalid_reset_code',
    ]);
    // The page sign-up names the account it created (its answer is a redirect, not JSON).
    const { entries: page } = await audit(`?user_id=${pageUser.uuid}`);
    expect(page.find((e) => e.action === 'account.register_page')).toMatchObject({
      outcome: 'success',
      status: 303,
      actor_kind: 'anonymous', // no credential was presented; the account is the one it created
      actor_user: pageUser.uuid,
      details: { email: pageUser.email, client_id: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });

    const { entries: adminEntries } = await audit('?action=admin.faucet');
    expect(adminEntries[0]).toMatchObject({ actor_kind: 'admin', outcome: 'success' });
    expect(adminEntries[0]!.details).toMatchObject({ address: wallet.address, token: '5000' });
  });

  it('never stores a secret in any column', async (ctx) => {
    if (!server) return ctx.skip();
    const rows = await server.services.database.db.selectFrom('audit_log').selectAll().execute();
    expect(rows.length).toBeGreaterThan(8);
    const dump = JSON.stringify(rows);
    for (const secret of secrets) expect(dump).not.toContain(secret);
    expect(dump).not.toMatch(/pin_hash|key_share|password"|mnemonic|client_secret|"code"|csrf/);
  });

  it('pages by cursor and filters by outcome', async (ctx) => {
    if (!server) return ctx.skip();
    const first = await audit(`?user_id=${user.uuid}&limit=2`);
    expect(first.entries).toHaveLength(2);
    const second = await audit(`?user_id=${user.uuid}&limit=2&cursor=${first.next_cursor}`);
    expect(second.entries.map((e) => e.request_id)).not.toContain(first.entries[0]!.request_id);
    const denied = await audit(`?user_id=${user.uuid}&outcome=denied`);
    expect(denied.entries.every((e) => e.outcome === 'denied')).toBe(true);
    const bad = await fetch(`${server.url}/v1/admin/audit?cursor=nonsense`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(bad.status).toBe(400);
    const anonymous = await fetch(`${server.url}/v1/admin/audit`);
    expect(anonymous.status).toBe(401);
  });

  it('is append-only: the database refuses UPDATE and DELETE', async (ctx) => {
    if (!server) return ctx.skip();
    const db = server.services.database.db;
    await expect(sql`update audit_log set outcome = 'success'`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_log`.execute(db)).rejects.toThrow(/append-only/);
  });
});
