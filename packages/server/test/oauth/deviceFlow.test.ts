import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  boundLoginToken,
  createOidcClient,
  discover,
  jwtPayload,
  type OidcTestClient,
} from '../oidc/support.js';
import { bearer, createUser, expectError, post, type TestUser } from './support.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §6.1's base-20 consonants, shown as XXXX-XXXX. */
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One poll of the token endpoint by hand (openid-client's poller hides the intermediate answers). */
async function pollOnce(server: TestServer, app: OidcTestClient, deviceCode: string) {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: DEVICE_GRANT,
      device_code: deviceCode,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const decide = (
  server: TestServer,
  user: TestUser,
  decision: 'approve' | 'deny',
  userCode: string,
  token = user.loginToken,
) => post(`${server.url}/v1/device/${decision}`, { user_code: userCode }, bearer(token));

/**
 * openid-client's own poller, watched: every answer of the token endpoint is recorded, so a test can
 * wait for the device to have been told `authorization_pending` after some event, then stop it.
 */
function watchedPoll(config: client.Configuration, started: client.DeviceAuthorizationResponse) {
  const answers: string[] = [];
  let waiter: { count: number; resolve: () => void } | undefined;
  config[client.customFetch] = async (url, options) => {
    const res = await fetch(url, options as RequestInit);
    if (new URL(url).pathname === '/oauth/token') {
      const body = (await res.clone().json()) as { error?: string };
      answers.push(body.error ?? 'tokens');
      if (waiter && answers.length >= waiter.count) waiter.resolve();
    }
    return res;
  };
  const stop = new AbortController();
  const tokens = client.pollDeviceAuthorizationGrant(config, started, undefined, { signal: stop.signal });
  tokens.catch(() => undefined); // awaited by the test, or stopped
  return {
    answers,
    tokens,
    stop: () => stop.abort(),
    /** Resolves once `more` answers beyond those recorded so far have come back. */
    next: (more: number) =>
      new Promise<void>((resolve) => {
        waiter = { count: answers.length + more, resolve };
      }),
  };
}

/** The verification page's confirmation for `userCode` (the session of `cookie`), then Allow or Deny. */
async function decideOnPage(
  server: TestServer,
  cookie: string,
  userCode: string,
  decision: 'allow' | 'deny',
) {
  const confirm = await fetch(
    `${server.url}/oauth/device?${new URLSearchParams({ user_code: userCode }).toString()}`,
    { headers: { cookie } },
  );
  expect(confirm.status).toBe(200);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await confirm.text())![1]!;
  return fetch(`${server.url}/oauth/device/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf_token: csrf, user_code: userCode, decision }),
  });
}

/**
 * The device authorization grant (RFC 8628) with openid-client's own device functions, unchanged
 * (`initiateDeviceAuthorization`, `pollDeviceAuthorizationGrant`): a console asks for codes, the
 * player approves or denies from a companion app, the console gets the code flow's tokens.
 */
describe.each([{ postgres: false }, { postgres: true }])(
  'device authorization grant (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    let user: TestUser;
    let app: OidcTestClient;
    let other: OidcTestClient;
    let config: client.Configuration;

    beforeAll(async () => {
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer({ ...opts, env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
      user = await createUser(server.url);
      app = await createOidcClient(server.url, user, ['http://127.0.0.1:9/callback'], {
        name: 'Space Console',
      });
      other = await createOidcClient(server.url, user, ['http://127.0.0.1:9/callback']);
      config = await discover(server.url, app);
    });
    afterAll(() => server?.close());

    it.skipIf(opts.postgres && !postgresAvailable)('is advertised in both discovery documents', async () => {
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
        const doc = (await (await fetch(`${server.url}${path}`)).json()) as Record<string, unknown>;
        expect(doc.device_authorization_endpoint).toBe(`${server.url}/oauth/device_authorization`);
        expect(doc.grant_types_supported).toContain(DEVICE_GRANT);
      }
      expect(config.serverMetadata().device_authorization_endpoint).toBe(
        `${server.url}/oauth/device_authorization`,
      );
    });

    it.skipIf(opts.postgres && !postgresAvailable)(
      'pending, then approved from a companion app: the code flow tokens, an id_token, a working refresh token; the device code is single use',
      async () => {
        const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile email' });
        expect(started.user_code).toMatch(USER_CODE);
        expect(started.verification_uri).toBe(`${server.url}/device`);
        expect(started.verification_uri_complete).toBe(`${server.url}/device?user_code=${started.user_code}`);
        expect(started.expires_in).toBe(600);
        expect(started.interval).toBe(1);
        expect(started.device_code.length).toBeGreaterThanOrEqual(43);

        expect(await pollOnce(server, app, started.device_code)).toMatchObject({
          status: 400,
          body: { error: 'authorization_pending' },
        });
        const polling = client.pollDeviceAuthorizationGrant(config, started);
        await sleep(1500);
        // The companion app (signed in to this app: its login JWT is bound to it) types the code as
        // the player reads it: lower case, no dash.
        const approved = await decide(
          server,
          user,
          'approve',
          started.user_code.toLowerCase().replace('-', ''),
          await boundLoginToken(server.url, user, app.clientId),
        );
        expect(approved.status).toBe(200);
        expect(await approved.json()).toEqual({
          success: true,
          client_id: app.clientId,
          client_name: 'Space Console',
          user_code: started.user_code,
        });

        const tokens = await polling;
        expect(tokens.token_type).toBe('bearer');
        expect(tokens.expires_in).toBe(3600);
        const claims = tokens.claims()!;
        expect(claims).toMatchObject({
          iss: server.url,
          aud: app.clientId,
          sub: user.uuid,
          email: user.email,
        });
        expect(claims.nonce).toBeUndefined();
        // auth_time: when the companion app's login JWT was issued (its password sign-in).
        expect(typeof claims.auth_time).toBe('number');
        expect(jwtPayload(tokens.access_token)).toMatchObject({ sub: user.uuid, client_id: app.clientId });
        expect((await client.fetchUserInfo(config, tokens.access_token, user.uuid)).email).toBe(user.email);

        const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
        expect(refreshed.access_token).not.toBe(tokens.access_token);
        expect(refreshed.claims()!.sub).toBe(user.uuid);

        // A second redemption of the device code fails and revokes what the first one issued.
        const again = await pollOnce(server, app, started.device_code);
        expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant', reason: 'code_used' } });
        await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
          error: 'invalid_grant',
        });
        // The decided code is no longer pending.
        await expectError(await decide(server, user, 'approve', started.user_code), 400, 'invalid_user_code');
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      'denied from the companion app: access_denied',
      async () => {
        const started = await client.initiateDeviceAuthorization(config, {});
        const polling = client.pollDeviceAuthorizationGrant(config, started);
        const denied = await decide(server, user, 'deny', ` ${started.user_code.toLowerCase()} `);
        expect(denied.status).toBe(200);
        await expect(polling).rejects.toMatchObject({ error: 'access_denied' });
        expect(await pollOnce(server, app, started.device_code)).toMatchObject({
          status: 400,
          body: { error: 'access_denied' },
        });
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      'polling too fast: slow_down, and the interval grew by 5 s for every later poll',
      async () => {
        const started = await client.initiateDeviceAuthorization(config, {});
        expect(started.interval).toBe(1);
        expect((await pollOnce(server, app, started.device_code)).body.error).toBe('authorization_pending');
        const tooFast = await pollOnce(server, app, started.device_code);
        expect(tooFast).toMatchObject({ status: 400, body: { error: 'slow_down', interval: 6 } });
        // 1.5 s later would have been on time at the first interval of 1 s; the interval is now 6 s.
        await sleep(1500);
        expect(await pollOnce(server, app, started.device_code)).toMatchObject({
          status: 400,
          body: { error: 'slow_down', interval: 11 },
        });
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      "another app's device code, a missing one and an unknown one are refused and change nothing",
      async () => {
        const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
        const stolen = await pollOnce(server, other, started.device_code);
        expect(stolen).toMatchObject({
          status: 400,
          body: { error: 'invalid_grant', reason: 'client_mismatch' },
        });
        // The owner's first poll is still on time: the other app's attempt recorded nothing.
        expect((await pollOnce(server, app, started.device_code)).body.error).toBe('authorization_pending');
        expect((await pollOnce(server, app, 'not-a-device-code')).body).toMatchObject({
          error: 'invalid_grant',
          reason: 'device_code_unknown',
        });
        const missing = await post(`${server.url}/oauth/token`, {
          grant_type: DEVICE_GRANT,
          client_id: app.clientId,
          client_secret: app.clientSecret,
        });
        expect((await expectError(missing, 400, 'invalid_request')).field).toBe('device_code');
        const unauthenticated = await post(`${server.url}/oauth/device_authorization`, {
          client_id: app.clientId,
          client_secret: 'wrong',
        });
        await expectError(unauthenticated, 401, 'invalid_client');
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      'a login JWT bound to another app decides nothing: 401 client_mismatch',
      async () => {
        const started = await client.initiateDeviceAuthorization(config, {});
        const bound = await boundLoginToken(server.url, user, other.clientId);
        for (const decision of ['approve', 'deny']) {
          await expectError(
            await post(
              `${server.url}/v1/device/${decision}`,
              { user_code: started.user_code },
              bearer(bound),
            ),
            401,
            'client_mismatch',
          );
        }
        expect((await pollOnce(server, app, started.device_code)).body.error).toBe('authorization_pending');
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      'an unbound login JWT approves only what the player consented to: 403 consent_required and the device keeps waiting, until the page is allowed',
      async () => {
        // A player who never approved the app; an app backend holds their relayed, unbound login JWT.
        const player = await createUser(server.url);
        const watched = await discover(server.url, app);
        const started = await client.initiateDeviceAuthorization(watched, { scope: 'openid email' });
        const poll = watchedPoll(watched, started);

        const refused = await expectError(
          await decide(server, player, 'approve', started.user_code),
          403,
          'consent_required',
        );
        expect(refused).not.toHaveProperty('client_id');
        // Two more answers to the device after the refusal: still pending, no tokens; then it stops.
        await poll.next(2);
        poll.stop();
        await expect(poll.tokens).rejects.toThrow();
        expect(poll.answers.every((a) => a === 'authorization_pending')).toBe(true);

        // The player allows it on the verification page (their consent, recorded for these scopes).
        const cookie = await signInOnDevicePage(server, player);
        expect((await decideOnPage(server, cookie, started.user_code, 'allow')).status).toBe(200);
        const tokens = await client.pollDeviceAuthorizationGrant(config, started);
        expect(tokens.claims()).toMatchObject({ sub: player.uuid, email: player.email });

        // The recorded consent now covers an unbound approval for the same scopes (or fewer)…
        const again = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
        const approved = await decide(server, player, 'approve', again.user_code);
        expect(approved.status).toBe(200);
        expect((await client.pollDeviceAuthorizationGrant(config, again)).claims()).toMatchObject({
          sub: player.uuid,
          email: player.email,
        });
        // …but not one asking for a claim the player never approved, nor another app.
        const more = await client.initiateDeviceAuthorization(config, { scope: 'openid email profile' });
        await expectError(await decide(server, player, 'approve', more.user_code), 403, 'consent_required');
        const otherConfig = await discover(server.url, other);
        const elsewhere = await client.initiateDeviceAuthorization(otherConfig, {});
        await expectError(
          await decide(server, player, 'approve', elsewhere.user_code),
          403,
          'consent_required',
        );
        // Denying needs no consent: it gives the app nothing.
        expect((await decide(server, player, 'deny', more.user_code)).status).toBe(200);
        expect((await pollOnce(server, other, elsewhere.device_code)).body.error).toBe(
          'authorization_pending',
        );
      },
    );

    it.skipIf(opts.postgres && !postgresAvailable)(
      'the companion API takes only a login JWT, and a wrong code is a 400',
      async () => {
        const started = await client.initiateDeviceAuthorization(config, {});
        const noToken = await post(`${server.url}/v1/device/approve`, { user_code: started.user_code });
        expect(noToken.status).toBe(401);
        await expectError(await decide(server, user, 'approve', 'BCDF-GHJK'), 400, 'invalid_user_code');
        await expectError(await decide(server, user, 'approve', 'AAAA-0000'), 400, 'invalid_user_code');
        expect((await pollOnce(server, app, started.device_code)).body.error).toBe('authorization_pending');
      },
    );
  },
);

describe('device authorization grant: expiry', () => {
  let server: TestServer;
  let user: TestUser;
  let app: OidcTestClient;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer({
      env: { DEVICE_CODE_TTL_SECONDS: '1', DEVICE_CODE_INTERVAL_SECONDS: '1' },
    });
    user = await createUser(server.url);
    app = await createOidcClient(server.url, user, ['http://127.0.0.1:9/callback']);
    config = await discover(server.url, app);
  });
  afterAll(() => server?.close());

  it('an expired device code answers expired_token and can no longer be approved', async () => {
    const started = await client.initiateDeviceAuthorization(config, {});
    expect(started.expires_in).toBe(1);
    // The library's own deadline is expires_in; give it more so the server's answer is what ends the poll.
    const polling = client.pollDeviceAuthorizationGrant(config, started, undefined, {
      signal: AbortSignal.timeout(10_000),
    });
    await expect(polling).rejects.toMatchObject({ error: 'expired_token' });
    await expectError(await decide(server, user, 'approve', started.user_code), 400, 'invalid_user_code');
  });
});

/** Signs in on the verification page as a browser would (CSRF cookie and field, then the form): its cookies. */
async function signInOnDevicePage(server: TestServer, user: TestUser): Promise<string> {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value!);
    }
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await fetch(`${server.url}/oauth/device`);
  keep(form);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())![1]!;
  const login = await fetch(`${server.url}/oauth/device/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() },
    body: new URLSearchParams({ csrf_token: csrf, email: user.email, password: user.password }),
  });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/oauth/device');
  keep(login);
  return cookieHeader();
}

