import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorizeError,
  CallbackTimeoutError,
  ConsumptionError,
  ContentConsumer,
  createCallbackHandler,
  DauthClient,
  EnvelopeError,
  ExpiredTokenError,
  MissingJwtError,
  ShutdownError,
  toHttpStatus,
  WalletRequiredError,
} from '../../src/index.js';
import type { SlotInfo } from '../../src/index.js';
import { inCi } from '../../../server/test/helpers/environment.js';
import { freePort, startTestServer } from '../../../server/test/helpers/server.js';
import type { TestServer } from '../../../server/test/helpers/server.js';
import {
  createUser,
  expiredLoginJwt,
  registerWallet,
  type TestUser,
} from '../../../server/test/backend/support.js';
import {
  buy,
  newPlayer,
  newUser,
  post,
  type Player,
  type Provider,
} from '../../../server/test/content/contentSupport.js';
import {
  commandAvailable,
  exchangesBeatAuthorize,
  registerApp,
  runChild,
  startAppServer,
  startDelayingProxy,
  statusCheck,
  validateToken,
} from './support.js';
import type { AppServer, DelayingProxy, RegisteredApp } from './support.js';

/**
 * The three SDKs against a live dauth: `startTestServer()` (embedded SQLite and anvil chain), real
 * callback servers, and for Python and Go their own suites (`sdk/python/tests/test_e2e.py`,
 * `sdk/go/e2e_test.go`) as child processes against the same server. One server for the whole file.
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const pythonDir = path.join(repoRoot, 'sdk', 'python');
const goDir = path.join(repoRoot, 'sdk', 'go');
const pythonAvailable = commandAvailable('python3', ['--version']);
const goAvailable = commandAvailable('go', ['version']);

const CALLBACK_PATH = '/dauth/callback';
const GET_ONLY_PATH = '/get-only';
/** The callback wait of the timeout cases: short, but far above a loopback authorize and callback. */
const SHORT_TIMEOUT_MS = 1_500;
/** How long the proxy holds authorize's answer back (issue 15: the Go SDK answered 499 then). */
const AUTHORIZE_DELAY_MS = 1_500;
/** Content tokens each language's player buys (1 base unit per wei). */
const TOKENS_BOUGHT = '100000';

/** One user of one language: their own account, wallet and slot, so the suites cannot interfere. */
interface LanguageUser {
  user: TestUser;
  redirectUri: string;
  getOnlyUri: string;
}

describe('the SDKs against a live dauth', () => {
  let server: TestServer;
  let app: AppServer;
  let mainApp: RegisteredApp;
  let getOnlyApp: RegisteredApp;
  let client: DauthClient;
  let ts: LanguageUser;
  let python: LanguageUser;
  let go: LanguageUser;
  let proxy: DelayingProxy;
  /** A user with a login JWT but no PIN wallet: authorize answers 409 wallet_required. */
  let noWallet: TestUser;
  /** A developer whose Python and Go apps have no provider yet: each suite registers one with its SDK. */
  let registrant: TestUser;
  const registrantApps = new Map<'python' | 'go', RegisteredApp>();
  /** The content provider: its app's credentials, its cuid, and its CTR and GCM keys. */
  let provider: Provider & { clientSecret: string; gcmKey: string };
  const players = new Map<string, Player>();
  const clients: DauthClient[] = [];
  const warnings: string[] = [];

  /** A client of `registered` for the TypeScript app, shut down after the file. */
  function clientFor(registered: RegisteredApp, redirectUri: string): DauthClient {
    const made = new DauthClient({
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
      redirectUri,
      authServerUrl: server.url,
      logger: { warn: (message) => warnings.push(message) },
    });
    clients.push(made);
    return made;
  }

  /** A user with a login JWT and a PIN wallet, and the redirect URIs of their language's app. */
  async function languageUser(nickname: string, callbackBase?: string): Promise<LanguageUser> {
    const user = await createUser(server.url, nickname);
    await registerWallet(server.url, user);
    const base = callbackBase ?? `http://127.0.0.1:${await freePort()}`;
    // Python and Go serve the GET-only route on a port of its own; the SDK's handler has the other.
    const getOnlyBase = callbackBase ?? `http://127.0.0.1:${await freePort()}`;
    return { user, redirectUri: `${base}${CALLBACK_PATH}`, getOnlyUri: `${getOnlyBase}${GET_ONLY_PATH}` };
  }

  beforeAll(async () => {
    server = await startTestServer();
    // The handler resolves `client` per request: the app must listen before the client can name it.
    app = await startAppServer(CALLBACK_PATH, GET_ONLY_PATH, (request, response) =>
      createCallbackHandler(client)(request, response),
    );
    const developer = await createUser(server.url, 'Developer');
    ts = await languageUser('TsPlayer', app.url);
    python = await languageUser('PyPlayer');
    go = await languageUser('GoPlayer');
    const all = [ts, python, go];
    mainApp = await registerApp(
      server.url,
      developer.loginToken,
      'SDK e2e game',
      all.map((u) => u.redirectUri),
    );
    getOnlyApp = await registerApp(
      server.url,
      developer.loginToken,
      'SDK e2e GET-only game',
      all.map((u) => u.getOnlyUri),
    );
    client = clientFor(mainApp, ts.redirectUri);
    proxy = await startDelayingProxy(server.url, AUTHORIZE_DELAY_MS);
    noWallet = await createUser(server.url, 'NoWallet');
    provider = await contentProvider();
    registrant = await createUser(server.url, 'Registrant');
    for (const name of ['python', 'go'] as const) {
      registrantApps.set(
        name,
        await registerApp(server.url, registrant.loginToken, `SDK e2e ${name} provider`, [
          'https://registrant.example/cb',
        ]),
      );
    }
    for (const language of ['ts', 'python', 'go']) {
      const player = await newPlayer(server, provider);
      expect((await buy(server, provider, player, TOKENS_BOUGHT)).status).toBe(200);
      players.set(language, player);
    }
    // Each user's slot of the GET-only app exists before the short-timeout cases, so their wait is
    // spent on the refused callback, not on the slot's creation on chain. The TypeScript user's slot
    // of the main app is made by the SDK's first call below; Python's and Go's here, so that their
    // suites can compare the id they receive with the service's record.
    await Promise.all([
      ...all.map((u) => server.services.slots.ensureSlot(Number(u.user.uuid), getOnlyApp.clientId)),
      server.services.slots.ensureSlot(Number(python.user.uuid), mainApp.clientId),
      server.services.slots.ensureSlot(Number(go.user.uuid), mainApp.clientId),
    ]);
  });

  /** A provider registered as a studio would: its app (with the secret), its cuid, CTR and GCM keys. */
  async function contentProvider(): Promise<Provider & { clientSecret: string; gcmKey: string }> {
    const owner = await newUser(server, 'provider');
    const app = await registerApp(server.url, owner.token, 'SDK e2e content provider', [
      'https://provider.example/cb',
    ]);
    const cuid = `sdk-e2e-${Date.now().toString(36)}`;
    const ownerAddr = '0x00000000000000000000000000000000000d0a57';
    const registered = await post<{ encryption_key: string; encryption_iv: string }>(
      server,
      '/v1/development-api/init_permission_provider',
      { client_id: app.clientId, cuid, release_per: 50, owner_addr: ownerAddr },
      owner.token,
    );
    expect(registered.status).toBe(200);
    // Both forms accepted: the spec's CTR and the authenticated GCM (docs/content-tokens.md).
    const mode = await post<{ gcm_key: string }>(
      server,
      '/v1/development-api/payload_mode',
      { client_id: app.clientId, mode: 'ctr+gcm' },
      owner.token,
    );
    expect(mode.status).toBe(200);
    return {
      developer: owner,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      cuid,
      ownerAddr,
      key: registered.body.encryption_key,
      iv: registered.body.encryption_iv,
      registration: registered.body,
      gcmKey: mode.body.gcm_key,
    };
  }

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(clients.map((c) => c.shutdown()));
    await app?.close();
    await server?.close();
  });

  /** The service's record of the user's slot of the main app (meta_idx 0). */
  async function recordedSlot(user: TestUser) {
    const slot = await server.services.slots.slotAt(mainApp.clientId, Number(user.uuid), 0);
    if (!slot) throw new Error(`no slot recorded for user ${user.uuid}`);
    return slot;
  }

  describe('TypeScript SDK', () => {
    let first: SlotInfo;
    let second: SlotInfo;

    it('getSlotInfo creates the slot and returns it with the 19-digit id exact', async () => {
      first = await client.getSlotInfo({ jwt: ts.user.loginToken });
      const recorded = await recordedSlot(ts.user);

      // A new slot arrives as a raw JSON number; its 19 digits exceed 2^53 and survive exactly.
      expect(first.id.kind).toBe('number');
      expect(first.id.value).toMatch(/^[1-9]\d{18}$/);
      expect(first.id.toBigInt()).toBeGreaterThan(2n ** 53n);
      expect(first.id.value).toBe(recorded.id);
      expect(first).toMatchObject({
        content_address: recorded.contentAddress,
        token_nickname: 'TsPlayer',
        tr_cnt: 0,
        expires_in: 3600,
      });
      expect(first.content_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(first.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(first.refresh_token).toEqual(expect.any(String));

      const validated = await validateToken(server.url, first.access_token);
      expect(validated.status).toBe(200);
      expect(validated.body).toMatchObject({
        success: true,
        active: true,
        user_id: ts.user.uuid,
        client_id: mainApp.clientId,
      });
    });

    it('a second getSlotInfo returns the same slot with a fresh token pair', async () => {
      second = await client.getSlotInfo({ jwt: ts.user.loginToken });
      expect(second.id.equals(first.id)).toBe(true);
      expect(second).toMatchObject({ content_address: first.content_address, tr_cnt: 0 });
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.code).not.toBe(first.code);
      expect(await server.services.slots.listForOwner(Number(ts.user.uuid), mainApp.clientId)).toHaveLength(
        1,
      );
      expect((await validateToken(server.url, second.access_token)).status).toBe(200);
    });

    it('refresh returns the same slot with a rotated pair', async () => {
      const refreshed = await client.refresh(first.refresh_token!);
      expect(refreshed.id.equals(first.id)).toBe(true);
      expect(refreshed.access_token).not.toBe(first.access_token);
      expect(refreshed.refresh_token).not.toBe(first.refresh_token);
      expect(refreshed.code).toBe('');
      expect((await validateToken(server.url, refreshed.access_token)).status).toBe(200);
      first = refreshed;
    });

    it('reportLogin and reportLogout are reflected by /v1/oauth/status/check', async () => {
      const parameters = { accessToken: first.access_token, userId: ts.user.uuid };
      const login = await client.reportLogin(parameters);
      expect(login).toMatchObject({ ok: true, status: { status: 'logged_in', user_id: ts.user.uuid } });
      expect(await client.checkStatus(parameters)).toMatchObject({
        status: 'logged_in',
        transfer_enabled: false,
      });
      const raw = await statusCheck(server.url, first.access_token, ts.user.uuid, mainApp.clientId);
      expect(raw).toMatchObject({ status: 200, body: { status: 'logged_in', transfer_enabled: false } });

      const logout = await client.reportLogout(parameters);
      expect(logout).toMatchObject({ ok: true, status: { status: 'logged_out', transfer_enabled: true } });
      const after = await statusCheck(server.url, first.access_token, ts.user.uuid, mainApp.clientId);
      expect(after).toMatchObject({ status: 200, body: { status: 'logged_out', transfer_enabled: true } });
      expect(await client.checkStatus(parameters)).toMatchObject({ status: 'logged_out' });
      expect(warnings).toEqual([]);
    });

    it('a failed report comes back without throwing, and changes nothing', async () => {
      const before = await statusCheck(server.url, first.access_token, ts.user.uuid, mainApp.clientId);
      // Another user's id with this token: 403 from the service, returned (not thrown) by the SDK.
      const report = await client.reportLogin({ accessToken: first.access_token, userId: python.user.uuid });
      if (report.ok) throw new Error('a report for another user succeeded');
      expect(report.error.message).toMatch(/HTTP 403, forbidden/);
      expect(warnings).toEqual(['dauth: reporting login failed']);
      const after = await statusCheck(server.url, first.access_token, ts.user.uuid, mainApp.clientId);
      expect(after.body.status).toBe(before.body.status);
    });

    it('logout revokes that token pair only', async () => {
      await client.logout(first.access_token);
      expect((await validateToken(server.url, first.access_token)).status).toBe(401);
      const deadRefresh = await client.refresh(first.refresh_token!).catch((error: unknown) => error);
      expect(deadRefresh).toBeInstanceOf(EnvelopeError);
      expect((deadRefresh as EnvelopeError).code).toBe(510);
      // The pair of the second call was not touched.
      expect((await validateToken(server.url, second.access_token)).status).toBe(200);
      // Logging out twice: the envelope says the token is no longer valid.
      const again = await client.logout(first.access_token).catch((error: unknown) => error);
      expect(again).toBeInstanceOf(EnvelopeError);
      expect((again as EnvelopeError).code).toBe(401);
    });

    it('maps an expired JWT to 401, an invalid one to 502 (AUTHORIZE_ERROR) and a missing one to 400', async () => {
      const slotsBefore = await server.services.slots.listForOwner(Number(ts.user.uuid));
      const expired = await client
        .getSlotInfo({ jwt: await expiredLoginJwt(server, ts.user.uuid) })
        .catch((error: unknown) => error);
      expect(expired).toBeInstanceOf(ExpiredTokenError);
      expect((expired as Error).message).toBe('EXPIRED_TOKEN');
      expect(toHttpStatus(expired)).toBe(401);

      // The spec's table: only EXPIRED_TOKEN is 401; any other authorize failure is AUTHORIZE_ERROR, 502.
      const [header, payload, signature] = ts.user.loginToken.split('.') as [string, string, string];
      const forged = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      const invalid = await client.getSlotInfo({ jwt: forged }).catch((error: unknown) => error);
      expect(invalid).toBeInstanceOf(AuthorizeError);
      expect(invalid).toMatchObject({ responseStatus: 401, envelopeCode: 401 });
      expect(toHttpStatus(invalid)).toBe(502);

      const missing = await client.getSlotInfo({ jwt: '' }).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(MissingJwtError);
      expect(toHttpStatus(missing)).toBe(400);
      expect(await server.services.slots.listForOwner(Number(ts.user.uuid))).toEqual(slotsBefore);
    });

    it('a redirect_uri that is not registered is AUTHORIZE_ERROR: redirect_uri mismatch (502)', async () => {
      const stray = clientFor(mainApp, `${app.url}${CALLBACK_PATH}/`);
      const error = await stray.getSlotInfo({ jwt: ts.user.loginToken }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AuthorizeError);
      expect(error).toMatchObject({ reason: 'redirect_uri mismatch', responseStatus: 401 });
      expect(toHttpStatus(error)).toBe(502);
    });

    it('a GET-only callback route makes the call time out: authorize callback timeout, 408', async () => {
      const getOnly = clientFor(getOnlyApp, ts.getOnlyUri);
      const postsBefore = app.getOnlyHits.filter((hit) => hit.method === 'POST').length;
      const started = Date.now();
      const error = await getOnly
        .getSlotInfo({ jwt: ts.user.loginToken, timeout: SHORT_TIMEOUT_MS })
        .catch((caught: unknown) => caught);
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(CallbackTimeoutError);
      expect((error as Error).message).toBe('authorize callback timeout');
      expect(toHttpStatus(error)).toBe(408);
      expect(waited).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 50);
      // Well below the 15 s default: the call's own timeout ended it.
      expect(waited).toBeLessThan(SHORT_TIMEOUT_MS + 3_000);
      // The service did send the callback, once, and the route refused it with 405 (no retry).
      const posts = app.getOnlyHits.filter((hit) => hit.method === 'POST').slice(postsBefore);
      expect(posts).toEqual([{ method: 'POST', status: 405, at: expect.any(Number) }]);
    });

    it('shutdown fails a pending call with shutdown (503) at once and refuses later calls', async () => {
      const closing = clientFor(getOnlyApp, ts.getOnlyUri);
      const postsBefore = app.getOnlyHits.filter((hit) => hit.method === 'POST').length;
      const pending = closing
        .getSlotInfo({ jwt: ts.user.loginToken, timeout: 30_000 })
        .catch((caught: unknown) => caught);
      // Authorize was accepted and the callback refused: the call now only waits.
      await app.waitForGetOnlyPosts(postsBefore + 1);
      const started = Date.now();
      await closing.shutdown();
      const error = await pending;
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(error).toBeInstanceOf(ShutdownError);
      expect((error as Error).message).toBe('shutdown');
      expect(toHttpStatus(error)).toBe(503);

      const later = await closing.getSlotInfo({ jwt: ts.user.loginToken }).catch((caught: unknown) => caught);
      expect(later).toBeInstanceOf(ShutdownError);
      // Refused before any request: the route saw nothing more.
      expect(app.getOnlyHits.filter((hit) => hit.method === 'POST')).toHaveLength(postsBefore + 1);
    });
  });

  describe('TypeScript SDK: issue 15', () => {
    it('returns the slot when the callback and its exchange complete while authorize is still delayed', async () => {
      const delayed = new DauthClient({
        clientId: mainApp.clientId,
        clientSecret: mainApp.clientSecret,
        redirectUri: ts.redirectUri,
        authServerUrl: proxy.url,
      });
      clients.push(delayed);
      // The app's callback route serves `client`; let it hand this call's callback to `delayed`.
      const previous = client;
      client = delayed;
      const started = Date.now();
      try {
        const slot = await delayed.getSlotInfo({ jwt: ts.user.loginToken });
        expect(slot.id.value).toBe((await recordedSlot(ts.user)).id);
        expect((await validateToken(server.url, slot.access_token)).status).toBe(200);
      } finally {
        client = previous;
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(AUTHORIZE_DELAY_MS - 50);
      expect(exchangesBeatAuthorize(proxy, started)).toBe(true);
    });

    it('a user without a PIN wallet is WalletRequiredError (409), not a generic 502', async () => {
      const error = await client.getSlotInfo({ jwt: noWallet.loginToken }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WalletRequiredError);
      expect(error).toBeInstanceOf(AuthorizeError);
      expect(error).toMatchObject({ reason: 'wallet_required', responseStatus: 409, envelopeCode: 409 });
      expect(toHttpStatus(error)).toBe(409);
      expect(await server.services.slots.listForOwner(Number(noWallet.uuid))).toEqual([]);
    });

    for (const form of ['ctr', 'gcm'] as const) {
      it(`records consumption with a ${form.toUpperCase()} payload, with and without client authentication`, async () => {
        const player = players.get('ts')!;
        const cipher =
          form === 'ctr' ? { form, key: provider.key, iv: provider.iv } : { form, key: provider.gcmKey };
        const before = await balanceOf(player.slot);
        const consumer = new ContentConsumer({
          clientId: provider.clientId,
          cipher,
          authServerUrl: server.url,
        });
        const first = await consumer.record({
          userDbkey: player.slotId,
          amount: 7n,
          cuid: provider.cuid,
          requestId: `ts-${form}-1`,
        });
        expect(first).toMatchObject({
          status: 'included',
          cuid: provider.cuid,
          userDbkey: player.slotId,
          amount: '7',
          requestId: `ts-${form}-1`,
          txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          balance: String(before.balance - 7n),
          usedBalances: String(before.used + 7n),
        });
        // The same record with HTTP Basic client authentication (consume_auth: client_secret).
        const authenticated = new ContentConsumer({
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          cipher,
          authServerUrl: server.url,
        });
        const second = await authenticated.record({
          userDbkey: player.slotId,
          amount: '3',
          cuid: provider.cuid,
        });
        expect(second).toMatchObject({ status: 'included', usedBalances: String(before.used + 10n) });
        expect(await balanceOf(player.slot)).toEqual({
          balance: before.balance - 10n,
          used: before.used + 10n,
        });

        // More than the balance: refused with the service's code, and nothing changes.
        const refused = await consumer
          .record({ userDbkey: player.slotId, amount: '999999999', cuid: provider.cuid })
          .catch((caught: unknown) => caught);
        expect(refused).toBeInstanceOf(ConsumptionError);
        expect(refused).toMatchObject({ responseStatus: 409, errorCode: 'insufficient_balance' });
        // A wrong key: invalid_payload, nothing changes.
        const wrongKey = new ContentConsumer({
          clientId: provider.clientId,
          cipher: { ...cipher, key: 'ab'.repeat(32) },
          authServerUrl: server.url,
        });
        const forged = await wrongKey
          .record({ userDbkey: player.slotId, amount: '1', cuid: provider.cuid })
          .catch((caught: unknown) => caught);
        expect(forged).toMatchObject({ responseStatus: 401, errorCode: 'invalid_payload' });
        expect(await balanceOf(player.slot)).toEqual({
          balance: before.balance - 10n,
          used: before.used + 10n,
        });
      });
    }
  });

  /** The slot's content-token figures as the public balance route reports them. */
  async function balanceOf(slot: string): Promise<{ balance: bigint; used: bigint }> {
    const response = await fetch(
      `${server.url}/v1/development-api/balance_adex/${slot}?cuid=${encodeURIComponent(provider.cuid)}`,
    );
    const body = (await response.json()) as { balance: string; used_balances: string };
    return { balance: BigInt(body.balance), used: BigInt(body.used_balances) };
  }

  /** What each language's suite reads; without DAUTH_E2E_URL the suites skip themselves. */
  async function suiteEnvironment(
    language: LanguageUser,
    name: 'python' | 'go',
  ): Promise<Record<string, string>> {
    const slot = await recordedSlot(language.user);
    const player = players.get(name)!;
    return {
      DAUTH_E2E_DELAYED_URL: proxy.url,
      DAUTH_E2E_DELAY_MS: String(AUTHORIZE_DELAY_MS),
      DAUTH_E2E_NO_WALLET_JWT: noWallet.loginToken,
      DAUTH_E2E_CONTENT_CLIENT_ID: provider.clientId,
      DAUTH_E2E_CONTENT_CLIENT_SECRET: provider.clientSecret,
      DAUTH_E2E_CONTENT_CUID: provider.cuid,
      DAUTH_E2E_CONTENT_CTR_KEY: provider.key,
      DAUTH_E2E_CONTENT_CTR_IV: provider.iv,
      DAUTH_E2E_CONTENT_GCM_KEY: provider.gcmKey,
      DAUTH_E2E_CONTENT_SLOT_ID: player.slotId,
      DAUTH_E2E_CONTENT_SLOT_ADDRESS: player.slot,
      DAUTH_E2E_PROVIDER_CLIENT_ID: registrantApps.get(name)!.clientId,
      DAUTH_E2E_PROVIDER_EMAIL: registrant.email,
      DAUTH_E2E_PROVIDER_PASSWORD: registrant.password,
      DAUTH_E2E_URL: server.url,
      DAUTH_E2E_USER_ID: language.user.uuid,
      DAUTH_E2E_JWT: language.user.loginToken,
      DAUTH_E2E_EXPIRED_JWT: await expiredLoginJwt(server, language.user.uuid),
      DAUTH_E2E_NICKNAME: language.user.nickname,
      DAUTH_E2E_CLIENT_ID: mainApp.clientId,
      DAUTH_E2E_CLIENT_SECRET: mainApp.clientSecret,
      DAUTH_E2E_REDIRECT_URI: language.redirectUri,
      DAUTH_E2E_SLOT_ID: slot.id,
      DAUTH_E2E_CONTENT_ADDRESS: slot.contentAddress,
      DAUTH_E2E_GET_ONLY_CLIENT_ID: getOnlyApp.clientId,
      DAUTH_E2E_GET_ONLY_CLIENT_SECRET: getOnlyApp.clientSecret,
      DAUTH_E2E_GET_ONLY_URI: language.getOnlyUri,
      DAUTH_E2E_TIMEOUT_MS: String(SHORT_TIMEOUT_MS),
    };
  }

  it.skipIf(!pythonAvailable && !inCi)(
    'Python SDK: tests.test_e2e passes against the same server',
    async () => {
      expect(pythonAvailable, 'python3 is required when CI is set').toBe(true);
      const result = await runChild('python3', ['-m', 'unittest', '-v', 'tests.test_e2e'], {
        cwd: pythonDir,
        env: { ...(await suiteEnvironment(python, 'python')), PYTHONDONTWRITEBYTECODE: '1' },
        timeoutMs: 120_000,
      });
      expect(result.exitCode, result.output).toBe(0);
      // Ran for real: every test passed, none skipped.
      expect(result.output).toMatch(/^Ran [1-9]\d* tests? in /m);
      expect(result.output).toMatch(/^OK$/m);
      expect(result.output).not.toMatch(/skipped/);
      // The suite neither made a second slot nor touched the main app's record.
      const slots = await server.services.slots.listForOwner(Number(python.user.uuid), mainApp.clientId);
      expect(slots.map((s) => s.id)).toEqual([(await recordedSlot(python.user)).id]);
    },
    150_000,
  );

  it.skipIf(!goAvailable && !inCi)(
    'Go SDK: go test -run E2E passes against the same server',
    async () => {
      expect(goAvailable, 'go is required when CI is set').toBe(true);
      const result = await runChild('go', ['test', '-count=1', '-v', '-run', 'E2E', './...'], {
        cwd: goDir,
        env: { ...(await suiteEnvironment(go, 'go')), GOPROXY: 'off' },
        timeoutMs: 240_000,
      });
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/^--- PASS: TestE2E/m);
      expect(result.output).not.toMatch(/--- SKIP/);
      const slots = await server.services.slots.listForOwner(Number(go.user.uuid), mainApp.clientId);
      expect(slots.map((s) => s.id)).toEqual([(await recordedSlot(go.user)).id]);
    },
    270_000,
  );
});