describe('device authorization grant: guessing user codes', () => {
  let server: TestServer;
  let user: TestUser;
  let app: OidcTestClient;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.url);
    app = await createOidcClient(server.url, user, ['http://127.0.0.1:9/callback']);
    config = await discover(server.url, app);
  });
  afterAll(() => server?.close());

  it('ten wrong user codes from one address, on the page and the API together: the next one, even the right code, is 429', async () => {
    const started = await client.initiateDeviceAuthorization(config, {});
    const cookie = await signInOnDevicePage(server, user);
    const onPage = (code: string) =>
      fetch(`${server.url}/oauth/device?${new URLSearchParams({ user_code: code }).toString()}`, {
        headers: { cookie },
      });
    // The right code on the page: the confirmation, with the app's name.
    const right = await onPage(started.user_code.toLowerCase());
    expect(right.status).toBe(200);
    expect(await right.text()).toContain(started.user_code);
    for (let i = 0; i < 5; i++) {
      const wrong = await onPage(`BCDF-GH${'JKLMN'[i]}K`);
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('This code is wrong or has expired');
    }
    for (let i = 0; i < 5; i++) {
      await expectError(
        await decide(server, user, 'approve', `BCDF-GH${'PQRST'[i]}K`),
        400,
        'invalid_user_code',
      );
    }
    const limited = await decide(server, user, 'approve', started.user_code);
    await expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const limitedPage = await onPage(started.user_code);
    expect(limitedPage.status).toBe(429);
    // Nothing was decided: the device is still waiting.
    await sleep(1000);
    const poll = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: DEVICE_GRANT,
        device_code: started.device_code,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      }),
    });
    expect(((await poll.json()) as { error: string }).error).toBe('authorization_pending');
  });
});

describe('device authorization grant: guessing from many addresses and accounts', () => {
  let server: TestServer;
  let app: OidcTestClient;
  let config: client.Configuration;
  let attackers: TestUser[];

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        // Each request's client address is its X-Forwarded-For (sent by the test over loopback).
        TRUST_PROXY: 'true',
        DEVICE_CODE_INTERVAL_SECONDS: '1',
        // The suite signs a hundred attackers up from loopback; the sign-up limits are not under test.
        RATE_LIMITS: 'login_address=1000/1m,register=1000/1m',
      },
    });
    const owner = await createUser(server.url);
    app = await createOidcClient(server.url, owner, ['http://127.0.0.1:9/callback'], {
      name: 'Space Console',
    });
    config = await discover(server.url, app);
    attackers = [];
    for (let batch = 0; batch < 10; batch++) {
      attackers.push(...(await Promise.all(Array.from({ length: 10 }, () => createUser(server.url)))));
    }
  }, 120_000);
  afterAll(() => server?.close());

  /** `POST /v1/device/approve` from `address` (the proxy's X-Forwarded-For). */
  const approveFrom = (address: string, token: string, userCode: string) =>
    post(
      `${server.url}/v1/device/approve`,
      { user_code: userCode },
      { ...bearer(token), 'x-forwarded-for': address },
    );
  /** A wrong user code: right alphabet and length, never issued (issued codes are random; this is fixed). */
  const wrongCode = (i: number) => `BCDF-${'GHJKLMNPQRSTVWXZ'[i % 16]}${'GHJKLMNPQRSTVWXZ'[(i >> 4) % 16]}XZ`;

  it('one account guessing from many addresses is cut off after device_user_code_user wrong codes', async () => {
    const guesser = await createUser(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await approveFrom(`192.0.2.${i + 1}`, guesser.loginToken, wrongCode(i))).status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it("1,000 wrong user codes from 100 addresses and accounts while a player approves their own code: the player's approval succeeds, the guessers are held", async () => {
    const player = await createUser(server.url);
    const token = await boundLoginToken(server.url, player, app.clientId);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });

    // 100 addresses, one account each, 10 wrong codes each (every address and account within its
    // own limit): 1,000 wrong codes in all, the default global budget of a minute.
    const statuses = new Map<number, number>();
    await Promise.all(
      attackers.map(async (attacker, a) => {
        for (let i = 0; i < 10; i++) {
          const res = await approveFrom(`203.0.113.${a + 1}`, attacker.loginToken, wrongCode(a * 10 + i));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    expect(statuses.get(200)).toBeUndefined();
    expect((statuses.get(400) ?? 0) + (statuses.get(429) ?? 0)).toBe(1000);

    // The player, from their own address, with their own code: approved at once.
    const approved = await approveFrom('198.51.100.7', token, started.user_code);
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ success: true, client_id: app.clientId });
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    expect(tokens.claims()).toMatchObject({ sub: player.uuid, aud: app.clientId });

    // The guessers are held: an address that used its wrong codes gets 429 even for a live code…
    const other = await client.initiateDeviceAuthorization(config, {});
    await expectError(
      await approveFrom('203.0.113.1', attackers[1]!.loginToken, other.user_code),
      429,
      'rate_limited',
    );
    // …and while the global budget is spent, a fresh address and account get only a few wrong codes.
    const fresh = await createUser(server.url);
    const freshStatuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      freshStatuses.push((await approveFrom('198.51.100.99', fresh.loginToken, wrongCode(500 + i))).status);
    }
    expect(freshStatuses).toEqual([400, 400, 400, 429]);
  }, 120_000);
});
